"""3. Round trips per request (see bench/harness/trips.py): encounters one after another, each
listing the catalog, starting, the learner turns (the last keyed one sent again, as a client
retries), reading the encounter back and validating its transcript without and with `store`.
Around every turn the decision records are counted straight on the server (as the owner, not
through the proxy, not timed)."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from bench.harness.handler import BenchUser, load_function_handler, stdout_to_devnull
from bench.harness.trips import Pass, cold, proxied
from bench.sps_encounter.corpus import FUNCTION_ID, LOG_LEVELS, CaseRef, Settings
from bench.sps_encounter.handler import START_ROUTE, Driver, event, spans

if TYPE_CHECKING:
    from persona_rails.db import Database
    from persona_rails_dev.lambda_runtime import Handler
    from persona_rails_dev.template import Function

WARMUP_ENCOUNTERS = 1


def measure_pass(
    database_url: str,
    *,
    function: Function,
    owners: list[BenchUser],
    owner: Database,
    cases: list[CaseRef],
    settings: Settings,
    delay_ms: float,
    seed: int,
) -> Pass:
    """A cold request first (a start, reported apart), then warm-up encounters, then
    `trip_encounters` encounters of `trip_turns` turns, every request counted."""
    result = Pass(delay_ms)
    level = LOG_LEVELS[0]

    def load(url: str) -> Handler:
        return load_function_handler(function, url)

    with (
        proxied(database_url, result, load) as (proxy, handler),
        stdout_to_devnull(),
        spans(count_bytes=True) as found,
    ):
        driver = Driver(
            handler,
            function,
            found=found,
            settings=settings,
            owners=owners,
            cases=cases,
            seed=seed,
            proxy=proxy,
            records_of=owner,
        )
        body = {"scenario_id": cases[0].scenario_id, "seed": 1}
        request = event(function, START_ROUTE, owners[0].token, body=body, key=str(uuid.uuid4()))
        cold(proxy, handler, request, function_id=FUNCTION_ID, result=result, status=201)
        for index in range(WARMUP_ENCOUNTERS + settings.trip_encounters):
            encounter = driver.new_encounter()
            encounter.stream = encounter.stream[: settings.trip_turns]
            taken = [driver.scenarios(encounter, level), driver.start(encounter, level)]
            while not encounter.done:
                taken.append(driver.turn(encounter, level, count_records=True))
            if encounter.keys:
                taken.append(driver.retry(encounter, level))
            read, transcript = driver.get(encounter, level)
            taken.append(read)
            taken.append(driver.validate(encounter, transcript, level, store=False))
            taken.append(driver.validate(encounter, transcript, level, store=True))
            if index >= WARMUP_ENCOUNTERS:
                result.samples.extend(taken)
    return result


def measure_round_trips(
    database_url: str,
    *,
    function: Function,
    owners: list[BenchUser],
    owner: Database,
    cases: list[CaseRef],
    settings: Settings,
    seed: int,
) -> list[Pass]:
    return [
        measure_pass(
            database_url,
            function=function,
            owners=owners,
            owner=owner,
            cases=cases,
            settings=settings,
            delay_ms=delay,
            seed=seed,
        )
        for delay in (0.0, settings.delay_ms)
    ]
