"""1. Rule-only checks in-process, on one core (the variants are also what instructions.py counts)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from bench.harness.handler import one_cpu
from bench.harness.report import Report, median, verdict
from bench.moderation.corpus import RULE_TARGET_PER_SECOND, SEED, TEXT_CHARS, lexicon

if TYPE_CHECKING:
    from persona_rails.moderation.lexicon import Lexicon


def rule_variants(found: Lexicon) -> dict[str, Callable[[str, int], object]]:
    from persona_rails.moderation.intimacy import evaluate
    from persona_rails.moderation.scoring import Policy, rule_score

    def evaluate_with(policy: Policy) -> Callable[[str, int], object]:
        return lambda text, stage: evaluate(
            text, stage=stage, policy=policy, lexicon=found, local_model_score=None, third_party_score=None
        )

    return {
        "`rule_score` alone": lambda text, _stage: rule_score(text, found),
        "`evaluate`, policy default": evaluate_with(Policy.DEFAULT),
        "`evaluate`, policy stage_aware": evaluate_with(Policy.STAGE_AWARE),
    }


TARGETED_VARIANTS = ("`evaluate`, policy default", "`evaluate`, policy stage_aware")


def measure_rules(texts: list[str], passes: int) -> dict[str, list[float]]:
    """Checks per second of each targeted variant, one sample per pass, on one core."""
    variants = {name: run for name, run in rule_variants(lexicon()).items() if name in TARGETED_VARIANTS}
    cases = [(text, 1 + index % 5) for index, text in enumerate(texts)]
    per_second: dict[str, list[float]] = {name: [] for name in variants}
    with one_cpu():
        for run in variants.values():  # one untimed pass each: caches, lazy compiles
            for text, stage in cases:
                run(text, stage)
        for _ in range(passes):
            for name, run in variants.items():  # interleaved, so noise hits every variant
                started = time.perf_counter_ns()
                for text, stage in cases:
                    run(text, stage)
                per_second[name].append(len(cases) / ((time.perf_counter_ns() - started) / 1e9))
    return per_second


def rule_report(per_second: dict[str, list[float]], texts: int, passes: int) -> Report:
    rows = [
        [
            name,
            f"{median(samples):,.0f}",
            f"{min(samples):,.0f}–{max(samples):,.0f}",
            f"{1e6 / median(samples):.1f}",
            verdict(median(samples) >= RULE_TARGET_PER_SECOND),
        ]
        for name, samples in per_second.items()
    ]
    return Report(
        title="Moderation: rule-only checks in-process, one core",
        headers=["what is timed", "median checks/s", "range over passes", "µs/check", "verdict"],
        rows=rows,
        notes=[
            f"{texts:,} texts of {TEXT_CHARS} Chinese characters (seed {SEED}): neutral chat windows with 0–4 "
            "lexicon words inserted; stages 1–5 in turn. `evaluate` is the plugin's whole pure path (rule "
            "score, fusion with no other source, verdict, the pydantic `IntimacyResult`), as the service runs "
            "it when nothing is reused.",
            f"{passes} timed passes per row, rows interleaved pass by pass, after one untimed pass; the process "
            f"pinned to one CPU (`sched_setaffinity`); garbage collector on. Target ≥ {RULE_TARGET_PER_SECOND:,}/s.",
        ],
        passed=all(median(samples) >= RULE_TARGET_PER_SECOND for samples in per_second.values()),
    )
