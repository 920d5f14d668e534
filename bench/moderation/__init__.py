"""Moderation (`ModerationCheckFunction`, `persona_rails.moderation`): rule-only checks on one core,
warm latency through lambda_handler, and retrieval at scale. What is measured and the targets:
docs/benchmarks.md, "Moderation"; round trips per check are `python -m bench.round_trips`'s."""

from __future__ import annotations

import time

from bench.harness.report import Report, bench_main, scenario_report
from bench.moderation.corpus import QUICK, Settings
from bench.moderation.handler import measure_warm, warm_report, warm_targets
from bench.moderation.retrieval import measure_retrieval, plan_section, retrieval_report, retrieval_target
from bench.moderation.rules import measure_rules, rule_report, rule_target


def run(settings: Settings | None = None) -> Report:
    settings = settings or Settings()
    started = time.monotonic()
    rules = measure_rules(settings)
    warm = measure_warm(settings)
    retrieval = measure_retrieval(settings)
    targets = [rule_target(rules), *warm_targets(warm), retrieval_target(retrieval)]
    sections = [rule_report(rules, settings), warm_report(warm, settings), retrieval_report(retrieval)]
    return scenario_report("Moderation", [*sections, plan_section(retrieval)], targets, started=started)


def main(argv: list[str] | None = None) -> int:
    count = ("checks", "measured handler checks")
    quick = "a smaller run (fewer samples, 10,000 and 50,000 rows)"
    return bench_main(__doc__, argv, settings=(QUICK, Settings()), count=count, quick_help=quick, run=run)
