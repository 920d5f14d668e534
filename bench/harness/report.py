"""Percentiles, the markdown tables a benchmark prints, a scenario's targets table, and the
command line every benchmark shares. Nothing here is timed."""

from __future__ import annotations

import argparse
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

# The checkout the measured code came from (a worktree of an older commit, for a "before").
_REPO_ROOT = Path(__file__).resolve().parents[2]


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile: an observed value, so p99 of 1000 samples is the 990th smallest."""
    if not values:
        raise ValueError("no samples")
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def ms(nanoseconds: float) -> str:
    return f"{nanoseconds / 1e6:.2f}"


@dataclass
class Report:
    title: str
    headers: list[str]
    rows: list[list[str]]
    notes: list[str] = field(default_factory=list)
    passed: bool | None = None  # None: the benchmark has no target

    def markdown(self) -> str:
        lines = [f"### {self.title}", "", markdown_table(self.headers, self.rows)]
        if self.notes:
            lines += ["", *(f"- {note}" for note in self.notes)]
        return "\n".join(lines) + "\n"


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        padded = (str(cell).ljust(width) for cell, width in zip(cells, widths, strict=True))
        return "| " + " | ".join(padded) + " |"

    separator = "|" + "|".join("-" * (width + 2) for width in widths) + "|"
    return "\n".join([line(headers), separator, *(line(row) for row in rows)])


def verdict(passed: bool) -> str:
    return "PASS" if passed else "FAIL"


def load_average() -> str:
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def machine_summary() -> str:
    return (
        f"- date: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}\n"
        f"- machine: {platform.machine()}, {len(os.sched_getaffinity(0))} CPUs (nproc),"
        f" {platform.system()} {platform.release()}\n"
        f"- python: {platform.python_implementation()} {platform.python_version()} ({sys.executable})\n"
        f"- load average at start: {load_average()}\n"
    )


def emit(report: Report, strict: bool = False) -> int:
    """Print the report; the exit status: 1 if `strict` and a target was missed."""
    print(report.markdown(), flush=True)
    return 1 if strict and report.passed is False else 0


def trips_cell(values: list[int]) -> str:
    """Round trips in a table cell: `2`, or `2–3 (median 2)` when they varied."""
    low, high = min(values), max(values)
    return str(low) if low == high else f"{low}–{high} (median {median(values):g})"


def latency_cells(values: Sequence[float]) -> list[str]:
    """n, p50, p90, p99 and max, in ms."""
    return [str(len(values)), *(ms(percentile(values, q)) for q in (50, 90, 99)), ms(max(values))]


LATENCY_HEADERS = ["requests", "n", "p50 ms", "p90 ms", "p99 ms", "max ms"]


def target(label: str, measured: str, passed: bool) -> list[str]:
    return [label, measured, verdict(passed)]


@dataclass
class ScenarioReport(Report):
    """Several tables (`sections`), then the targets (this report's own table)."""

    sections: list[Report] = field(default_factory=list)

    def markdown(self) -> str:
        return "\n".join([*(section.markdown() for section in self.sections), super().markdown()])


def code_label() -> str:
    """The commit the measured code came from (_REPO_ROOT may be a worktree of an older commit)."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(_REPO_ROOT), *args], capture_output=True, text=True, check=True, timeout=10
        ).stdout.strip()

    try:
        commit = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return f"{_REPO_ROOT} (not a git checkout)"
    return f"{commit}{' + uncommitted changes' if dirty else ''} ({_REPO_ROOT})"


def scenario_report(
    name: str,
    sections: list[Report],
    targets: list[list[str]],
    *,
    started: float,
    notes: Sequence[str] = (),
    about: Sequence[str] = (),
    called: str | None = None,
) -> ScenarioReport:
    """The measured tables, then the targets table (`about` the code, then the run, then `notes`):
    passed when every counted target passes."""
    called = called or name.lower().replace(" ", "-")
    return ScenarioReport(
        title=f"{name} targets",
        headers=["target", "measured", "verdict"],
        rows=targets,
        notes=[
            f"code: {code_label()}.",
            *about,
            f"the {called} benchmark took {time.monotonic() - started:.0f} s; load average at the end: {load_average()}",
            *notes,
        ],
        passed=all(row[-1] == "PASS" for row in targets if not row[-1].endswith("(not counted)")),
        sections=sections,
    )


Option = tuple[str, dict[str, Any]]


def option(flag: str, **keywords: Any) -> Option:
    """A command-line option: its flag and argparse's add_argument keywords."""
    return flag, keywords


STRICT = option("--strict", action="store_true", help="exit 1 if any target is missed")


def cli(
    doc: str | None,
    argv: list[str] | None,
    options: Sequence[Option],
    run: Callable[[argparse.Namespace], int],
) -> int:
    """A benchmark's command line, its docstring as --help; `run` gets the parsed arguments and
    returns the exit status."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    for flag, keywords in options:
        parser.add_argument(flag, **keywords)
    return run(parser.parse_args(argv))


def bench_main(
    doc: str | None,
    argv: list[str] | None,
    *,
    settings: tuple[Any, Any],
    count: tuple[str, str],
    quick_help: str,
    run: Callable[[Any], Any],
) -> int:
    """A scenario's command line: `--quick` (the first of `settings`, else the second),
    `--<count>` (50..100,000, that field of the settings), `--strict`."""
    flag, count_help = count

    def count_value(text: str) -> int:
        if not 50 <= int(text) <= 100_000:
            raise argparse.ArgumentTypeError("50..100000")
        return int(text)

    def chosen(args: argparse.Namespace) -> int:
        picked = settings[0] if args.quick else settings[1]
        if args.count is not None:
            picked = replace(picked, **{flag: args.count})
        print(machine_summary(), flush=True)
        return emit(run(picked), args.strict)

    quick = option("--quick", action="store_true", help=quick_help)
    counted = option(f"--{flag}", type=count_value, dest="count", help=count_help)
    return cli(doc, argv, [quick, counted, STRICT], chosen)
