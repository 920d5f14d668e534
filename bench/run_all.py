"""Run every benchmark docs/benchmarks.md lists and print its markdown tables (`make bench`).

    python -m bench.run_all [--strict] [--all]

Order matters on a small machine: the in-process benchmarks run first, each starting and deleting
its own embedded Postgres (the round-trip benchmark behind its delaying proxy); the moderation
benchmark runs last of them: it loads 200,000 stored checks and builds their HNSW index (several
minutes). The packaged cold start (CPython 3.12 and PyPI, as `make package` needs, to build the
x86_64 twin), the weekly, judges and hostile-pattern benchmarks follow, each in a process of its
own. --all adds those that need more than that: valgrind (the instruction counts), the packaged
artifact's warm memory, and ~40 minutes (the API fuzzing). --strict exits 1 when a target is
missed; by default the run only reports.
"""

from __future__ import annotations

import argparse
import os
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
from bench.harness.report import Report, emit, machine_summary

IN_PROCESS = (
    import_costs.run,
    warm_latency.run,
    round_trips.run,
    interview.run,
    chair_interrupt.run,
    sps_encounter.run,
    moderation.run,
)
# (module, its arguments, whether it takes --strict): each `python -m` in a child of its own.
CHILDREN = (
    ("bench.cold_start_packaged", (), False),
    ("bench.weekly_summary", (), True),
    ("bench.weekly_insights", (), True),
    ("bench.judges", (), False),
    ("bench.hostile_patterns", (), False),
)
WITH_ALL = (
    ("bench.moderation.instructions", (), False),
    ("bench.sps_encounter.instructions", (), False),
    ("bench.memory_warm", (), False),
    ("bench.api_fuzz", (), False),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 if any target is missed")
    parser.add_argument(
        "--all", action="store_true", help="also the benchmarks that need valgrind, a build or ~40 min"
    )
    args = parser.parse_args(argv)

    print("## Persona Rails benchmarks\n")
    print(machine_summary(), flush=True)
    started = time.monotonic()
    reports: list[Report] = []
    for benchmark in IN_PROCESS:
        report = benchmark()
        emit(report)
        reports.append(report)
    outcomes: list[tuple[str, bool]] = []
    for module, extra, strict in CHILDREN + (WITH_ALL if args.all else ()):
        command = [sys.executable, "-m", module, *extra, *(["--strict"] if strict and args.strict else [])]
        print(f"### `python -m {module}`\n", flush=True)
        outcomes.append((module, subprocess.run(command, check=False).returncode == 0))

    print("### Targets\n")
    for report in reports:
        if report.passed is not None:
            print(f"- {report.title}: {'PASS' if report.passed else 'FAIL'}")
    for module, ok in outcomes:
        print(f"- `{module}`: {'exit 0' if ok else 'FAILED (exit status not 0)'}")
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"\n(all benchmarks took {time.monotonic() - started:.0f} s; load average at the end: {load})")
    missed = any(report.passed is False for report in reports) or not all(ok for _, ok in outcomes)
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
