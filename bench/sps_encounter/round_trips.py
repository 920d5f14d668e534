"""3. Round trips per request, counted by tests/support/delay_proxy.py, with and without delay.

The handler's DATABASE_URL points at the proxy on 127.0.0.1, which forwards to the embedded
server's unix socket and counts the client's flights. The same kind of encounters as part 2 are
played through it, one after another: list the catalog, start, the learner turns (the last keyed
one sent again, as a client retries), read the encounter back, validate its transcript without
and with `store`. One pass adds no delay (the counts, and the base latency through the proxy); a
second adds `delay_ms` in each direction, so each round trip costs about 2 x delay_ms more and a
request should take about base + n x that. Around every turn the decision records are counted
straight on the server (as the owner, not through the proxy, not timed).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bench.harness.handler import BenchUser, expect_status, release_handler_state, stdout_to_devnull
from bench.harness.trips import one_round_trip
from bench.sps_encounter.corpus import LOG_LEVELS, CaseRef, Settings
from bench.sps_encounter.handler import (
    START_ROUTE,
    Driver,
    Sample,
    event,
    lambda_context,
    load_sps_handler,
    spans,
)
from tests.support.delay_proxy import DelayProxy

if TYPE_CHECKING:
    from persona_rails.db import Database
    from persona_rails_dev.template import Function

WARMUP_ENCOUNTERS = 1


@dataclass
class Pass:
    delay_ms: float
    samples: list[Sample] = field(default_factory=list)
    cold_setup: int = 0
    cold_request: int = 0
    one_round_trip: list[int] = field(default_factory=list)


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
    with DelayProxy.to(database_url, delay_seconds=delay_ms / 1000) as proxy:
        handler = load_sps_handler(proxy.url_for(database_url))
        try:
            with stdout_to_devnull(), spans(count_bytes=True) as found:
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
                cold = owners[0]
                request = event(
                    function,
                    START_ROUTE,
                    cold.token,
                    body={"scenario_id": cases[0].scenario_id, "seed": 1},
                    key=str(uuid.uuid4()),
                )
                with proxy.measure() as counted:
                    expect_status(handler(request, lambda_context()), 201, "first start")
                result.cold_setup, result.cold_request = (
                    counted.setup_round_trips,
                    counted.request_round_trips,
                )
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
            result.one_round_trip = one_round_trip(proxy, database_url, 200)
        finally:
            release_handler_state()
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
