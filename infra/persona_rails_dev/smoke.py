"""`rails smoke`: one short dialog per HTTP function against a deployed API, with a real user's
JWT; the request bodies are the `events/` fixtures', so the smoke test sends what the tests send.

    rails smoke --url https://<api-id>.execute-api.<region>.amazonaws.com --token "$USER_JWT" \\
        --rule-id <one of the user's rules> --app-identifier com.ss.android.ugc.aweme

Each step prints its route and status; the exit code is 1 at the first unexpected status. Ids
the API hands out (a session, an encounter) feed the next step's path; a debate id is made up.
"""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from persona_rails_dev.event_fixtures import EVENTS_DIR


@dataclass(frozen=True)
class Step:
    fixture: str  # events/<function>/<fixture>.json: method, route and body
    expect: tuple[int, ...]
    keeps: str | None = None  # the answer's field that names what the next steps address


# Keyed by the template's logical ids; tests/integration/tooling/test_smoke.py holds every HTTP
# function of template.yaml to having a flow here.
FLOWS: dict[str, list[Step]] = {
    "InterceptSessionFunction": [
        Step("intercept-session/start.json", (200, 201), keeps="session_id"),
        Step("intercept-session/reason.json", (200, 409)),
        Step("intercept-session/decision.json", (200, 409)),
        Step("intercept-session/get.json", (200,)),
    ],
    "ModerationCheckFunction": [Step("moderation-check/check.json", (200,))],
    "InterviewTurnFunction": [
        Step("interview-turn/start.json", (201,), keeps="session_id"),
        Step("interview-turn/turn.json", (200,)),
        Step("interview-turn/get.json", (200,)),
    ],
    "ChairInterruptFunction": [
        Step("chair-interrupt/evaluate.json", (200,)),
        Step("chair-interrupt/stats.json", (200,)),
    ],
    "SpsEncounterFunction": [
        Step("sps-encounter/scenarios.json", (200,)),
        Step("sps-encounter/start.json", (201,), keeps="encounter_id"),
        Step("sps-encounter/turn.json", (200,)),
        Step("sps-encounter/validate.json", (200,)),
    ],
}


def token_subject(token: str) -> str:
    """The user the JWT names (not verified here: the API verifies it)."""
    payload = token.split(".")[1]
    return str(json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))["sub"])


def _intercept_body(body: dict[str, Any], *, user_id: str, rule_id: str, app: str) -> dict[str, Any]:
    if "trigger" not in body:
        return body
    return {
        **body,
        "session_id": str(uuid.uuid4()),
        "user_id": user_id,
        "rule_id": rule_id,
        "app_identifier": app,
        "timestamp": datetime.now(timezone(timedelta(hours=8))).isoformat(timespec="seconds"),
    }


Send = Callable[[str, str, dict[str, Any] | None], tuple[int, Any]]


def http_sender(base_url: str, token: str) -> Send:
    def send(method: str, path: str, body: dict[str, Any] | None) -> tuple[int, Any]:
        url = base_url.rstrip("/") + path
        if not url.startswith(("https://", "http://")):
            raise ValueError("the API URL must start with https://")
        request = urllib.request.Request(  # noqa: S310 - an http(s) URL, checked above
            url,
            data=json.dumps(body).encode() if body is not None else None,
            method=method,
            headers={"authorization": f"Bearer {token}", "content-type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - the user's API URL
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    return send


def run(send: Send, *, user_id: str, rule_id: str, app: str, print_fn: Any = print) -> bool:
    ok = True
    for function, steps in FLOWS.items():
        ids = {"debate_id": str(uuid.uuid4())}
        for step in steps:
            event = json.loads((EVENTS_DIR / step.fixture).read_text(encoding="utf-8"))
            method, route = event["routeKey"].split(" ", 1)
            path = route.format(**ids) if "{" in route else route
            body = json.loads(event["body"]) if event.get("body") else None
            if body is not None:
                body = _intercept_body(body, user_id=user_id, rule_id=rule_id, app=app)
            status, answer = send(method, path, body)
            print_fn(f"{function:26} {method:6} {path:60} {status}")
            if status not in step.expect:
                print_fn(f"  unexpected: {json.dumps(answer, ensure_ascii=False)[:300]}")
                ok = False
                break
            if step.keeps and isinstance(answer, dict) and step.keeps in answer:
                ids[step.keeps] = str(answer[step.keeps])
            elif step.keeps:
                # A start that answered "unlocked" or "delayed": nothing to continue.
                state = answer.get("state") if isinstance(answer, dict) else answer
                print_fn(f"  no {step.keeps} in the answer ({state}); done")
                break
    return ok
