"""Round trips to Postgres per request, and what they cost with 1 ms of network each way.

    python -m bench.round_trips [--dialogs 200] [--warmup 20] [--users 20] [--delay-ms 1]

In AWS every flight to Supabase's pooler crosses the network; locally the embedded server
answers over a unix socket in microseconds and hides that. Here the handlers' DATABASE_URL
points at a TCP proxy on 127.0.0.1 (tests/support/delay_proxy.py, the one the round-trip test
uses) that delays every chunk by `--delay-ms` in each direction and counts the client's
flights. Every route of every HTTP function in template.yaml goes through its real
lambda_handler with an API Gateway v2 event; each request is timed around the handler call
only and its round trips are counted on the warm connection. The connection's start-up
(handshake, once per cold container) is reported apart.

Targets (the issue "Round trips are the production latency"): the reason turn <= 5 round
trips; every other route <= 4, the budget a new function gets.

The interception dialog is v2's: after the decision unlocks the app, opening it again answers
`{"state": "unlocked"}` with no dialog (its own row), and the dialog ends by exporting and then
deleting the user's history (the data-rights routes), so the user's next dialog starts on an
empty history rather than inside the last one's unlock window.
"""

from __future__ import annotations

import argparse
import gc
import json
import time
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bench.harness.handler import (
    BenchUser,
    apply_handler_environment,
    create_users,
    embedded_database,
    release_handler_state,
    stdout_to_devnull,
)
from bench.harness.report import Report, code_label, emit, ms, percentile, trips_cell, verdict
from bench.round_trip_flows import DEFAULT_BUDGET, REASON_BUDGET, Step, budget, flow
from tests.support.delay_proxy import DelayProxy

if TYPE_CHECKING:
    from persona_rails_dev.lambda_runtime import Handler
    from persona_rails_dev.template import Function


@dataclass
class RouteSamples:
    function: str
    route_key: str
    label: str
    nanoseconds: list[int] = field(default_factory=list)
    round_trips: list[int] = field(default_factory=list)


# --- the flows that exercise each function's routes ------------------------------------------------


def http_functions() -> list[tuple[Function, tuple[Step, ...]]]:
    """Every HTTP function of template.yaml and its dialog (bench/round_trip_flows.py)."""
    from persona_rails_dev.template import functions

    return [(function, flow(function)) for function in functions().values() if function.routes]


def unmeasured(functions: list[tuple[Function, tuple[Step, ...]]]) -> list[str]:
    """The routes no step of their function's dialog sends (they need an id no step keeps)."""
    return sorted(
        route.route_key
        for function, steps in functions
        for route in function.routes
        if route.route_key not in {step.route_key for step in steps}
    )


def one_round_trip(proxy: DelayProxy, url: str, count: int) -> list[int]:
    """The proxy's price of one round trip: a simple-protocol `SELECT 1` (one flight) on pg8000."""
    import pg8000.native

    from persona_rails.db.url import connect_kwargs

    connection = pg8000.native.Connection(**connect_kwargs(proxy.url_for(url)))
    try:
        samples = []
        for _ in range(count):
            started = time.perf_counter_ns()
            connection.run("SELECT 1")
            samples.append(time.perf_counter_ns() - started)
        return samples
    finally:
        connection.close()


# --- measuring ---------------------------------------------------------------------------------------


@dataclass
class Measured:
    routes: dict[str, RouteSamples]
    cold_setup: int  # the handshake's round trips, on the first request of a cold container
    cold_request: int  # that first request's other round trips
    one_round_trip: list[int]  # a bare `SELECT 1` through the proxy: the price of one round trip


def _run_flows(
    proxy: DelayProxy,
    handlers: list[tuple[Function, tuple[Step, ...], Handler]],
    people: list[BenchUser],
    *,
    dialogs: int,
    warmup: int,
    routes: dict[str, RouteSamples],
) -> tuple[int, int]:
    from persona_rails_dev.lambda_runtime import LambdaContext

    cold: tuple[int, int] | None = None
    for index in range(warmup + dialogs):
        if index == warmup:
            gc.collect()  # start the measured run from a clean heap, as a warm container would be
        user = people[index % len(people)]
        for function, steps, handler in handlers:
            session_id = str(uuid.uuid4())
            for step in steps:
                event = step.event(function, user, session_id)
                context = LambdaContext(function.logical_id)
                with proxy.measure() as counted:
                    started = time.perf_counter_ns()
                    result = handler(event, context)
                    elapsed = time.perf_counter_ns() - started
                if result["statusCode"] not in step.status:
                    raise RuntimeError(
                        f"{step.label}: {result['statusCode']} {str(result.get('body'))[:300]}"
                    )
                body = json.loads(result["body"] or "null")
                if step.state is not None and body.get("state") != step.state:
                    raise RuntimeError(f"{step.label}: expected state {step.state}, got {body}")
                if step.keeps is not None:
                    session_id = str(body[step.keeps])
                if cold is None:
                    cold = (counted.setup_round_trips, counted.request_round_trips)
                    continue
                if counted.counts.connections:
                    raise RuntimeError(f"{step.label} opened a new connection on a warm container")
                if index >= warmup:
                    samples = routes[step.label]
                    samples.nanoseconds.append(elapsed)
                    samples.round_trips.append(counted.round_trips)
    assert cold is not None
    return cold


