"""The dialog each HTTP function's routes are played in by bench/round_trips.py, in the client's
order, and each route's round-trip budget; a function with no dialog here plays its fixtures whose
route needs no id, as `rails smoke` does."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from bench.harness.handler import BenchUser
from tests.support.api import trigger_payload

if TYPE_CHECKING:
    from persona_rails_dev.template import Function

REASON_ROUTE = "POST /intercept-session/{session_id}/reason"
REASON_BUDGET = 5
DEFAULT_BUDGET = 4
SUCCESS = tuple(range(200, 300))
# The reason turn's text: one the offline evaluator answers with a delay, so the dialog can go on
# to an appeal (an allow cannot be appealed).
DIALOG_REASON = "就是有点无聊，想刷一会儿放松一下"

Body = Callable[[dict[str, Any], BenchUser, str], dict[str, Any]]


def budget(route_key: str) -> int:
    return REASON_BUDGET if route_key == REASON_ROUTE else DEFAULT_BUDGET


@cache
def _fixture(name: str) -> dict[str, Any]:
    from persona_rails_dev.event_fixtures import load_event

    event: dict[str, Any] = load_event(name, refresh=False)
    return event


@dataclass(frozen=True)
class Step:
    """One request of a dialog: the fixture it sends, and the answer that proves which path ran."""

    fixture: str  # events/<function>/<name>.json
    status: tuple[int, ...]
    keeps: str | None = None  # the answer's field naming what the next steps address
    state: str | None = None  # the answer's `state`, when one status covers several paths
    variant: str | None = None  # the row's name, when a route runs twice on different paths
    body: Body | None = None  # the body to send instead of the fixture's (fixture body, user, id)

    @property
    def route_key(self) -> str:
        return str(_fixture(self.fixture)["routeKey"])

    @property
    def label(self) -> str:
        return f"{self.route_key} ({self.variant})" if self.variant else self.route_key

    def event(self, function: Function, user: BenchUser, dialog_id: str) -> dict[str, Any]:
        from persona_rails_dev.apigw import http_event

        fixture = _fixture(self.fixture)
        declared = next(r for r in function.routes if r.route_key == self.route_key)
        params = {name: dialog_id for name in re.findall(r"{(\w+)}", declared.path)}
        path = declared.path.format(**params)
        headers = {**fixture["headers"], "authorization": f"Bearer {user.token}"}
        if "idempotency-key" in headers:
            # The fixture's fixed key would make every dialog after the first a retry of it.
            headers["idempotency-key"] = f"{dialog_id}:{self.fixture}"
        body = json.loads(fixture["body"]) if fixture.get("body") else None
        if self.body is not None and body is not None:
            body = self.body(body, user, dialog_id)
        text = json.dumps(body, ensure_ascii=False) if body is not None else None
        return http_event(declared, path, params, method=declared.method, headers=headers, body=text)


def _start(body: dict[str, Any], user: BenchUser, dialog_id: str) -> dict[str, Any]:
    return trigger_payload(user.id, user.rule, session_id=dialog_id)


def _reopen(body: dict[str, Any], user: BenchUser, dialog_id: str) -> dict[str, Any]:
    # Opening the app again, inside the unlock window the decision opened: a new session id.
    return _start(body, user, str(uuid.uuid4()))


def _intercept(fixture: str, status: int = 200, **options: Any) -> Step:
    return Step(f"intercept-session/{fixture}.json", (status,), **options)


# The whole interception dialog, in the order a client makes it: every route once, the start
# twice (the second inside the unlock window the decision opened), then the data-rights routes,
# which leave the user's next dialog an empty history.
INTERCEPT_DIALOG = (
    _intercept("start", 201, state="awaiting_reason", body=_start),
    _intercept("reason", body=lambda b, u, i: {"reason_text": DIALOG_REASON}),
    _intercept("appeal"),
    _intercept("decision"),
    _intercept("get"),
    _intercept("start", state="unlocked", variant="unlocked", body=_reopen),
    _intercept("export-history"),
    _intercept("delete-history"),
)


def _new_text(body: dict[str, Any], user: BenchUser, dialog_id: str) -> dict[str, Any]:
    # A new text every time: each check is computed, not answered from an earlier one.
    return {**body, "text": f"{body['text']} {dialog_id[:8]}"}


# Each fixture that names a route of its function once, in the client's order; a start's answer
# names the session or encounter the later steps address (a debate's id is the client's).
FLOWS: dict[str, tuple[Step, ...]] = {
    "InterceptSessionFunction": INTERCEPT_DIALOG,
    "ModerationCheckFunction": (Step("moderation-check/check.json", (200,), body=_new_text),),
    "InterviewTurnFunction": (
        Step("interview-turn/start.json", (201,), keeps="session_id"),
        Step("interview-turn/turn.json", (200,)),
        Step("interview-turn/get.json", (200,)),
    ),
    # On a fresh debate the spec's straw-man case interrupts: the evaluation claims a cooldown.
    "ChairInterruptFunction": tuple(
        Step(f"chair-interrupt/{name}.json", (200,))
        for name in ("evaluate", "quick-check", "stats", "reset-cooldowns")
    ),
    "SpsEncounterFunction": (
        Step("sps-encounter/scenarios.json", (200,)),
        Step("sps-encounter/start.json", (201,), keeps="encounter_id"),
        Step("sps-encounter/turn.json", (200,)),
        Step("sps-encounter/get.json", (200,)),
        Step("sps-encounter/validate.json", (200,)),
    ),
}


def flow(function: Function) -> tuple[Step, ...]:
    """The function's dialog here, else its fixtures whose route needs no id (any 2xx)."""
    from persona_rails_dev.smoke import default_flow

    if function.logical_id in FLOWS:
        return FLOWS[function.logical_id]
    return tuple(Step(step.fixture, SUCCESS) for step in default_flow(function))
