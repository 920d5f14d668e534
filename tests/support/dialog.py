"""Short-hands for driving a dialog through the handler and reading what it stored."""

from __future__ import annotations

import uuid
from typing import Any

from tests.support.api import ApiClient, Reply, trigger_payload
from tests.support.users import AppUser

BORED = "就是有点无聊，想刷一会儿放松一下"
WORK_APPEAL = "其实是老板让我下午3点前看完竞品的新视频，要写进今天的报告"
SPECIFIC_WORK = "老板让我10分钟内回复客户的消息，很急"
OTHER = "就是想看看有什么好玩的东西"


def start(api: ApiClient, user: AppUser, rule: dict[str, Any], **overrides: Any) -> str:
    payload = trigger_payload(user.id, rule, session_id=str(uuid.uuid4()), **overrides)
    reply = api.post("/intercept-session", user.token, payload)
    assert reply.status == 201, reply.body
    return str(reply.body["session_id"])


def reason(api: ApiClient, user: AppUser, sid: str, text: str = BORED) -> Reply:
    return api.post(f"/intercept-session/{sid}/reason", user.token, {"reason_text": text})


def appeal(api: ApiClient, user: AppUser, sid: str, text: str = WORK_APPEAL) -> Reply:
    return api.post(f"/intercept-session/{sid}/appeal", user.token, {"appeal_text": text})


def decide(api: ApiClient, user: AppUser, sid: str, decision: str = "comply", **extra: Any) -> Reply:
    return api.post(f"/intercept-session/{sid}/decision", user.token, {"user_decision": decision, **extra})


def row_counts(db: Any, user_id: str) -> dict[str, int]:
    """What is stored for a user, read as the table owner (no RLS) to see everything."""
    with db.as_owner() as tx:
        return {
            table: int(
                tx.one(
                    f"SELECT count(*) AS n FROM public.{table} WHERE user_id = CAST(:u AS uuid)", u=user_id
                )["n"]
            )
            for table in ("intercept_sessions", "intercept_turns", "analytics_events")
        }


def end_windows(db: Any, user_id: str) -> None:
    """The user's unlock windows and enforced delays are over, as if their time had passed: a
    test that opens a rule again right after an override, an allow or an accepted delay would
    otherwise get `{"state": "unlocked"}` or `{"state": "delayed"}` instead of a dialog."""
    with db.as_owner() as tx:
        tx.execute(
            "UPDATE public.intercept_sessions"
            " SET unlocked_until = CASE WHEN unlocked_until > now() THEN now() ELSE unlocked_until END,"
            " retry_after = CASE WHEN retry_after > now() THEN now() ELSE retry_after END"
            " WHERE user_id = CAST(:u AS uuid) AND (unlocked_until > now() OR retry_after > now())",
            u=user_id,
        )


def override_today(api: ApiClient, db: Any, user: AppUser, rule: dict[str, Any], times: int) -> None:
    """`times` overrides of the rule today, each unlock window then over, so the rule opens again."""
    for _ in range(times):
        sid = start(api, user, rule)
        assert reason(api, user, sid, OTHER).status == 200
        assert decide(api, user, sid, "override").status == 200
        end_windows(db, user.id)
