"""Moderation (`ModerationCheckFunction`, `persona_rails.moderation`): rule-only checks on one core,
warm latency through lambda_handler, round trips per check, and retrieval at scale (HNSW against
the exact scan, the filter proven by planted rows). What each part measures and its targets:
docs/benchmarks.md, "Moderation".

    python -m bench.moderation [--quick] [--checks 1000] [--sizes 10000 200000] [--strict]
"""

from __future__ import annotations

import argparse
import os
import re
import time
from dataclasses import dataclass, field, replace

from bench.harness.report import Report, emit, machine_summary, median, ms, percentile, target, trips_cell
from bench.moderation.corpus import (
    LOG_LEVELS,
    P50_TARGET_MS,
    P99_TARGET_MS,
    QUICK,
    ROUND_TRIP_BUDGET,
    SEED,
    Settings,
    chinese_corpus,
)
from bench.moderation.handler import measure_small, meets, round_trip_report, warm_report
from bench.moderation.queries import QUERY_KINDS
from bench.moderation.retrieval import measure_retrieval
from bench.moderation.retrieval_report import probe_report, retrieval_report
from bench.moderation.rules import TARGETED_VARIANTS, measure_rules, rule_report

# --- everything ----------------------------------------------------------------------------------------


VECTOR_LITERAL = re.compile(r"'\[[-0-9.,e]+\]'")


@dataclass
class ModerationReport(Report):
    """Several tables (`sections`), the EXPLAIN plans, then the targets (this report's own table)."""

    sections: list[Report] = field(default_factory=list)
    plans: list[tuple[str, str]] = field(default_factory=list)

    def markdown(self) -> str:
        parts = [section.markdown() for section in self.sections]
        for title, plan in self.plans:
            if plan:
                shown = VECTOR_LITERAL.sub("'[256 numbers]'", plan)
                parts.append(f"#### EXPLAIN (ANALYZE, BUFFERS): {title}\n\n```text\n{shown}\n```\n")
        parts.append(super().markdown())
        return "\n".join(parts)


def run(settings: Settings | None = None) -> Report:
    settings = settings or Settings()
    started = time.monotonic()
    rules = measure_rules(chinese_corpus(settings.texts, SEED), settings.passes)
    small = measure_small(settings.checks, settings.warmup, settings.users, settings.pairs)
    retrieval = measure_retrieval(settings)
    rule = rule_report(rules, settings.passes)
    warm = warm_report(small, retrieval.handler)
    trips = round_trip_report(small)
    lookup, lookup_passed, lookup_summary = retrieval_report(retrieval)
    probes = probe_report(retrieval)
    heavy, light = QUERY_KINDS[0].name, QUERY_KINDS[2].name
    last = retrieval.sizes[-1]
    plans = [
        (f"{size.rows:,} rows, {heavy}, service SQL", size.kinds[heavy].variants["service"].plan)
        for size in retrieval.sizes
    ] + [
        (
            f"{last.rows:,} rows, {heavy}, `(SELECT auth.uid())` filter, before b991c7d",
            last.kinds[heavy].variants["subselect"].plan,
        ),
        (f"{last.rows:,} rows, {light}, service SQL", last.kinds[light].variants["service"].plan),
    ]
    best_rule = min(median(rules.per_second[name]) for name in TARGETED_VARIANTS)
    headline = small.warm[LOG_LEVELS[0]].all
    worst_trips = max(*small.round_trips.fresh_trips, *small.round_trips.reused_trips)
    p50, p99 = percentile(headline, 50), percentile(headline, 99)
    fresh, reused = small.round_trips.fresh_trips, small.round_trips.reused_trips
    targets = [
        target(
            "rule-only checks ≥ 20,000/s on one core",
            f"{best_rule:,.0f}/s (slower policy)",
            rule.passed is True,
        ),
        target(f"warm handler p50 ≤ {P50_TARGET_MS:g} ms", f"{ms(p50)} ms", p50 <= P50_TARGET_MS * 1e6),
        target(f"warm handler p99 ≤ {P99_TARGET_MS:g} ms", f"{ms(p99)} ms", p99 <= P99_TARGET_MS * 1e6),
        target(
            f"≤ {ROUND_TRIP_BUDGET} round trips per check",
            f"fresh {trips_cell(fresh)}, reused {trips_cell(reused)}",
            worst_trips <= ROUND_TRIP_BUDGET,
        ),
        target("retrieval sub-linear with HNSW, filter honoured", lookup_summary, lookup_passed),
    ]
    for measured in retrieval.handler:
        latencies = measured.latencies.all
        targets.append(
            target(
                f"(beyond the issue) warm handler p50/p99 with {measured.rows:,} rows stored, {measured.caller}",
                f"{ms(percentile(latencies, 50))} / {ms(percentile(latencies, 99))} ms",
                meets(latencies),
            )
        )
    sections = [rule, warm, trips, lookup, probes]
    passed = all(section.passed is not False for section in sections)
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    return ModerationReport(
        title="Moderation targets",
        headers=["target", "measured", "verdict"],
        rows=targets,
        notes=[
            f"the moderation benchmark took {time.monotonic() - started:.0f} s; load average at the end: {load}"
        ],
        passed=passed,
        sections=sections,
        plans=plans,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--quick", action="store_true", help="a smaller run (fewer samples, 10k and 50k rows)"
    )
    parser.add_argument("--checks", type=int, help="measured handler checks per log level")
    parser.add_argument("--sizes", type=int, nargs="+", help="stored-check counts for retrieval, ascending")
    parser.add_argument("--strict", action="store_true", help="exit 1 if any target is missed")
    args = parser.parse_args(argv)
    settings = QUICK if args.quick else Settings()
    if args.checks is not None:
        if not 10 <= args.checks <= 100_000:
            parser.error("--checks 10..100000")
        settings = replace(settings, checks=args.checks)
    if args.sizes is not None:
        if len(args.sizes) < 2 or sorted(args.sizes) != args.sizes or args.sizes[0] < 1000:
            parser.error("--sizes: at least two ascending counts, the first >= 1000")
        settings = replace(settings, sizes=tuple(args.sizes))
    print(machine_summary(), flush=True)
    report = run(settings)
    emit(report)
    return 1 if args.strict and report.passed is False else 0
