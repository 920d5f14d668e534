"""rails eval [JUDGE ...] [--split test|train] [--json] [--no-transforms] [--write-floors]

Prints, for each judge on the held-back test split: precision, recall and F1 per label, overall,
per language (and per policy and stage for intimacy), the confusion matrix, the issue's targets,
and how often each folding transform changes a decision. Exits 1 when a target is missed or a
figure falls below its floor in eval/floors.json.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from persona_rails_dev.evalsets import EvalSetError
from persona_rails_dev.evaluate.report import FLOORS, ceiling, check_floors, figures, measure, read_floors
from persona_rails_dev.judges import NAMES, judge


def _table(block: dict[str, Any], labels: tuple[str, ...], title: str) -> list[str]:
    lines = [f"  {title:<14} {'precision':>9} {'recall':>7} {'f1':>6} {'support':>8}"]
    for label in labels:
        figures_ = block["labels"][label]
        lines.append(
            f"  {label:<14} {figures_['precision']:>9.3f} {figures_['recall']:>7.3f} "
            f"{figures_['f1']:>6.3f} {figures_['support']:>8}"
        )
    return lines


def _matrix(block: dict[str, Any], labels: tuple[str, ...]) -> list[str]:
    width = max(8, *(len(label) + 1 for label in labels))
    header = "".join(f"{label:>{width}}" for label in labels)
    lines = ["  confusion (rows: expected, columns: decided)", "  " + " " * 14 + header]
    for label, row in zip(labels, block["confusion"], strict=True):
        lines.append(f"  {label:<14}" + "".join(f"{count:>{width}}" for count in row))
    return lines


def render(
    report: dict[str, Any],
    labels: tuple[str, ...],
    targets: dict[str, tuple[float, bool]],
    open_targets: dict[str, str] | None = None,
) -> str:
    lines = [f"{report['judge']} on the {report['split']} split: {report['overall']['cases']} decisions"]
    lines += _table(report["overall"], labels, "overall")
    lines += _matrix(report["overall"], labels)
    for language, block in report["languages"].items():
        lines += _table(block, labels, f"{language} ({block['cases']})")
    for context, block in report.get("contexts", {}).items():
        lines += _table(block, labels, context)
    found = dict(figures(report))
    if targets:
        lines.append("  targets")
        for name, (bound, at_most) in targets.items():
            value = found.get(name, math.nan)
            met = value <= bound if at_most else value >= bound
            relation = "<=" if at_most else ">="
            verdict = (
                "ok"
                if met
                else f"OPEN ({(open_targets or {})[name]})"
                if name in (open_targets or {})
                else "MISSED"
            )
            lines.append(f"    {name:<40} {value:.3f} {relation} {bound:.2f} {verdict}")
    if "targets" in report:
        lines.append("  " + json.dumps(report["targets"], sort_keys=True))
    if "transforms" in report:
        lines.append("  decisions changed by a folding transform")
        for name, changed in report["transforms"].items():
            count = f"{changed['changed']:>4} of {changed['of']:<5}"
            lines.append(f"    {name:<12} {count} {changed['rate']:.1%}")
    return "\n".join(lines)


def missed_targets(
    report: dict[str, Any], targets: dict[str, tuple[float, bool]], open_targets: dict[str, str] | None = None
) -> list[str]:
    """The targets missed, except those the judge declares open (reported, not failed on)."""
    found = dict(figures(report))
    missed = []
    for name, (bound, at_most) in targets.items():
        if name in (open_targets or {}):
            continue
        value = found.get(name)
        if value is None or (value > bound if at_most else value < bound):
            missed.append(f"{name}: {value} (target {'<=' if at_most else '>='} {bound})")
    return missed


def floors_of(report: dict[str, Any]) -> dict[str, float]:
    """The floors a report sets: each figure, rounded away from failing at the fourth decimal."""
    return {
        name: (math.ceil(value * 1000) / 1000 if ceiling(name) else math.floor(value * 1000) / 1000)
        for name, value in figures(report)
    }


def run(args: argparse.Namespace) -> int:
    names = args.judges or list(NAMES)
    unknown = sorted(set(names) - set(NAMES))
    if unknown:
        print(f"unknown judge {', '.join(unknown)}; the judges are {', '.join(NAMES)}", file=sys.stderr)
        return 2
    floors = read_floors() if FLOORS.exists() else {}
    reports, failures = {}, []
    own = Path(args.set) if args.set else None
    if own is not None and not own.is_file():
        print(f"rails eval: --set {own}: {'not a file' if own.exists() else 'no such file'}", file=sys.stderr)
        return 2
    for name in names:
        measured = judge(name)
        try:
            report = measure(
                measured, str(own) if own else args.split, transforms=not args.no_transforms, path=own
            )
        except EvalSetError as exc:
            # A set of one's own that does not load (a bad line, not UTF-8, no items) is named,
            # with its line and field where it has them, not shown as a traceback.
            print(f"rails eval: {exc}", file=sys.stderr)
            return 2
        reports[name] = report
        targets = measured.targets() if hasattr(measured, "targets") else {}
        still_open = measured.open_targets() if hasattr(measured, "open_targets") else {}
        if not args.json:
            print(render(report, measured.labels, targets, still_open), end="\n\n")
        if args.split == "test" and own is None:
            failures += [f"{name}: target {line}" for line in missed_targets(report, targets, still_open)]
            if not args.write_floors:
                relevant = {
                    key: value
                    for key, value in floors.get(name, {}).items()
                    if not (args.no_transforms and key.startswith("transforms."))
                }
                failures += [f"{name}: {line}" for line in check_floors(report, relevant)]
    if args.json:
        print(json.dumps(reports, ensure_ascii=False, indent=1, sort_keys=True))
    if args.write_floors:
        written = {**floors, **{name: floors_of(report) for name, report in reports.items()}}
        FLOORS.write_text(
            json.dumps(
                {
                    "comment": "The least each figure of `rails eval` may be on the test split (for a "
                    "transform's change rate or a false-alarm rate: the most). Written by `rails eval "
                    "--write-floors` after a change that improves the judges; CI fails below them.",
                    "floors": written,
                },
                indent=1,
                sort_keys=True,
            )
            + "\n",
            encoding="utf-8",
        )
        print(f"wrote {FLOORS}", file=sys.stderr)
    for failure in failures:
        print(failure, file=sys.stderr)
    return 1 if failures else 0


def register(commands: Any) -> None:
    parser = commands.add_parser("eval", help="measure the judges on their labelled test splits")
    parser.add_argument("judges", nargs="*", help=f"default: every judge ({', '.join(NAMES)})")
    parser.add_argument("--split", choices=("test", "train"), default="test")
    parser.add_argument(
        "--set",
        metavar="PATH",
        help="a labelled set of your own (JSONL, the judge's fields; id and author optional), not a split",
    )
    parser.add_argument("--json", action="store_true", help="print the reports as JSON")
    parser.add_argument("--no-transforms", action="store_true", help="skip the folding transforms")
    parser.add_argument("--write-floors", action="store_true", help="record today's figures as the floors")
    parser.set_defaults(run=run)
