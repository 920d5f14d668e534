"""1. Rule-only checks in-process, on one core."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bench.harness.report import Report, median, verdict
from bench.moderation.corpus import RULE_TARGET_PER_SECOND, SEED, TEXT_CHARS, chinese_words, lexicon

if TYPE_CHECKING:
    from persona_rails.moderation.lexicon import Lexicon


# --- 1. rule-only checks in-process -----------------------------------------------------------------


@contextmanager
def one_cpu() -> Iterator[int]:
    """Pin this process to one CPU (the last it may use) for the block; restore afterwards."""
    allowed = os.sched_getaffinity(0)
    cpu = max(allowed)
    os.sched_setaffinity(0, {cpu})
    try:
        yield cpu
    finally:
        os.sched_setaffinity(0, allowed)


def rule_variants(found: Lexicon) -> dict[str, Callable[[str, int], object]]:
    from persona_rails.moderation.intimacy import evaluate
    from persona_rails.moderation.scoring import Policy, rule_score

    def evaluate_with(policy: Policy) -> Callable[[str, int], object]:
        def run(text: str, stage: int) -> object:
            return evaluate(
                text,
                stage=stage,
                policy=policy,
                lexicon=found,
                local_model_score=None,
                third_party_score=None,
            )

        return run

    return {
        "`rule_score` alone": lambda text, _stage: rule_score(text, found),
        "`evaluate`, policy default": evaluate_with(Policy.DEFAULT),
        "`evaluate`, policy stage_aware": evaluate_with(Policy.STAGE_AWARE),
    }


TARGETED_VARIANTS = ("`evaluate`, policy default", "`evaluate`, policy stage_aware")


@dataclass
class RuleResult:
    per_second: dict[str, list[float]]
    texts: int
    cpu: int
    labels: dict[str, int]
    with_words: float


def measure_rules(texts: list[str], passes: int) -> RuleResult:
    from persona_rails.moderation.intimacy import evaluate
    from persona_rails.moderation.scoring import Policy

    found = lexicon()
    variants = rule_variants(found)
    cases = [(text, 1 + index % 5) for index, text in enumerate(texts)]
    per_second: dict[str, list[float]] = {name: [] for name in variants}
    with one_cpu() as cpu:
        for run in variants.values():  # one untimed pass each: caches, lazy compiles
            for text, stage in cases:
                run(text, stage)
        for _ in range(passes):
            for name, run in variants.items():  # interleaved, so noise hits every variant
                started = time.perf_counter_ns()
                for text, stage in cases:
                    run(text, stage)
                elapsed = time.perf_counter_ns() - started
                per_second[name].append(len(cases) / (elapsed / 1e9))
    labels: dict[str, int] = {}
    for text, stage in cases:
        outcome = evaluate(
            text,
            stage=stage,
            policy=Policy.DEFAULT,
            lexicon=found,
            local_model_score=None,
            third_party_score=None,
        )
        labels[str(outcome.final)] = labels.get(str(outcome.final), 0) + 1
    words = chinese_words(found)
    with_words = sum(any(word in text for word in words) for text in texts) / len(texts)
    return RuleResult(per_second, len(texts), cpu, labels, with_words)


def rule_report(result: RuleResult, passes: int) -> Report:
    rows = []
    passed = True
    for name, samples in result.per_second.items():
        rate = median(samples)
        targeted = name in TARGETED_VARIANTS
        if targeted:
            passed = passed and rate >= RULE_TARGET_PER_SECOND
        rows.append(
            [
                name,
                f"{rate:,.0f}",
                f"{min(samples):,.0f}–{max(samples):,.0f}",
                f"{1e6 / rate:.1f}",
                f"≥ {RULE_TARGET_PER_SECOND:,}" if targeted else "",
                verdict(rate >= RULE_TARGET_PER_SECOND) if targeted else "",
            ]
        )
    labels = ", ".join(
        f"{label} {count / result.texts:.0%}" for label, count in sorted(result.labels.items())
    )
    return Report(
        title="Moderation: rule-only checks in-process, one core",
        headers=["what is timed", "median checks/s", "range over passes", "µs/check", "target", "verdict"],
        rows=rows,
        notes=[
            f"{result.texts:,} texts of {TEXT_CHARS} Chinese characters (seed {SEED}): neutral chat windows "
            f"with 0–4 lexicon words inserted ({result.with_words:.0%} carry at least one); stages 1–5 in "
            f"turn. Final labels under policy default: {labels}.",
            f"{passes} timed passes over the corpus per row, rows interleaved pass by pass, after one untimed "
            f"pass; the process pinned to CPU {result.cpu} (`sched_setaffinity`); garbage collector on.",
            "`evaluate` is the plugin's whole pure path (rule score, fusion with no other source, verdict, "
            "the pydantic `IntimacyResult`), as the service runs it when nothing is reused.",
        ],
        passed=passed,
    )
