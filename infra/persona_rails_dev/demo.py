"""Interception dialogs against the local API, printed step by step.

`run_demo`: a whole dialog (challenge, reason, appeal, override, resume), then what v2 adds on
purpose: opening the app again inside the override's unlock window answers `unlocked`, and
opening another app before an accepted delay ends answers `delayed` in the persona's voice.

Unlock windows and delays are computed by the server from stored sessions and its own clock, so
a demo run again a minute later would meet the windows of the last run. On the local stack the
demo stands in for the waiting: before it opens a rule, it ends the development user's running
windows and delays on that rule in the local database (DATABASE_URL, else the embedded one), as
if their time had passed. Nothing else is touched; the dialogs themselves go over HTTP only.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from persona_rails_dev.local_env import DEV_USER_ID, mint_token


@dataclass(frozen=True)
class SeededRule:
    """A rule of supabase/seed.sql's development user."""

    id: str
    app_identifier: str
    app_display_name: str


DOUYIN = SeededRule("11111111-1111-4111-8111-111111111111", "com.ss.android.ugc.aweme", "抖音")
WECHAT = SeededRule("22222222-2222-4222-8222-222222222222", "com.tencent.mm", "微信")
DEMO_RULE_ID = DOUYIN.id
# Offline, a tired "I need a break" is a mental break, and a mental break gets a delay.
DELAY_REASON = "今天太累了，压力好大，想放松一下"


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


def _trigger(session_id: str, persona_key: str, rule: SeededRule = DOUYIN) -> dict[str, Any]:
    """The trigger payload the Android watcher sends when the app opens past its quota (UTC+8)."""
    return {
        "session_id": session_id,
        "user_id": DEV_USER_ID,
        "rule_id": rule.id,
        "app_identifier": rule.app_identifier,
        "app_display_name": rule.app_display_name,
        "trigger": "quota_exceeded",
        "timestamp": datetime.now(timezone(timedelta(hours=8))).isoformat(),
        "persona_key": persona_key,
        "streak": 3,
        "override_count_today": 1,
    }


def end_windows(*rules: SeededRule) -> None:
    """The development user's unlock windows and delays on these rules are over, as if their
    time had passed: written as the owner of the local database, which the local stack serves."""
    from persona_rails.db import Database
    from persona_rails_dev import local_env

    database = Database(local_env.prepare(seed=False))
    try:
        with database.as_owner() as tx:
            tx.execute(
                "UPDATE public.intercept_sessions"
                " SET unlocked_until = CASE WHEN unlocked_until > now() THEN now() ELSE unlocked_until END,"
                " retry_after = CASE WHEN retry_after > now() THEN now() ELSE retry_after END"
                " WHERE user_id = CAST(:user_id AS uuid) AND rule_id = ANY(CAST(:rules AS uuid[]))"
                " AND (unlocked_until > now() OR retry_after > now())",
                user_id=DEV_USER_ID,
                rules="{" + ",".join(rule.id for rule in rules) + "}",
            )
    finally:
        database.close()


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

    def expect_state(title: str, reply: dict[str, Any], state: str) -> None:
        if reply.get("state") != state:
            raise RuntimeError(f"{title}: expected state {state!r}, got {reply}")

    end_windows(DOUYIN, WECHAT)
    started = step("S1 challenge", "POST", "/intercept-session", _trigger(session_id, "strict-father"))
    expect_state("S1 challenge", started, "awaiting_reason")
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

    # The override unlocked 抖音 for the rule's window: opening it again starts no dialog.
    print_fn("\n--- 抖音 again, inside the override's unlock window: no dialog")
    again = step("unlocked", "POST", "/intercept-session", _trigger(str(uuid.uuid4()), "strict-father"))
    expect_state("unlocked", again, "unlocked")

    # 微信: a mental break gets a delay; accepting it means no dialog until retry_after.
    print_fn("\n--- 微信: accept a delay, then open it again too early")
    delayed_id = str(uuid.uuid4())
    step("delay challenge", "POST", "/intercept-session", _trigger(delayed_id, "humor-coach", WECHAT))
    turn = step(
        "delay reason", "POST", f"/intercept-session/{delayed_id}/reason", {"reason_text": DELAY_REASON}
    )
    if turn.get("ai_verdict") != "delay":
        # With an LLM configured the verdict is the model's: there is then no delay to accept.
        print_fn(f"(the verdict was {turn.get('ai_verdict')}, not delay: nothing to accept, no wait to show)")
        step(
            "delay decision", "POST", f"/intercept-session/{delayed_id}/decision", {"user_decision": "comply"}
        )
        return steps
    step(
        "delay decision",
        "POST",
        f"/intercept-session/{delayed_id}/decision",
        {"user_decision": "comply", "accepted_delay": True},
    )
    early = step("delayed", "POST", "/intercept-session", _trigger(str(uuid.uuid4()), "humor-coach", WECHAT))
    expect_state("delayed", early, "delayed")
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
    """`count` dialogs on 抖音, one after the other, as if spread over the day: each one's unlock
    window or delay is ended before the next opens the app (see the module's docstring)."""
    token = mint_token(DEV_USER_ID)
    results = []
    for index in range(count):
        persona, reason, decision = _VARIED[index % len(_VARIED)]
        session_id = str(uuid.uuid4())
        end_windows(DOUYIN)
        status, started = call(base_url, "POST", "/intercept-session", token, _trigger(session_id, persona))
        if status >= 400 or started.get("state") != "awaiting_reason":
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
