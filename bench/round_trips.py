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
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bench.harness.handler import (
    REASONS,
    BenchUser,
    apply_handler_environment,
    create_users,
    embedded_database,
    expect_status,
    release_handler_state,
    start_event,
    stdout_to_devnull,
)
from bench.harness.report import Report, emit, ms, percentile, trips_cell, verdict
from bench.harness.trips import code_label, one_round_trip
from tests.support.delay_proxy import DelayProxy

if TYPE_CHECKING:
    from persona_rails_dev.lambda_runtime import Handler
    from persona_rails_dev.template import Function

REASON_ROUTE = "POST /intercept-session/{session_id}/reason"
REASON_BUDGET = 5
DEFAULT_BUDGET = 4
# A reason the offline evaluator answers with a delay, so the dialog can go on to an appeal
# (an allow cannot be appealed); the appeal text is the one the tests use.
DIALOG_REASON = REASONS[0]
APPEAL = "其实是老板让我下午3点前看完竞品的新视频，要写进今天的报告"


def budget(route_key: str) -> int:
    return REASON_BUDGET if route_key == REASON_ROUTE else DEFAULT_BUDGET


@dataclass
class RouteSamples:
    function: str
    route_key: str
    label: str
    nanoseconds: list[int] = field(default_factory=list)
    round_trips: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class Step:
    """One request of a scripted flow: which route, its event, the status that proves it ran."""

    route_key: str
    event: Callable[[Function, BenchUser, str], dict[str, Any]]
    status: int
    # The response's `session_id` is the session the next steps use (the server picks it).
    names_session: bool = False
    # Where the response names it, when not `session_id` (an encounter's `encounter_id`).
    session_field: str = "session_id"
    # The answer's `state` that proves which path ran, when one status covers several.
    state: str | None = None
    # The row it is reported in, when one route runs twice in a flow on different paths.
    variant: str | None = None

    @property
    def label(self) -> str:
        return f"{self.route_key} ({self.variant})" if self.variant else self.route_key


# --- the flows that exercise each function's routes ------------------------------------------------


def _event(
    function: Function, route_key: str, user: BenchUser, session_id: str, body: dict[str, Any] | None
) -> dict[str, Any]:
    from persona_rails_dev.apigw import http_event

    declared = next(r for r in function.routes if r.route_key == route_key)
    path = declared.path.replace("{session_id}", session_id)
    params = {"session_id": session_id} if "{session_id}" in declared.path else {}
    headers = {"authorization": f"Bearer {user.token}", "user-agent": "persona-rails-bench"}
    text = None
    if body is not None:
        headers["content-type"] = "application/json"
        text = json.dumps(body, ensure_ascii=False)
    return http_event(declared, path, params, method=declared.method, headers=headers, body=text)


HISTORY_ROUTE = "/intercept-session/me/history"
# The whole interception dialog, in the order a client makes it: every route once, the start
# twice (the second inside the unlock window the decision opened), then the data-rights routes.
INTERCEPT_DIALOG = (
    Step("POST /intercept-session", start_event, 201, state="awaiting_reason"),
    Step(
        REASON_ROUTE,
        lambda f, u, sid: _event(f, REASON_ROUTE, u, sid, {"reason_text": DIALOG_REASON}),
        200,
    ),
    Step(
        "POST /intercept-session/{session_id}/appeal",
        lambda f, u, sid: _event(
            f, "POST /intercept-session/{session_id}/appeal", u, sid, {"appeal_text": APPEAL}
        ),
        200,
    ),
    Step(
        "POST /intercept-session/{session_id}/decision",
        lambda f, u, sid: _event(
            f, "POST /intercept-session/{session_id}/decision", u, sid, {"user_decision": "comply"}
        ),
        200,
    ),
    Step(
        "GET /intercept-session/{session_id}",
        lambda f, u, sid: _event(f, "GET /intercept-session/{session_id}", u, sid, None),
        200,
    ),
    # Complying with the appeal's allow unlocked the app: opened again, it answers with no dialog.
    Step(
        "POST /intercept-session",
        lambda f, u, sid: start_event(f, u, str(uuid.uuid4())),
        200,
        state="unlocked",
        variant="unlocked",
    ),
    Step(f"GET {HISTORY_ROUTE}", lambda f, u, sid: _event(f, f"GET {HISTORY_ROUTE}", u, sid, None), 200),
    Step(
        f"DELETE {HISTORY_ROUTE}", lambda f, u, sid: _event(f, f"DELETE {HISTORY_ROUTE}", u, sid, None), 200
    ),
)
MODERATION_ROUTE = "POST /moderation/check"


