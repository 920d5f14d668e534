"""One judge measured on one split: figures overall, per language and per context, the issue's
targets, and how often each folding transform changes a decision.

Every figure has a dotted name ("languages.zh.labels.yes.recall"); eval/floors.json records the
least each may be (or, for a transform's change rate, the most), and CI fails below it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from persona_rails_dev.evalsets import LANGUAGES, ROOT
from persona_rails_dev.evaluate.metrics import scores
from persona_rails_dev.evaluate.transforms import TRANSFORMS, applies
from persona_rails_dev.judges import Case, Judge

FLOORS = ROOT / "floors.json"


@dataclass(frozen=True)
class Decided:
    case: Case
    decided: str


def decide_all(judge: Judge, cases: Sequence[Case]) -> list[Decided]:
    return [Decided(case, judge.decide(case.item.text, case.context)) for case in cases]


def _block(decided: Sequence[Decided], labels: Sequence[str]) -> dict[str, Any]:
    return scores(((d.case.expected, d.decided) for d in decided), labels)


def _transforms(judge: Judge, decided: Sequence[Decided]) -> dict[str, Any]:
    found = {}
    for name, transform in TRANSFORMS.items():
        changed = total = 0
        for outcome in decided:
            text = outcome.case.item.text
            if not applies(name, text):
                continue
            total += 1
            changed += judge.decide(transform(text), outcome.case.context) != outcome.decided
        found[name] = {"changed": changed, "of": total, "rate": round(changed / total, 4) if total else 0.0}
    return found


def measure(judge: Judge, split: str, *, transforms: bool = True, path: Path | None = None) -> dict[str, Any]:
    """`split` of the judge's set, or the set of your own at `path` (then `split` names it)."""
    cases = judge.cases(judge.items_of(path) if path is not None else judge.items(split))
    decided = decide_all(judge, cases)
    report: dict[str, Any] = {
        "judge": judge.name,
        "split": split,
        "overall": _block(decided, judge.labels),
        "languages": {
            language: _block([d for d in decided if d.case.item.lang == language], judge.labels)
            for language in getattr(judge, "languages", LANGUAGES)
        },
    }
    contexts = sorted({d.case.context for d in decided})
    # A judge whose context is per item (a chair chunk's speaker and listeners) reports no blocks.
    if contexts != [""] and getattr(judge, "report_contexts", True):
        report["contexts"] = {
            context: _block([d for d in decided if d.case.context == context], judge.labels)
            for context in contexts
        }
    extra = getattr(judge, "extra_figures", None)
    if extra is not None:
        report["targets"] = extra(decided)
    if transforms:
        report["transforms"] = _transforms(judge, decided)
    return report


def figures(report: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, float]]:
    """Every number of the report by its dotted name (supports and counts excluded)."""
    for key, value in report.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            yield from figures(value, f"{name}.")
        elif isinstance(value, float) and key not in {"support", "changed", "of"}:
            yield name, value


def ceiling(name: str) -> bool:
    """Figures that must not rise: a transform's change rate, a false-alarm rate."""
    return name.startswith("transforms.") or name.endswith("false_alarms")


def check_floors(report: dict[str, Any], floors: dict[str, float]) -> list[str]:
    found = dict(figures(report))
    problems = []
    for name, bound in floors.items():
        value = found.get(name)
        if value is None:
            problems.append(f"{name}: not measured")
        elif ceiling(name) and value > bound:
            problems.append(f"{name}: {value:.4f} above its ceiling {bound:.4f}")
        elif not ceiling(name) and value < bound:
            problems.append(f"{name}: {value:.4f} below its floor {bound:.4f}")
    return problems


def read_floors(path: Path = FLOORS) -> dict[str, dict[str, float]]:
    floors: dict[str, dict[str, float]] = json.loads(path.read_text(encoding="utf-8"))["floors"]
    return floors
