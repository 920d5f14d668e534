"""3. Round trips per request (see bench/harness/trips.py): sessions one after another, start,
turns and a GET, each request's round trips counted and the bytes each turn's write sent."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from bench.harness.handler import BenchUser, expect_status, load_function_handler, stdout_to_devnull
from bench.harness.report import Report, verdict
from bench.harness.timing import call
from bench.harness.trips import Pass as TripPass
from bench.harness.trips import cold, price_notes, proxied, trip_headers, trip_row
from bench.interview.corpus import FUNCTION_ID, ROUND_TRIP_BUDGET, Settings, script
from bench.interview.handler import GET_ROUTE, START_ROUTE, TURN_ROUTE, Session, event, spans

if TYPE_CHECKING:
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

    with (
        proxied(database_url, result, partial(load_function_handler, function)) as (proxy, handler),
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


BUFFER_BYTES = 8192  # pg8000 writes through a BufferedWriter of io.DEFAULT_BUFFER_SIZE


def _trip_rows(passes: list[Pass], price: float) -> tuple[list[list[str]], bool]:
    base, delayed = passes

    def turns(pass_: Pass, large: bool | None) -> tuple[list[int], list[int]]:
        chosen = [
            (trips, elapsed)
            for trips, elapsed, sent in zip(
                pass_.trips[TURN_ROUTE], pass_.nanoseconds[TURN_ROUTE], pass_.write_bytes, strict=True
            )
            if large is None or (sent > BUFFER_BYTES) == large
        ]
        return [trips for trips, _ in chosen], [elapsed for _, elapsed in chosen]

    def sizes(large: bool) -> str:
        found = [sent for sent in base.write_bytes if (sent > BUFFER_BYTES) == large]
        return f"{min(found):,}–{max(found):,} B" if found else ""

    selections: list[tuple[str, Callable[[Pass], tuple[list[int], list[int]]]]] = [
        (f"`{START_ROUTE}`", lambda p: (p.trips[START_ROUTE], p.nanoseconds[START_ROUTE])),
        (f"`{TURN_ROUTE}`, all turns", lambda p: turns(p, None)),
        (f"turns writing ≤ {BUFFER_BYTES:,} B ({sizes(False)})", lambda p: turns(p, False)),
        (f"turns writing > {BUFFER_BYTES:,} B ({sizes(True)})", lambda p: turns(p, True)),
        (f"`{GET_ROUTE}`", lambda p: (p.trips[GET_ROUTE], p.nanoseconds[GET_ROUTE])),
    ]
    rows = []
    for label, select in selections:
        base_trips, base_ns = select(base)
        delayed_trips, delayed_ns = select(delayed)
        if base_ns and delayed_ns:
            trips = base_trips + delayed_trips
            rows.append(trip_row(label, trips, base_ns, delayed_ns, price, budget=ROUND_TRIP_BUDGET))
    return rows, all(row[-1] == "PASS" for row in rows)


def round_trip_report(passes: list[Pass], settings: Settings) -> Report:
    rows, passed = _trip_rows(passes, passes[1].price - passes[0].price)
    delay = settings.delay_ms
    return Report(
        title=f"Interview: round trips per request (no delay, then {delay:g} ms each way to Postgres)",
        headers=trip_headers(delay),
        rows=rows,
        notes=[
            f"Per pass: 2 warm-up sessions, then {settings.trip_sessions} sessions of start, {settings.trip_turns} "
            "turns (every other session ending with a stop request) and a GET, English and Chinese alternating; "
            "round trips counted by `tests/support/delay_proxy.py` on the warm connection (both passes); timed "
            "around lambda_handler only. A turn's write is one batch (`Database.run_as_user`); the bytes it wrote "
            "were counted at pg8000's `_write`.",
            *price_notes(passes, first="start"),
            f"Budget ≤ {ROUND_TRIP_BUDGET} per request: {verdict(passed)}.",
        ],
        passed=passed,
    )
