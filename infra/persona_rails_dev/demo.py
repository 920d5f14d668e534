"""A complete interception dialog against the local API, printed step by step."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid
from datetime import datetime, timedelta, timezone
from typing import Any

from persona_rails_dev.local_env import DEV_USER_ID, mint_token

DEMO_RULE_ID = "11111111-1111-4111-8111-111111111111"  # 抖音, from supabase/seed.sql


def call(
    base_url: str, method: str, path: str, token: str, body: dict[str, Any] | None = None
) -> tuple[int, dict[str, Any]]:
    data = json.dumps(body, ensure_ascii=False).encode() if body is not None else None
    request = urllib.request.Request(  # noqa: S310 - the URL is the local stack's own
        base_url + path,
        data=data,
        method=method,
        headers={"authorization": f"Bearer {token}", "content-type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def run_demo(base_url: str, print_fn: Any = print) -> dict[str, Any]:
    token = mint_token(DEV_USER_ID)
    session_id = str(uuid.uuid4())
    now = datetime.now(timezone(timedelta(hours=8)))
    steps: dict[str, Any] = {}

    def step(title: str, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        status, reply = call(base_url, method, path, token, body)
        print_fn(f"\n=== {title}: {method} {path} -> {status}")
        print_fn(json.dumps(reply, ensure_ascii=False, indent=2))
        if status >= 400:
            raise RuntimeError(f"{title} failed with {status}: {reply}")
        steps[title] = reply
        return reply

    step(
        "S1 challenge",
        "POST",
        "/intercept-session",
        {
            "session_id": session_id,
            "user_id": DEV_USER_ID,
            "rule_id": DEMO_RULE_ID,
            "app_identifier": "com.ss.android.ugc.aweme",
            "app_display_name": "抖音",
            "trigger": "quota_exceeded",
            "timestamp": now.isoformat(),
            "persona_key": "strict-father",
            "streak": 3,
            "override_count_today": 1,
        },
    )
    step(
        "S2-S4 reason",
        "POST",
        f"/intercept-session/{session_id}/reason",
        {"reason_text": "就是有点无聊，想刷一会儿放松一下"},
    )
    step(
        "appeal",
        "POST",
        f"/intercept-session/{session_id}/appeal",
        {"appeal_text": "其实是老板让我下午3点前看完竞品的新视频，要写进今天的报告"},
    )
    step("S5-S6 decision", "POST", f"/intercept-session/{session_id}/decision", {"user_decision": "override"})
    step("resume", "GET", f"/intercept-session/{session_id}")
    return steps