def _moderation_body(session_id: str) -> dict[str, Any]:
    # A new text every time (the session id is fresh): each check is computed, not reused.
    return {
        "text": f"我很关心你，今天过得怎么样？{session_id[:8]}",
        "dimensions": ["intimacy"],
        "context": {
            "profile": {"persona": "温柔体贴的陪伴型角色", "intimacy_stage": 2},
            "profile_version": "v1.0",
        },
        "policy": "default",
    }


MODERATION_CHECK = (
    Step(MODERATION_ROUTE, lambda f, u, sid: _event(f, MODERATION_ROUTE, u, sid, _moderation_body(sid)), 200),
)
INTERVIEW_START = "POST /interview/sessions"
INTERVIEW_TURN = "POST /interview/sessions/{session_id}/turns"
INTERVIEW_ANSWER = (
    "We moved to Boston in 1985, when I was twelve. My father had found work at the shipyard, and "
    "he walked me to school every morning in the snow before his shift."
)


def _interview_start(function: Function, user: BenchUser, sid: str) -> dict[str, Any]:
    # The client's key for this start: without one, the same body from the same user within a
    # minute is answered as a retry of the first session (200 instead of 201).
    event = _event(
        function,
        INTERVIEW_START,
        user,
        sid,
        {
            "narrator": {"display_name": "Margaret"},
            "language": "en",
            "topic_plan": [
                {"topic_id": "childhood", "title": "your childhood"},
                {"topic_id": "first_job", "title": "your first job"},
            ],
        },
    )
    event["headers"]["idempotency-key"] = sid
    return event


# Start a session, answer once, read it back (the session's id comes from the start's response).
INTERVIEW_SESSION = (
    Step(INTERVIEW_START, _interview_start, 201, names_session=True),
    Step(
        INTERVIEW_TURN,
        lambda f, u, sid: _event(f, INTERVIEW_TURN, u, sid, {"user_text": INTERVIEW_ANSWER}),
        200,
    ),
    Step(
        "GET /interview/sessions/{session_id}",
        lambda f, u, sid: _event(f, "GET /interview/sessions/{session_id}", u, sid, None),
        200,
    ),
)
CHAIR_PREFIX = "/debates/{debate_id}/interrupts"
CHAIR_EVALUATE = f"POST {CHAIR_PREFIX}/evaluate"
# The spec's straw-man case (events/chair-interrupt/evaluate.json): on a fresh debate the
# virtue-ethics chair interrupts (urgency 0.95), so the evaluation claims a cooldown and logs it.
CHAIR_BODY = {
    "current_speaker": {"position": "chair_1", "framework": "utilitarianism", "model_id": "Claude"},
    "other_chairs": [
        {"position": "chair_2", "framework": "virtue_ethics", "model_id": "GPT"},
        {"position": "chair_3", "framework": "deontology", "model_id": "Gemini"},
    ],
    "recent_content": "Virtue ethics people just want to feel good about themselves!",
    "debate_so_far": "Moderator: Should AI systems be allowed to deceive users for their own good?",
    "topic": "AI Ethics",
    "interruptions": {
        "enabled": True,
        "allow_chair_interruptions": True,
        "aggressiveness": 3,
        "cooldown_seconds": 60,
    },
}


def _chair_event(
    function: Function, route_key: str, user: BenchUser, debate_id: str, body: dict[str, Any] | None
) -> dict[str, Any]:
    # The chair routes name a debate, not a session: each dialog's fresh id is a new debate.
    event = _event(function, route_key, user, debate_id, body)
    path = next(r for r in function.routes if r.route_key == route_key).path.replace("{debate_id}", debate_id)
    event["rawPath"] = event["requestContext"]["http"]["path"] = path
    event["pathParameters"] = {"debate_id": debate_id}
    return event


# Evaluate (an interrupt), quick-check, read the stats, reset the cooldowns: every route once.
CHAIR_DEBATE = (
    Step(CHAIR_EVALUATE, lambda f, u, sid: _chair_event(f, CHAIR_EVALUATE, u, sid, CHAIR_BODY), 200),
    Step(
        f"POST {CHAIR_PREFIX}/quick-check",
        lambda f, u, sid: _chair_event(
            f, f"POST {CHAIR_PREFIX}/quick-check", u, sid, {"content": CHAIR_BODY["recent_content"]}
        ),
        200,
    ),
    Step(
        f"GET {CHAIR_PREFIX}/stats",
        lambda f, u, sid: _chair_event(f, f"GET {CHAIR_PREFIX}/stats", u, sid, None),
        200,
    ),
    Step(
        f"POST {CHAIR_PREFIX}/reset-cooldowns",
        lambda f, u, sid: _chair_event(f, f"POST {CHAIR_PREFIX}/reset-cooldowns", u, sid, None),
        200,
    ),
)
SPS_PREFIX = "/sps/encounters"
SPS_START = f"POST {SPS_PREFIX}"
SPS_TURN = f"POST {SPS_PREFIX}/{{encounter_id}}/turns"
SPS_GET = f"GET {SPS_PREFIX}/{{encounter_id}}"
SPS_TRANSCRIPT = [
    {"turnIndex": 0, "role": "learner", "text": "What brings you in today?"},
    {"turnIndex": 1, "role": "patient", "text": "My chest gets tight when I exert myself."},
]