def measure(dialogs: int, warmup: int, users: int, delay_ms: float) -> Measured:
    from persona_rails_dev.lambda_runtime import load_handler

    functions = http_functions()
    routes = {
        step.label: RouteSamples(function.logical_id, step.route_key, step.label)
        for function, steps in functions
        for step in steps
    }
    with embedded_database() as database, DelayProxy.to(database.url, delay_seconds=delay_ms / 1000) as proxy:
        # Users and rules go straight to the server: only the handlers' traffic crosses the proxy.
        people = create_users(database.owner, users)
        release_handler_state()
        apply_handler_environment(proxy.url_for(database.url))
        handlers = [(function, steps, load_handler(function)) for function, steps in functions]
        try:
            with stdout_to_devnull():
                cold_setup, cold_request = _run_flows(
                    proxy, handlers, people, dialogs=dialogs, warmup=warmup, routes=routes
                )
            price = one_round_trip(proxy, database.url, max(dialogs, 100))
        finally:
            release_handler_state()
    return Measured(routes, cold_setup, cold_request, price)


def run(dialogs: int = 200, warmup: int = 20, users: int = 20, delay_ms: float = 1.0) -> Report:
    import persona_rails

    measured = measure(dialogs, warmup, users, delay_ms)
    missed = unmeasured(http_functions())
    # A route no request reached is not within its budget: it was not measured.
    rows, passed = [], not missed
    for samples in measured.routes.values():
        worst, limit = max(samples.round_trips), budget(samples.route_key)
        passed = passed and worst <= limit
        rows.append(
            [
                samples.function,
                # The variant, if any, after the route: `POST /intercept-session` (unlocked).
                f"`{samples.route_key}`{samples.label[len(samples.route_key) :]}",
                str(len(samples.nanoseconds)),
                trips_cell(samples.round_trips),
                f"≤ {limit}",
                ms(percentile(samples.nanoseconds, 50)),
                ms(percentile(samples.nanoseconds, 99)),
                verdict(worst <= limit),
            ]
        )
    one = measured.one_round_trip
    return Report(
        title=f"Round trips per request ({delay_ms:g} ms each way to Postgres)",
        headers=["function", "route", "requests", "round trips", "budget", "p50 ms", "p99 ms", "verdict"],
        rows=rows,
        notes=[
            f"code: {code_label()}; layer imported from {persona_rails.__path__[0]}.",
            f"{dialogs} measured dialogs (each route once per dialog, in the client's order; the "
            "interception start twice, the second inside the unlock window) after "
            f"{warmup} warm-up dialogs; sessions rotate over {users} users; offline evaluator; "
            "latency timed around lambda_handler only; stdout (EMF, logs) sent to /dev/null.",
            f"DATABASE_URL: a TCP proxy on 127.0.0.1 adding {delay_ms:g} ms each way (so ≥ "
            f"{2 * delay_ms:g} ms per round trip) to the embedded Postgres on its unix socket. "
            f"One round trip through it (pg8000 `SELECT 1`, simple protocol): p50 {ms(percentile(one, 50))} ms, "
            f"p99 {ms(percentile(one, 99))} ms.",
            f"Connection set-up (once per cold container, not in the rows): the handshake took "
            f"{measured.cold_setup} round trip(s) here (local trust auth) and that first request made "
            f"{measured.cold_request} more. Not measured: with TLS and SCRAM-SHA-256, as at the Supabase "
            "pooler, pg8000's handshake is about 5 (SSLRequest, TLS 1.3, startup, two SASL messages).",
            f"Budgets: the reason turn ≤ {REASON_BUDGET}, every other route ≤ {DEFAULT_BUDGET} "
            f"(a new function's budget): {verdict(passed)}.",
            "Routes no dialog reaches (a function without one in bench/round_trip_flows.py sends "
            f"its fixtures that need no id): {', '.join(missed) + ': FAIL' if missed else 'none'}.",
        ],
        passed=passed,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dialogs", type=int, default=200, help="measured dialogs (each route once)")
    parser.add_argument("--warmup", type=int, default=20, help="dialogs before measuring")
    parser.add_argument("--users", type=int, default=20, help="users the sessions rotate over")
    parser.add_argument("--delay-ms", type=float, default=1.0, help="delay added in each direction")
    args = parser.parse_args(argv)
    # The first request of all is the cold container's (reported apart), so one warm-up dialog at
    # least leaves every route a warm sample.
    if not 1 <= args.dialogs <= 10_000 or not 1 <= args.warmup <= 1000 or args.users < 1:
        parser.error("--dialogs 1..10000, --warmup 1..1000, --users >= 1")
    emit(run(args.dialogs, args.warmup, args.users, args.delay_ms))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
