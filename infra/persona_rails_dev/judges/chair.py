"""The chair judgment: which moment, if any, a chunk of a debate gives a listening chair
(ChairInterruptFunction's offline path: the quick check, the detectors and the local scorer, no
LLM), at aggressiveness 3, the spec's moderate setting (threshold 0.7).

A hedged chunk (it reports, quotes or denies what it says) is also decided at aggressiveness 1,
2 and 4: it must interrupt at none of them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

from persona_rails_dev import evalsets
from persona_rails_dev.judges import Case, with_function

LABELS: tuple[str, ...] = get_args(evalsets.ChairReason)
AGGRESSIVENESS = 3
HEDGED_AGGRESSIVENESS = (1, 2, 3, 4)
# The targets: at aggressiveness 3, interruptions warranted found and found ones warranted;
# hedged chunks interrupting at any aggressiveness below 5 (a count, at most 0).
TARGETS = {
    "targets.interrupt.recall": (0.70, False),
    "targets.interrupt.precision": (0.70, False),
    "targets.hedged_false_alarms": (0.0, True),
}
# Targets reported but not yet met, with why; `rails eval` prints them as open and does not fail
# on them (the floors still hold the figure where it is).
OPEN_TARGETS = {
    "targets.hedged_false_alarms": "issue 22: a hedge the lexicon does not list can still interrupt",
}


def setting(item: evalsets.ChairItem, aggressiveness: int = AGGRESSIVENESS) -> str:
    return json.dumps(
        {
            "speaker": item.speaker,
            "listeners": item.listeners,
            "topic": item.topic,
            "aggressiveness": aggressiveness,
        },
        sort_keys=True,
    )


@dataclass(frozen=True)
class ChairJudge:
    name: str = "chair"
    labels: tuple[str, ...] = LABELS
    report_contexts: bool = False

    def items(self, split: str) -> Sequence[evalsets.ChairItem]:
        return evalsets.load(self.name, split, evalsets.ChairItem)

    def items_of(self, path: Path) -> Sequence[evalsets.ChairItem]:
        items = evalsets.load_file(path, evalsets.ChairItem, prefix="own")
        _seated(path, items)
        return items

    def cases(self, items: Sequence[evalsets.Item]) -> list[Case]:
        return [
            Case(item, setting(item), item.reason) for item in items if isinstance(item, evalsets.ChairItem)
        ]

    def decision(self, text: str, context: str) -> Any:
        from chair_interrupt.artifacts import chair_config, chair_model
        from chair_interrupt.engine.evaluate import offline_decision
        from chair_interrupt.engine.model import Chair, EvaluationContext
        from chair_interrupt.engine.quick import quick_check

        given = json.loads(context)
        speaker = Chair("chair_1", given["speaker"], "offline")
        listeners = tuple(
            Chair(f"chair_{index}", framework, "offline")
            for index, framework in enumerate(given["listeners"], 2)
        )
        config = chair_config()
        evaluation = EvaluationContext(speaker, listeners, text, "", given["topic"])
        return offline_decision(
            config,
            evaluation,
            list(listeners),
            quick_check(config, text),
            aggressiveness=given["aggressiveness"],
            seed=0,
            model=chair_model(),
        )

    def decide(self, text: str, context: str) -> str:
        candidate = self.decision(text, context).candidate
        return "none" if candidate is None else str(candidate.trigger_reason.value)

    def targets(self) -> dict[str, tuple[float, bool]]:
        return TARGETS

    def open_targets(self) -> dict[str, str]:
        return OPEN_TARGETS

    def extra_figures(self, decided: Sequence[Any]) -> dict[str, Any]:
        """Interrupt or not (any reason counts), per language and overall, and the hedged chunks
        warranting none that interrupt at any aggressiveness below 5."""
        found: dict[str, Any] = {}
        for language in (*evalsets.LANGUAGES, "all"):
            chosen = [d for d in decided if language in ("all", d.case.item.lang)]
            warranted = [d for d in chosen if d.case.expected != "none"]
            interrupted = [d for d in chosen if d.decided != "none"]
            hit = [d for d in warranted if d.decided != "none"]
            found[language] = {
                "recall": round(len(hit) / len(warranted), 4) if warranted else 0.0,
                "precision": round(len(hit) / len(interrupted), 4) if interrupted else 0.0,
                "reason_accuracy": round(sum(d.decided == d.case.expected for d in hit) / len(hit), 4)
                if hit
                else 0.0,
            }
        # A hedged chunk whose speaker also claims something in their own voice may warrant an
        # interruption; only the hedged chunks that warrant none can be false alarms.
        hedged = [
            d.case.item
            for d in decided
            if isinstance(d.case.item, evalsets.ChairItem)
            and d.case.item.hedged
            and d.case.expected == "none"
        ]
        interrupting = sum(
            any(self.decide(item.text, setting(item, level)) != "none" for level in HEDGED_AGGRESSIVENESS)
            for item in hedged
        )
        return {
            "interrupt": found["all"],
            "languages": {language: found[language] for language in evalsets.LANGUAGES},
            "hedged_false_alarms": float(interrupting),
            "hedged_chunks": len(hedged),
        }


def _seated(path: Path, items: Sequence[evalsets.ChairItem]) -> None:
    """Every chair of a set of one's own holds a framework the config defines, as the API
    requires: an unknown one would be judged as no chair the function can seat."""
    from chair_interrupt.artifacts import chair_config

    known = chair_config().frameworks.frameworks
    for item in items:
        for framework in (item.speaker, *item.listeners):
            if framework not in known:
                said = f"{item.id}: no framework {framework!r} (the frameworks: {', '.join(sorted(known))})"
                raise evalsets.EvalSetError(f"{path}: {said}")


def build() -> ChairJudge:
    with_function("chair_interrupt")
    return ChairJudge()
