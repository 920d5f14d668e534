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


def _trigger(session_id: str, persona_key: str) -> dict[str, Any]:
    """The trigger payload the Android watcher sends when 抖音 opens past its quota (UTC+8)."""
    return {
        "session_id": session_id,
        "user_id": DEV_USER_ID,
        "rule_id": DEMO_RULE_ID,
        "app_identifier": "com.ss.android.ugc.aweme",
        "app_display_name": "抖音",
        "trigger": "quota_exceeded",
        "timestamp": datetime.now(timezone(timedelta(hours=8))).isoformat(),
        "persona_key": persona_key,
    }


def run_demo(base_url: str, print_fn: Any = print) -> dict[str, Any]:
    token = mint_token(DEV_USER_ID)
    session_id = str(uuid.uuid4())
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
        {**_trigger(session_id, "strict-father"), "streak": 3, "override_count_today": 1},
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


# Reasons, personas and choices that make a realistic week: a mix of excuse categories.
_VARIED = [
    ("strict-father", "老板让我10分钟内回复客户的消息，很急", "override"),
    ("rational-mentor", "就是有点无聊，想刷一会儿放松一下", "comply"),
    ("humor-coach", "明天考试，要在群里看老师发的复习资料", "override"),
    ("strict-father", "今天太累了，压力好大，想放松一下", "comply"),
    ("humor-coach", "就是想看看有什么好玩的东西", "comply"),
    ("rational-mentor", "need to reply to my boss about the client meeting", "override"),
    ("strict-father", "有点无聊，想看看朋友圈有什么新鲜事", "comply"),
]


def run_varied_dialogs(base_url: str, count: int, print_fn: Any = print) -> list[dict[str, Any]]:
    token = mint_token(DEV_USER_ID)
    results = []
    for index in range(count):
        persona, reason, decision = _VARIED[index % len(_VARIED)]
        session_id = str(uuid.uuid4())
        status, started = call(base_url, "POST", "/intercept-session", token, _trigger(session_id, persona))
        if status >= 400:
            raise RuntimeError(f"dialog {index + 1} could not start: {started}")
        _, turn = call(
            base_url, "POST", f"/intercept-session/{session_id}/reason", token, {"reason_text": reason}
        )
        body: dict[str, Any] = {"user_decision": decision}
        if decision == "comply" and turn.get("ai_verdict") == "delay":
            body["accepted_delay"] = True
        status, closed = call(base_url, "POST", f"/intercept-session/{session_id}/decision", token, body)
        if status >= 400:
            raise RuntimeError(f"dialog {index + 1} failed: {closed}")
        category, verdict = turn.get("reason_category"), turn.get("ai_verdict")
        print_fn(f"dialog {index + 1}: {persona:16} {category:13} {verdict:6} -> {decision}")
        results.append(closed)
    return results
