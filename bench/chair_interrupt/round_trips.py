"""3. Round trips per request (see bench/harness/trips.py): the same debates as part 2, every
request counted; evaluations grouped by their decision record's outcome."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from bench.chair_interrupt.corpus import FUNCTION_ID, LOG_LEVELS, Settings
from bench.chair_interrupt.handler import STATS_ROUTE, Driver, event, read_outcomes, spans
from bench.harness.handler import BenchUser, load_function_handler, stdout_to_devnull
from bench.harness.trips import Pass, cold, proxied

if TYPE_CHECKING:
    from persona_rails.db import Database
    from persona_rails_dev.lambda_runtime import Handler
    from persona_rails_dev.template import Function

WARMUP_STEPS = 20


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

    def load(url: str) -> Handler:
        return load_function_handler(function, url)

    with proxied(database_url, result, load) as (proxy, handler), stdout_to_devnull(), spans() as found:
        request = event(function, STATS_ROUTE, owners[0].token, str(uuid.uuid4()))
        cold(proxy, handler, request, function_id=FUNCTION_ID, result=result, status=200)
        driver = Driver(
            handler, function, found=found, settings=settings, owners=owners, seed=seed, proxy=proxy
        )
        for index in range(WARMUP_STEPS + settings.trip_evaluations):
            taken = driver.step(LOG_LEVELS[0])
            if index >= WARMUP_STEPS:
                result.samples.extend(taken)
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
