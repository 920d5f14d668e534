"""Run every benchmark docs/benchmarks.md lists and print its markdown tables (`make bench`): the
in-process ones first, then each of the others in a child process of its own; --all adds those
that need valgrind, the packaged artifact or ~40 minutes. See docs/benchmarks.md, "How to run"."""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

from bench import (
    chair_interrupt,
    import_costs,
    interview,
    moderation,
    round_trips,
    sps_encounter,
    warm_latency,
)
from bench.harness.report import STRICT, Report, cli, emit, load_average, machine_summary, option

# Moderation last of them: it loads 200,000 stored checks and builds their HNSW index (minutes).
IN_PROCESS = (import_costs, warm_latency, round_trips, interview, chair_interrupt, sps_encounter, moderation)
# Each `python -m` in a child of its own; --all adds WITH_ALL.
CHILDREN = ("cold_start_packaged", "weekly_summary", "weekly_insights", "judges", "hostile_patterns")
WITH_ALL = ("moderation.instructions", "sps_encounter.instructions", "memory_warm", "api_fuzz")
TAKING_STRICT = {"weekly_summary", "weekly_insights"}


def main(argv: list[str] | None = None) -> int:
    options = [
        STRICT,
        option("--all", action="store_true", help="also those needing valgrind, a build or ~40 min"),
    ]
    return cli(__doc__, argv, options, run)


def run(args: argparse.Namespace) -> int:
    strict = args.strict
    print("## Persona Rails benchmarks\n")
    print(machine_summary(), flush=True)
    started = time.monotonic()
    reports: list[Report] = []
    for benchmark in IN_PROCESS:
        report = benchmark.run()
        emit(report)
        reports.append(report)
    outcomes: list[tuple[str, bool]] = []
    for name in CHILDREN + (WITH_ALL if args.all else ()):
        module = f"bench.{name}"
        command = [sys.executable, "-m", module, *(["--strict"] if strict and name in TAKING_STRICT else [])]
        print(f"### `python -m {module}`\n", flush=True)
        outcomes.append((module, subprocess.run(command, check=False).returncode == 0))

    print("### Targets\n")
    for report in reports:
        if report.passed is not None:
            print(f"- {report.title}: {'PASS' if report.passed else 'FAIL'}")
    for module, ok in outcomes:
        print(f"- `{module}`: {'exit 0' if ok else 'FAILED (exit status not 0)'}")
    print(
        f"\n(all benchmarks took {time.monotonic() - started:.0f} s; load average at the end: {load_average()})"
    )
    missed = any(report.passed is False for report in reports) or not all(ok for _, ok in outcomes)
    return 1 if strict and missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
