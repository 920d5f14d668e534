"""Run every benchmark and print its markdown table (`make bench`).

    python -m bench.run_all [--strict]

Order matters on a small machine: the two child-process benchmarks run first, before the warm
benchmark has grown its database, and each one starts and deletes its own embedded Postgres
(the round-trip benchmark too, behind its delaying proxy). The moderation benchmark runs last:
it loads 200,000 stored checks and builds their HNSW index (several minutes).
--strict exits 1 when a target is missed; by default the run only reports.
"""

from __future__ import annotations

import argparse
import os
import time

from bench import (
    chair_interrupt,
    cold_start,
    import_costs,
    interview,
    moderation,
    round_trips,
    sps_encounter,
    warm_latency,
)
from bench.harness.report import Report, emit, machine_summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 if any target is missed")
    args = parser.parse_args(argv)

    print("## Persona Rails benchmarks\n")
    print(machine_summary(), flush=True)
    started = time.monotonic()
    reports: list[Report] = []
    for benchmark in (
        import_costs.run,
        cold_start.run,
        warm_latency.run,
        round_trips.run,
        interview.run,
        chair_interrupt.run,
        sps_encounter.run,
        moderation.run,
    ):
        report = benchmark()
        emit(report)
        reports.append(report)

    print("### Targets\n")
    for report in reports:
        if report.passed is not None:
            print(f"- {report.title}: {'PASS' if report.passed else 'FAIL'}")
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"\n(all benchmarks took {time.monotonic() - started:.0f} s; load average at the end: {load})")
    missed = any(report.passed is False for report in reports)
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
