"""Moderation (`ModerationCheckFunction`, `persona_rails.moderation`): rule-only checks on one core,
warm latency through lambda_handler with retrieval on, and retrieval at scale (the HNSW index
walked under the caller's filter, proven by planted rows). Round trips per check come from
`bench.round_trips`. What each part measures and its targets: docs/benchmarks.md, "Moderation".

    python -m bench.moderation [--quick] [--checks 1000] [--strict]
"""

from __future__ import annotations

import time

from bench.harness.report import Report, bench_main, median, ms, percentile, scenario_report, target
from bench.moderation.corpus import (
    P50_TARGET_MS,
    P99_TARGET_MS,
    QUICK,
    RULE_TARGET_PER_SECOND,
    SEED,
    Settings,
    chinese_corpus,
)
from bench.moderation.handler import measure_warm, warm_report
from bench.moderation.retrieval import measure_retrieval, plan_section, retrieval_report, retrieval_verdict
from bench.moderation.rules import measure_rules, rule_report


def run(settings: Settings | None = None) -> Report:
    settings = settings or Settings()
    started = time.monotonic()
    rules = measure_rules(chinese_corpus(settings.texts, SEED), settings.passes)
    warm = measure_warm(settings)
    retrieval = measure_retrieval(settings)
    slowest = min(rules, key=lambda name: median(rules[name]))
    p50, p99 = percentile(warm, 50), percentile(warm, 99)
    retrieval_ok, summary = retrieval_verdict(retrieval)
    targets = [
        target(
            f"rule-only checks ≥ {RULE_TARGET_PER_SECOND:,}/s on one core",
            f"{median(rules[slowest]):,.0f}/s ({slowest})",
            median(rules[slowest]) >= RULE_TARGET_PER_SECOND,
        ),
        target(f"warm handler p50 ≤ {P50_TARGET_MS:g} ms", f"{ms(p50)} ms", p50 <= P50_TARGET_MS * 1e6),
        target(f"warm handler p99 ≤ {P99_TARGET_MS:g} ms", f"{ms(p99)} ms", p99 <= P99_TARGET_MS * 1e6),
        target("retrieval sub-linear with HNSW, filter honoured", summary, retrieval_ok),
    ]
    sections = [
        rule_report(rules, settings.texts, settings.passes),
        warm_report(warm, settings),
        retrieval_report(retrieval),
        plan_section(retrieval),
    ]
    return scenario_report(
        "Moderation",
        sections,
        targets,
        started=started,
        notes=[
            "≤ 4 round trips per check: `python -m bench.round_trips` (its `POST /moderation/check` row)."
        ],
    )


def main(argv: list[str] | None = None) -> int:
    return bench_main(
        __doc__,
        argv,
        settings=(QUICK, Settings()),
        count=("checks", "checks", "measured handler checks"),
        quick_help="a smaller run (fewer samples, 10,000 and 50,000 rows)",
        run=run,
    )
