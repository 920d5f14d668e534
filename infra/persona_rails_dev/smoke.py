"""`rails smoke`: one short dialog per HTTP function against a deployed API, with a real user's
JWT; the request bodies are the `events/` fixtures', so the smoke test sends what the tests send.

    rails smoke --url https://<api-id>.execute-api.<region>.amazonaws.com --token "$USER_JWT" \\
        --rule-id <one of the user's rules> --app-identifier com.ss.android.ugc.aweme

Each step prints its route and status; the exit code is 1 at the first unexpected status. Ids
the API hands out (a session, an encounter) feed the next step's path; a debate id is made up.
Each function's dialog is its hook's `SMOKE` (persona_rails_dev.hooks), or its fixtures.
"""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from persona_rails_dev.event_fixtures import EVENTS_DIR
from persona_rails_dev.hooks import SmokeStep, hook_for
from persona_rails_dev.template import Function, functions

# Expected of a fixture sent with no flow of its function's own: any success.
SUCCESS = tuple(range(200, 300))


def default_flow(function: Function, events_dir: Path = EVENTS_DIR) -> list[SmokeStep]:
    """A function's fixtures in name order, those whose route needs no id the API hands out."""
    steps = []
    for path in sorted((events_dir / function.kebab_name).glob("*.json")):
        route = json.loads(path.read_text(encoding="utf-8")).get("routeKey", "")
        if route and "{" not in route:
            steps.append(SmokeStep(f"{function.kebab_name}/{path.name}", SUCCESS))
    return steps


def flows() -> dict[str, list[SmokeStep]]:
    """One dialog per HTTP function of template.yaml: its hook's `SMOKE`, else its fixtures."""
    found = {}
    for function in functions().values():
        if not function.routes:
            continue
        hook = hook_for(function)
        steps = getattr(hook, "SMOKE", None) if hook is not None else None
        found[function.logical_id] = list(steps) if steps is not None else default_flow(function)
    return found


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
    for function, steps in flows().items():
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