def _sps_event(
    function: Function, route_key: str, user: BenchUser, encounter_id: str, body: dict[str, Any] | None
) -> dict[str, Any]:
    # The SPS routes name an encounter, which the start's response picks.
    event = _event(function, route_key, user, encounter_id, body)
    path = next(r for r in function.routes if r.route_key == route_key).path
    if "{encounter_id}" in path:
        path = path.replace("{encounter_id}", encounter_id)
        event["rawPath"] = event["requestContext"]["http"]["path"] = path
        event["pathParameters"] = {"encounter_id": encounter_id}
    return event


def _sps_start(function: Function, user: BenchUser, sid: str) -> dict[str, Any]:
    event = _sps_event(function, SPS_START, user, sid, {"scenario_id": "chest-pain", "seed": 42})
    event["headers"]["idempotency-key"] = sid
    return event


# List the catalog, start an encounter, take a turn, read it back, validate a transcript.
SPS_ENCOUNTER = (
    Step("GET /sps/scenarios", lambda f, u, sid: _sps_event(f, "GET /sps/scenarios", u, sid, None), 200),
    Step(SPS_START, _sps_start, 201, names_session=True, session_field="encounter_id"),
    Step(
        SPS_TURN,
        lambda f, u, sid: _sps_event(f, SPS_TURN, u, sid, {"learner_text": "When did the pain start?"}),
        200,
    ),
    Step(SPS_GET, lambda f, u, sid: _sps_event(f, SPS_GET, u, sid, None), 200),
    Step(
        "POST /sps/validate",
        lambda f, u, sid: _sps_event(
            f, "POST /sps/validate", u, sid, {"scenario_id": "chest-pain", "transcript": SPS_TRANSCRIPT}
        ),
        200,
    ),
)
# A new HTTP function adds its flow here; the benchmark refuses to run without one.
FLOWS: dict[str, tuple[Step, ...]] = {
    "InterceptSessionFunction": INTERCEPT_DIALOG,
    "ModerationCheckFunction": MODERATION_CHECK,
    "InterviewTurnFunction": INTERVIEW_SESSION,
    "ChairInterruptFunction": CHAIR_DEBATE,
    "SpsEncounterFunction": SPS_ENCOUNTER,
}


def http_functions() -> list[Function]:
    from persona_rails_dev.template import functions

    found = [function for function in functions().values() if function.routes]
    for function in found:
        flow = {step.route_key for step in FLOWS.get(function.logical_id, ())}
        unflowed = sorted(route.route_key for route in function.routes if route.route_key not in flow)
        if unflowed:
            raise SystemExit(f"bench/round_trips.py has no flow for {function.logical_id}: {unflowed}")
    return found


# --- measuring ---------------------------------------------------------------------------------------


@dataclass
class Measured:
    routes: dict[str, RouteSamples]
    cold_setup: int  # the handshake's round trips, on the first request of a cold container
    cold_request: int  # that first request's other round trips
    one_round_trip: list[int]  # a bare `SELECT 1` through the proxy: the price of one round trip


def _run_flows(
    proxy: DelayProxy,
    handlers: list[tuple[Function, Handler]],
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
        for function, handler in handlers:
            session_id = str(uuid.uuid4())
            for step in FLOWS[function.logical_id]:
                event = step.event(function, user, session_id)
                context = LambdaContext(function.logical_id)
                with proxy.measure() as counted:
                    started = time.perf_counter_ns()
                    result = handler(event, context)
                    elapsed = time.perf_counter_ns() - started
                body = expect_status(result, step.status, step.label)
                if step.state is not None and body.get("state") != step.state:
                    raise RuntimeError(f"{step.label}: expected state {step.state}, got {body}")
                if step.names_session:
                    session_id = str(body[step.session_field])
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
        for function in functions
        for step in FLOWS[function.logical_id]
    }
    with embedded_database() as database, DelayProxy.to(database.url, delay_seconds=delay_ms / 1000) as proxy:
        # Users and rules go straight to the server: only the handlers' traffic crosses the proxy.
        people = create_users(database.owner, users)
        release_handler_state()
        apply_handler_environment(proxy.url_for(database.url))
        handlers = [(function, load_handler(function)) for function in functions]
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
    rows, passed = [], True
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
    if not 1 <= args.dialogs <= 10_000 or not 0 <= args.warmup <= 1000 or args.users < 1:
        parser.error("--dialogs 1..10000, --warmup 0..1000, --users >= 1")
    emit(run(args.dialogs, args.warmup, args.users, args.delay_ms))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
