"""3. Round trips per request, counted by tests/support/delay_proxy.py, with and without delay.

The handler's DATABASE_URL points at the proxy on 127.0.0.1, which forwards to the embedded
server's unix socket and counts the client's flights. The same debates as part 2 are played
through it: one pass adds no delay (the counts, and the base latency through the proxy); a second
adds `delay_ms` in each direction, so each round trip costs about 2 x delay_ms more and a request
should take about base + n x that. Evaluations are grouped by their decision record's outcome.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bench.chair_interrupt.corpus import LOG_LEVELS, Settings
from bench.chair_interrupt.handler import (
    STATS_ROUTE,
    Driver,
    Sample,
    event,
    lambda_context,
    load_chair_handler,
    read_outcomes,
    spans,
)
from bench.harness.handler import BenchUser, expect_status, release_handler_state, stdout_to_devnull
from bench.harness.trips import one_round_trip
from tests.support.delay_proxy import DelayProxy

if TYPE_CHECKING:
    from persona_rails.db import Database
    from persona_rails_dev.template import Function

WARMUP_STEPS = 20


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
    settings: Settings,
    delay_ms: float,
    seed: int,
) -> Pass:
    """A cold request first (reported apart), then warm-up steps, then `trip_evaluations` steps
    of the debates (with their quick checks, stats and resets), every request counted."""
    result = Pass(delay_ms)
    with DelayProxy.to(database_url, delay_seconds=delay_ms / 1000) as proxy:
        handler = load_chair_handler(proxy.url_for(database_url))
        try:
            with stdout_to_devnull(), spans() as found:
                cold_owner = owners[0]
                request = event(function, STATS_ROUTE, cold_owner.token, str(uuid.uuid4()))
                with proxy.measure() as cold:
                    expect_status(handler(request, lambda_context()), 200, "first stats")
                result.cold_setup, result.cold_request = cold.setup_round_trips, cold.request_round_trips
                driver = Driver(
                    handler,
                    function,
                    found=found,
                    settings=settings,
                    owners=owners,
                    seed=seed,
                    proxy=proxy,
                )
                for index in range(WARMUP_STEPS + settings.trip_evaluations):
                    taken = driver.step(LOG_LEVELS[0])
                    if index >= WARMUP_STEPS:
                        result.samples.extend(taken)
            result.one_round_trip = one_round_trip(proxy, database_url, 200)
        finally:
            release_handler_state()
    read_outcomes(owner, result.samples)
    return result


def measure_round_trips(
    database_url: str,
    *,
    function: Function,
    owners: list[BenchUser],
    owner: Database,
    settings: Settings,
    seed: int,
) -> list[Pass]:
    return [
        measure_pass(
            database_url,
            function=function,
            owners=owners,
            owner=owner,
            settings=settings,
            delay_ms=delay,
            seed=seed,
        )
        for delay in (0.0, settings.delay_ms)
    ]
