"""SPS encounter, part 2: the turn mix, encounters in progress at once through the handler, and the decision records each turn wrote."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bench.harness.handler import (
    QUIET_POWERTOOLS,
    BenchUser,
    set_log_level,
    stdout_to_devnull,
)
from bench.harness.report import MixSamples
from bench.sps_encounter.corpus import FUNCTION_ID, LOG_LEVELS, CaseRef, Settings
from bench.sps_encounter.handler import (
    DECISION_KIND,
    SCENARIOS_EVERY,
    TURN_ROUTE,
    Driver,
    Encounter,
    Sample,
    count_records,
    spans,
)

if TYPE_CHECKING:
    from persona_rails.db import Database
    from persona_rails_dev.lambda_runtime import Handler
    from persona_rails_dev.template import Function


def read_records(owner: Database, samples: list[Sample]) -> dict[str, tuple[str, int]]:
    """The decision records of each turn (their subject), read as the owner: function/kind, rows."""
    ids = [sample.turn_id for sample in samples if sample.turn_id]
    with owner.as_owner() as tx:
        rows = tx.rows(
            "SELECT subject_id::text AS id, string_agg(DISTINCT function_name || '/' || kind, ',') AS kind,"
            " count(*) AS n FROM public.decision_records"
            " WHERE subject_id = ANY(CAST(string_to_array(:ids, ',') AS uuid[])) GROUP BY subject_id",
            ids=",".join(ids),
        )
    return {row["id"]: (row["kind"], int(row["n"])) for row in rows}


@dataclass
class MixResults(MixSamples):
    samples: list[Sample]  # measured requests, every route
    encounters: int  # started (warm-up included)
    warmup: int
    turns_taken: int  # every turn answered, warm-up included
    records: int  # sps.patient_turn decision records in the database afterwards
    missing_records: int  # measured turns without exactly one decision record of the right kind


def measure_mix(
    handler: Handler,
    *,
    function: Function,
    owners: list[BenchUser],
    owner: Database,
    cases: list[CaseRef],
    settings: Settings,
    seed: int,
) -> MixResults:
    """Warm-up turns, then `settings.turns` per log level (alternating turn by turn, the pattern
    flipped every rotation of the slots) over encounters in progress at once; a new encounter's
    owner lists the catalog now and then, a finished one is read back and validated (all at the
    headline level). Decision records are read afterwards."""
    import gc

    samples: list[Sample] = []
    total = settings.warmup + settings.turns * len(LOG_LEVELS)
    records_before = count_records(owner)
    with stdout_to_devnull(), spans() as found:
        driver = Driver(
            handler, function, found=found, settings=settings, owners=owners, cases=cases, seed=seed
        )
        slots: list[Encounter] = []
        try:
            set_log_level(LOG_LEVELS[0])
            for _ in range(settings.open_encounters):
                encounter = driver.new_encounter()
                driver.start(encounter, LOG_LEVELS[0])
                slots.append(encounter)
            for index in range(total):
                measured = index >= settings.warmup
                if index == settings.warmup:
                    gc.collect()  # measure from a clean heap, as a warm container would be
                step = index - settings.warmup
                level = (
                    LOG_LEVELS[(step + step // len(slots)) % len(LOG_LEVELS)] if measured else LOG_LEVELS[0]
                )
                slot = index % len(slots)
                encounter = slots[slot]
                set_log_level(level)
                taken = [driver.turn(encounter, level)]
                set_log_level(LOG_LEVELS[0])  # the other routes at the headline level
                if encounter.done:
                    taken.extend(driver.finish(encounter, LOG_LEVELS[0]))
                    encounter = driver.new_encounter()
                    if driver.started % SCENARIOS_EVERY == 0:
                        taken.append(driver.scenarios(encounter, LOG_LEVELS[0]))
                    taken.append(driver.start(encounter, LOG_LEVELS[0]))
                    slots[slot] = encounter
                if measured:
                    samples.extend(taken)
        finally:
            set_log_level(QUIET_POWERTOOLS["POWERTOOLS_LOG_LEVEL"])
    turns = [s for s in samples if s.route == TURN_ROUTE]
    found_records = read_records(owner, turns)
    missing = sum(1 for s in turns if found_records.get(s.turn_id) != (f"{FUNCTION_ID}/{DECISION_KIND}", 1))
    return MixResults(
        samples,
        driver.started,
        settings.warmup,
        driver.turns_taken,
        count_records(owner) - records_before,
        missing,
    )
