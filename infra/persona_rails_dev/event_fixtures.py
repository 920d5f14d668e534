"""The events/ fixtures as they are sent: a body's `timestamp` moved to the current day.

InterceptSessionFunction refuses a start whose `timestamp` is more than 24 hours from the server
clock, so a fixture with a written-down date goes stale a day later. Whatever sends a fixture
(`rails invoke`, `rails event`, the tests' `load_event`) keeps the fixture's wall-clock time and
UTC offset (the user's local time, which is what the fixture says) and moves its date to the day
that puts it nearest now, at most 12 hours away. Sending the fixture twice in a row sends the
same body, so a second start is a retry of the first (200) rather than a different payload for
the same `session_id` (409). The file itself stays valid API Gateway v2 JSON, unchanged.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from persona_rails_dev.template import REPO_ROOT

EVENTS_DIR = REPO_ROOT / "events"


def current(stamped: datetime, now: datetime | None = None) -> datetime:
    """`stamped`'s wall-clock time and offset on the day nearest `now` (default: the clock)."""
    local_now = (now or datetime.now(stamped.tzinfo)).astimezone(stamped.tzinfo)
    today = datetime.combine(local_now.date(), stamped.timetz())
    return min((today + timedelta(days=shift) for shift in (-1, 0, 1)), key=lambda t: abs(t - local_now))


def refreshed(event: dict[str, Any], now: datetime | None = None) -> dict[str, Any]:
    """The event with its JSON body's top-level `timestamp`, when it has one with a UTC offset,
    moved to the current day. Anything else (no body, not JSON, no offset) is sent as stored."""
    body = event.get("body")
    if not isinstance(body, str) or event.get("isBase64Encoded"):
        return event
    try:
        payload = json.loads(body)
        stamped = datetime.fromisoformat(payload["timestamp"])
    except (ValueError, TypeError, KeyError):
        return event
    if stamped.utcoffset() is None:
        return event
    payload["timestamp"] = current(stamped, now).isoformat()
    return {**event, "body": json.dumps(payload, ensure_ascii=False)}


def fixture_path(name: str | Path) -> Path:
    """A path as given, or else relative to events/ (`intercept-session/start.json`)."""
    path = Path(name)
    if path.exists() or path.is_absolute():
        return path
    return EVENTS_DIR / path


def load_event(name: str | Path, *, refresh: bool = True) -> dict[str, Any]:
    event: dict[str, Any] = json.loads(fixture_path(name).read_text(encoding="utf-8"))
    return refreshed(event) if refresh else event
