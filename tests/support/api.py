"""Call the Lambda handlers with API Gateway v2 events, as API Gateway would."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from persona_rails_dev import event_fixtures
from persona_rails_dev.server import LocalApi, Mounted, in_process
from persona_rails_dev.template import functions

EVENTS_DIR = Path(__file__).resolve().parents[2] / "events"


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: Any

    @property
    def error(self) -> dict[str, Any]:
        return dict(self.body["error"])


def load_event(relative: str) -> dict[str, Any]:
    """A fixture from events/ as `rails invoke` sends it: a start's `timestamp` on the day nearest
    now, at the fixture's time and offset (a start more than 24 hours from the server clock is
    refused)."""
    return event_fixtures.load_event(EVENTS_DIR / relative)


class ApiClient:
    def __init__(self, mounted: list[Mounted]) -> None:
        self.mounted = mounted
        self.local_api = LocalApi(mounted)

    @classmethod
    def for_template(cls) -> ApiClient:
        return cls(in_process(functions().values()))

    def request(
        self,
        method: str,
        path: str,
        token: str | None,
        body: Any = None,
        *,
        raw_body: str | bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> Reply:
        headers = {"content-type": "application/json", "user-agent": "pytest", **(headers or {})}
        if token is not None:
            headers["authorization"] = f"Bearer {token}"
        payload = raw_body if raw_body is not None else (json.dumps(body) if body is not None else None)
        raw = payload.encode() if isinstance(payload, str) else payload
        reply = self.local_api.handle(method, path, headers, raw)
        return Reply(reply.status, reply.headers, json.loads(reply.body) if reply.body else None)

    def post(self, path: str, token: str | None, body: Any = None, **kwargs: Any) -> Reply:
        return self.request("POST", path, token, body, **kwargs)

    def get(self, path: str, token: str | None, **kwargs: Any) -> Reply:
        return self.request("GET", path, token, **kwargs)

    def invoke_event(self, event: dict[str, Any]) -> Reply:
        """Send a whole event (e.g. a fixture from events/) to the function owning its route."""
        route_key = event["routeKey"]
        entry = next(m for m in self.mounted if m.route.route_key == route_key)
        result = entry.invoke(event)
        body = result.get("body")
        return Reply(
            int(result["statusCode"]), dict(result.get("headers") or {}), json.loads(body) if body else None
        )


def trigger_payload(user_id: str, rule: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    now = datetime.now(timezone(timedelta(hours=8)))
    payload = {
        "user_id": user_id,
        "rule_id": str(rule["id"]),
        "app_identifier": rule["app_identifier"],
        "app_display_name": rule["app_display_name"],
        "trigger": "quota_exceeded",
        "timestamp": now.isoformat(),
        "persona_key": "strict-father",
        "streak": 3,
        "override_count_today": 0,
    }
    payload.update(overrides)
    return payload
