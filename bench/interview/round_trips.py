"""3. Round trips per request (see bench/harness/trips.py): sessions one after another, start,
turns and a GET, each request's round trips counted and the bytes each turn's write sent."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bench.harness.handler import BenchUser, expect_status, load_function_handler, stdout_to_devnull
from bench.harness.timing import call
from bench.harness.trips import Pass as TripPass
from bench.harness.trips import cold, proxied
from bench.interview.corpus import FUNCTION_ID, Settings, script
from bench.interview.handler import GET_ROUTE, START_ROUTE, TURN_ROUTE, Session, event, spans

if TYPE_CHECKING:
    from persona_rails_dev.lambda_runtime import Handler
    from persona_rails_dev.template import Function

ROUTES = (START_ROUTE, TURN_ROUTE, GET_ROUTE)
WARMUP_SESSIONS = 2


@dataclass
class Pass(TripPass):
    trips: dict[str, list[int]] = field(default_factory=lambda: {route: [] for route in ROUTES})
    nanoseconds: dict[str, list[int]] = field(default_factory=lambda: {route: [] for route in ROUTES})
    # Per turn: the bytes its write transaction sent (its read is one small batch).
    write_bytes: list[int] = field(default_factory=list)


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

    def load(url: str) -> Handler:
        return load_function_handler(function, url)

    with (
        proxied(database_url, result, load) as (proxy, handler),
        stdout_to_devnull(),
        spans(count_bytes=True) as found,
    ):

        def timed(
            request: dict[str, Any], route: str, status: int, what: str, measured: bool
        ) -> dict[str, Any]:
            found.clear()
            answer, elapsed, trips = call(handler, request, FUNCTION_ID, proxy)
            body = expect_status(answer, status, what)
            if measured:
                result.trips[route].append(trips)
                result.nanoseconds[route].append(elapsed)
            return body

        for index in range(WARMUP_SESSIONS + settings.trip_sessions):
            measured = index >= WARMUP_SESSIONS
            language = ("en", "zh")[index % 2]
            made = script(rng, language, settings.trip_turns, end_with_stop=index % 2 == 1)
            session = Session(people[index % len(people)], made)
            start = event(function, START_ROUTE, session.user.token, body=made.start)
            if index == 0:
                body = cold(proxy, handler, start, function_id=FUNCTION_ID, result=result, status=201)
            else:
                body = timed(start, START_ROUTE, 201, "start", measured)
            session.session_id = str(body["session_id"])
            for turn in made.turns:
                request = event(function, TURN_ROUTE, session.user.token, session.session_id, turn.body())
                timed(request, TURN_ROUTE, 200, f"{turn.kind} turn", measured)
                if measured:
                    result.write_bytes.append(found.sent[-1])
            request = event(function, GET_ROUTE, session.user.token, session.session_id)
            timed(request, GET_ROUTE, 200, "get", measured)
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
