"""1. Rule-only checks in-process, on one core (the variants are also what instructions.py counts)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from bench.harness.handler import one_cpu
from bench.harness.report import Report, median, target, verdict
from bench.harness.scenario import passes, rate_cells, rate_headers
from bench.moderation.corpus import RULE_TARGET_PER_SECOND, SEED, Settings, chinese_corpus, lexicon

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


def measure_rules(settings: Settings) -> dict[str, list[float]]:
    """Checks per second of each targeted variant, one sample per pass, on one core; stages 1-5 in turn."""
    texts = chinese_corpus(settings.texts, SEED)
    cases = [(text, 1 + index % 5) for index, text in enumerate(texts)]
    variants = {name: run for name, run in rule_variants(lexicon()).items() if name in TARGETED_VARIANTS}
    with one_cpu():
        return passes({name: (run, cases) for name, run in variants.items()}, settings.passes)


def rule_report(per_second: dict[str, list[float]], settings: Settings) -> Report:
    rows = [
        [name, *rate_cells(rates), verdict(median(rates) >= RULE_TARGET_PER_SECOND)]
        for name, rates in per_second.items()
    ]
    return Report(
        title="Moderation: rule-only checks in-process, one core",
        headers=["what is timed", *rate_headers("check"), "verdict"],
        rows=rows,
        notes=[f"{settings.texts:,} texts (seed {SEED}), {settings.passes} timed passes per row."],
    )


def rule_target(per_second: dict[str, list[float]]) -> list[str]:
    slowest = min(per_second, key=lambda name: median(per_second[name]))
    rate = median(per_second[slowest])
    label = f"rule-only checks ≥ {RULE_TARGET_PER_SECOND:,}/s on one core"
    return target(label, f"{rate:,.0f}/s ({slowest})", rate >= RULE_TARGET_PER_SECOND)
