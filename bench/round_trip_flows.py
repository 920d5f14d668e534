"""The dialog each HTTP function's routes are played in by bench/round_trips.py, in the client's order, and each route's round-trip budget."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bench.harness.handler import (
    REASONS,
    BenchUser,
    start_event,
)

if TYPE_CHECKING:
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
