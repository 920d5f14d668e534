"""Round trips to Postgres per request of every HTTP route, and their cost with 1 ms of network each
way (a delaying TCP proxy); targets: the reason turn <= 5, every other route <= 4. Method:
docs/benchmarks.md, "Round trips per request"."""

from __future__ import annotations

import gc
import json
import os
import time
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bench.harness import handler as harness
from bench.harness.report import Report, cli, code_label, emit, ms, option, percentile, trips_cell, verdict
from bench.round_trip_flows import DEFAULT_BUDGET, REASON_BUDGET, Step, budget, flow
from tests.support.delay_proxy import DelayProxy

if TYPE_CHECKING:
    from persona_rails_dev.lambda_runtime import Handler
    from persona_rails_dev.template import Function

DELAY_MS = 1.0
USERS = 20


@dataclass
class RouteSamples:
    function: str
    route_key: str
    label: str
    nanoseconds: list[int] = field(default_factory=list)
    round_trips: list[int] = field(default_factory=list)


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


@dataclass
class Measured:
    routes: dict[str, RouteSamples]
    cold_setup: int  # the handshake's round trips, on the first request of a cold container
    cold_request: int  # that first request's other round trips
    one_round_trip: list[int]  # a bare `SELECT 1` through the proxy: the price of one round trip


def _run_flows(
    proxy: DelayProxy,
    handlers: list[tuple[Function, tuple[Step, ...], Handler]],
    people: list[harness.BenchUser],
    *,
    dialogs: int,
    warmup: int,
    routes: dict[str, RouteSamples],
) -> tuple[int, int]:
    cold: tuple[int, int] | None = None
    for index in range(warmup + dialogs):
        if index == warmup:
            gc.collect()  # start the measured run from a clean heap, as a warm container would be
        user = people[index % len(people)]
        for function, steps, handler in handlers:
            session_id = str(uuid.uuid4())
            for step in steps:
                event = step.event(function, user, session_id)
                with proxy.measure() as counted:
                    result, elapsed = harness.call(handler, event, function.logical_id)
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


def measure(dialogs: int, warmup: int) -> Measured:
    from persona_rails_dev.lambda_runtime import load_handler

    functions = http_functions()
    routes = {
        step.label: RouteSamples(function.logical_id, step.route_key, step.label)
        for function, steps in functions
        for step in steps
    }
    with (
        harness.embedded_database() as database,
        DelayProxy.to(database.url, delay_seconds=DELAY_MS / 1000) as proxy,
    ):
        # Users and rules go straight to the server: only the handlers' traffic crosses the proxy.
        people = harness.create_accounts(database.owner, USERS, with_rule=True)
        harness.release_handler_state()
        # Every function gets InterceptSessionFunction's variables (then its own, where unset).
        intercept = next(function for function, _ in functions if function.logical_id == harness.FUNCTION_ID)
        os.environ.update(harness.handler_environment(proxy.url_for(database.url), intercept))
        handlers = [(function, steps, load_handler(function)) for function, steps in functions]
        try:
            with harness.stdout_to_devnull():
                cold_setup, cold_request = _run_flows(
                    proxy, handlers, people, dialogs=dialogs, warmup=warmup, routes=routes
                )
            price = one_round_trip(proxy, database.url, max(dialogs, 100))
        finally:
            harness.release_handler_state()
    return Measured(routes, cold_setup, cold_request, price)


def run(dialogs: int = 200, warmup: int = 20) -> Report:
    import persona_rails

    measured = measure(dialogs, warmup)
    missed = unmeasured(http_functions())
    # A route no request reached is not within its budget: it was not measured.
    rows, passed = [], not missed
    for samples in measured.routes.values():
        worst, limit = max(samples.round_trips), budget(samples.route_key)
        passed = passed and worst <= limit
        # The variant, if any, after the route: `POST /intercept-session` (unlocked).
        route = f"`{samples.route_key}`{samples.label[len(samples.route_key) :]}"
        times = [ms(percentile(samples.nanoseconds, q)) for q in (50, 99)]
        cells = [str(len(samples.nanoseconds)), trips_cell(samples.round_trips), f"≤ {limit}", *times]
        rows.append([samples.function, route, *cells, verdict(worst <= limit)])
    one = measured.one_round_trip
    return Report(
        title=f"Round trips per request ({DELAY_MS:g} ms each way to Postgres)",
        headers=["function", "route", "requests", "round trips", "budget", "p50 ms", "p99 ms", "verdict"],
        rows=rows,
        notes=[
            f"code: {code_label()}; layer imported from {persona_rails.__path__[0]}.",
            f"{dialogs} measured dialogs after {warmup} warm-up dialogs over {USERS} users; the set-up: "
            'docs/benchmarks.md, "Round trips per request".',
            f"One round trip through the proxy (pg8000 `SELECT 1`): p50 {ms(percentile(one, 50))} ms, "
            f"p99 {ms(percentile(one, 99))} ms.",
            f"Connection set-up (once per cold container, not in the rows): {measured.cold_setup} round "
            f"trip(s) for the handshake (local trust auth), then {measured.cold_request} for that request.",
            f"Budgets: the reason turn ≤ {REASON_BUDGET}, every other route ≤ {DEFAULT_BUDGET}: {verdict(passed)}.",
            f"Routes no dialog reaches: {', '.join(missed) + ': FAIL' if missed else 'none'}.",
        ],
        passed=passed,
    )


def main(argv: list[str] | None = None) -> int:
    # The first request of all is the cold container's (reported apart), so one warm-up dialog at
    # least leaves every route a warm sample.
    options = [
        option("--dialogs", type=int, default=200, help="measured dialogs (each route once)"),
        option("--warmup", type=int, default=20, help="dialogs before measuring (at least 1)"),
    ]
    return cli(__doc__, argv, options, lambda args: emit(run(args.dialogs, args.warmup)))


if __name__ == "__main__":
    raise SystemExit(main())
