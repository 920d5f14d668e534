"""3. Round trips per request, counted by tests/support/delay_proxy.py, with and without delay.

The handler's DATABASE_URL points at the proxy on 127.0.0.1, which forwards to the embedded
server's unix socket and counts the client's flights. One pass adds no delay (the counts, and
the base latency through the proxy); a second adds `delay_ms` in each direction, so each round
trip costs about 2 x delay_ms more and a request should take about base + n x that.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bench.common import BenchUser, expect_status, release_handler_state, stdout_to_devnull
from bench.interview.corpus import Settings, script
from bench.interview.handler import (
    GET_ROUTE,
    START_ROUTE,
    TURN_ROUTE,
    Session,
    Spans,
    event,
    lambda_context,
    load_interview_handler,
    spans,
)
from bench.round_trips import _one_round_trip as one_round_trip
from tests.support.delay_proxy import DelayProxy

if TYPE_CHECKING:
    from persona_rails_dev.lambda_runtime import Handler
    from persona_rails_dev.template import Function

ROUTES = (START_ROUTE, TURN_ROUTE, GET_ROUTE)
WARMUP_SESSIONS = 2


@dataclass
class Pass:
    delay_ms: float
    trips: dict[str, list[int]] = field(default_factory=lambda: {route: [] for route in ROUTES})
    nanoseconds: dict[str, list[int]] = field(default_factory=lambda: {route: [] for route in ROUTES})
    # Per turn: the bytes its write transaction sent (its read is one small batch).
    write_bytes: list[int] = field(default_factory=list)
    cold_setup: int = 0
    cold_request: int = 0
    one_round_trip: list[int] = field(default_factory=list)


def _call(
    handler: Handler, request: dict[str, Any], proxy: DelayProxy, found: Spans, *, status: int, what: str
) -> tuple[dict[str, Any], int, int, int]:
    """(body, nanoseconds, round trips, new connections) for one handler call."""
    context = lambda_context()
    found.clear()
    with proxy.measure() as counted:
        started = time.perf_counter_ns()
        result = handler(request, context)
        elapsed = time.perf_counter_ns() - started
    body = expect_status(result, status, what)
    return body, elapsed, counted.round_trips, counted.counts.connections


def measure_pass(
    database_url: str,
    *,
    function: Function,
    people: list[BenchUser],
    settings: Settings,
    delay_ms: float,
    seed: int,
) -> Pass:
    """Sessions one after another: start, `trip_turns` turns (half the sessions end with a stop
    request), then GET. The very first start is the cold container's and is reported apart."""
    rng = random.Random(seed)
    result = Pass(delay_ms)
    with DelayProxy.to(database_url, delay_seconds=delay_ms / 1000) as proxy:
        handler = load_interview_handler(proxy.url_for(database_url))
        try:
            with stdout_to_devnull(), spans(count_bytes=True) as found:
                for index in range(WARMUP_SESSIONS + settings.trip_sessions):
                    measured = index >= WARMUP_SESSIONS
                    language = ("en", "zh")[index % 2]
                    made = script(rng, language, settings.trip_turns, end_with_stop=index % 2 == 1)
                    session = Session(people[index % len(people)], made)
                    start = event(function, START_ROUTE, session.user.token, body=made.start)
                    if index == 0:
                        with proxy.measure() as cold:
                            body = expect_status(handler(start, lambda_context()), 201, "first start")
                        result.cold_setup, result.cold_request = (
                            cold.setup_round_trips,
                            cold.request_round_trips,
                        )
                    else:
                        body, elapsed, trips, connections = _call(
                            handler, start, proxy, found, status=201, what="start"
                        )
                        if connections:
                            raise RuntimeError("a warm start opened a new connection")
                        if measured:
                            result.trips[START_ROUTE].append(trips)
                            result.nanoseconds[START_ROUTE].append(elapsed)
                    session.session_id = str(body["session_id"])
                    for turn in made.turns:
                        request = event(
                            function, TURN_ROUTE, session.user.token, session.session_id, turn.body()
                        )
                        body, elapsed, trips, connections = _call(
                            handler, request, proxy, found, status=200, what=f"{turn.kind} turn"
                        )
                        if connections:
                            raise RuntimeError("a warm turn opened a new connection")
                        if measured:
                            result.trips[TURN_ROUTE].append(trips)
                            result.nanoseconds[TURN_ROUTE].append(elapsed)
                            result.write_bytes.append(found.sent[-1])
                    request = event(function, GET_ROUTE, session.user.token, session.session_id)
                    body, elapsed, trips, connections = _call(
                        handler, request, proxy, found, status=200, what="get"
                    )
                    if connections:
                        raise RuntimeError("a warm GET opened a new connection")
                    if measured:
                        result.trips[GET_ROUTE].append(trips)
                        result.nanoseconds[GET_ROUTE].append(elapsed)
            result.one_round_trip = one_round_trip(proxy, database_url, 200)
        finally:
            release_handler_state()
    return result


def measure_round_trips(
    database_url: str, function: Function, people: list[BenchUser], settings: Settings, seed: int
) -> list[Pass]:
    return [
        measure_pass(
            database_url, function=function, people=people, settings=settings, delay_ms=delay, seed=seed
        )
        for delay in (0.0, settings.delay_ms)
    ]
