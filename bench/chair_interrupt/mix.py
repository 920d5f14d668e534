"""Chair interrupt, part 2: debates in progress at once through the handler, and each evaluation's outcome read from its decision record."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bench.chair_interrupt.corpus import (
    LOG_LEVELS,
    Settings,
)
from bench.chair_interrupt.handler import EVALUATE_ROUTE, Driver, Sample, spans
from bench.harness.handler import (
    QUIET_POWERTOOLS,
    BenchUser,
    set_log_level,
    stdout_to_devnull,
)
from bench.harness.report import MixSamples

if TYPE_CHECKING:
    from persona_rails.db import Database
    from persona_rails_dev.lambda_runtime import Handler
    from persona_rails_dev.template import Function


def read_outcomes(owner: Database, samples: list[Sample]) -> None:
    """Each evaluation's outcome, from its decision record (read as the owner, not timed)."""
    ids = [sample.evaluation_id for sample in samples if sample.route == EVALUATE_ROUTE]
    with owner.as_owner() as tx:
        rows = tx.rows(
            "SELECT id::text AS id, output->>'outcome' AS outcome,"
            " jsonb_array_length(inputs->'on_cooldown') AS on_cooldown FROM public.decision_records"
            " WHERE id = ANY(CAST(string_to_array(:ids, ',') AS uuid[]))",
            ids=",".join(ids),
        )
    outcomes = {row["id"]: row["outcome"] for row in rows}
    cooling = {row["id"]: row["on_cooldown"] for row in rows}
    for sample in samples:
        if sample.route == EVALUATE_ROUTE:
            sample.outcome = outcomes.get(sample.evaluation_id, "")
            sample.on_cooldown = cooling.get(sample.evaluation_id, 0)
            if not sample.outcome:
                raise RuntimeError(f"no decision record for evaluation {sample.evaluation_id}")
            if (sample.outcome == "interrupt") != sample.interrupted:
                raise RuntimeError(
                    f"evaluation {sample.evaluation_id}: outcome {sample.outcome}, answer {sample.interrupted}"
                )


@dataclass
class MixResults(MixSamples):
    samples: list[Sample]  # measured requests, every route
    debates: int  # debates started (warm-up included)
    warmup: int
    zero_cooldown_resets: tuple[int, int]  # resets of cooldown-0 debates, and how many named chairs


def measure_mix(
    handler: Handler,
    *,
    function: Function,
    owners: list[BenchUser],
    owner: Database,
    settings: Settings,
    seed: int,
) -> MixResults:
    """Warm-up evaluations, then `settings.evaluations` per log level (alternating evaluation by
    evaluation) over debates in progress at once, with the quick-check, stats and reset requests
    the debates make along the way (at the headline level). Outcomes are read afterwards."""
    import gc

    samples: list[Sample] = []
    total = settings.warmup + settings.evaluations * len(LOG_LEVELS)
    with stdout_to_devnull(), spans() as found:
        driver = Driver(handler, function, found=found, settings=settings, owners=owners, seed=seed)
        try:
            for index in range(total):
                measured = index >= settings.warmup
                if index == settings.warmup:
                    gc.collect()  # measure from a clean heap, as a warm container would be
                # Alternate step by step, and flip the pattern every rotation of the slots, so that
                # every debate gets both levels (with an even number of slots it would get only one).
                step = index - settings.warmup
                level = (
                    LOG_LEVELS[(step + step // settings.open_debates) % len(LOG_LEVELS)]
                    if measured
                    else LOG_LEVELS[0]
                )
                taken = driver.step(level)
                if measured:
                    samples.extend(taken)
        finally:
            set_log_level(QUIET_POWERTOOLS["POWERTOOLS_LOG_LEVEL"])
    read_outcomes(owner, samples)
    zero, named = driver.zero_cooldown_resets
    return MixResults(samples, driver.debates_started, settings.warmup, (zero, named))
