"""Short-hands for the v2 scenarios: clocks at a chosen local time, rules and settings written as
the app writes them, stored rows read as the owner, and a handler in a process of its own."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from persona_rails_dev.server import in_workers
from persona_rails_dev.template import functions
from persona_rails_dev.workers import FunctionPool, lambda_environment
from tests.support.api import ApiClient, Reply, trigger_payload
from tests.support.dialog import decide, reason
from tests.support.users import AppUser

Row = dict[str, Any]
SPEC_COUNTDOWN = 20
DEFAULT_GRACE_SECONDS = 600
# Urgent, and meant: the heuristics force allow with emergency true.
URGENT = "老人摔倒了，医院打电话来"
SCOLDING = ("借口", "别再")


def offset_at_local(hour: int, minute: int = 0) -> int:
    """A UTC offset (minutes, within -12:00..+14:00) at which the wall clock reads about hour:minute
    now: tests that must not straddle a local midnight (or must sit just before one) pick it."""
    now = datetime.now(UTC)
    off = (hour * 60 + minute - (now.hour * 60 + now.minute)) % 1440
    return off - 1440 if off > 840 else off


def stamp(offset_minutes: int, *, shift: timedelta = timedelta(0)) -> str:
    """Now (plus `shift`) as the phone would send it: RFC 3339 with the offset."""
    return (datetime.now(timezone(timedelta(minutes=offset_minutes))) + shift).isoformat()


# Mid-morning local time: an unlock window of a few hours never reaches midnight, and a test's
# week never changes under it.
MORNING = offset_at_local(10)


def when(text: str) -> datetime:
    return datetime.fromisoformat(text)


def payload(user: AppUser, rule: Row, **overrides: Any) -> dict[str, Any]:
    """A start at the user's mid-morning with a fresh client session id."""
    values: dict[str, Any] = {"session_id": str(uuid.uuid4()), "timestamp": stamp(MORNING), **overrides}
    return trigger_payload(user.id, rule, **values)


def start_reply(api: ApiClient, user: AppUser, rule: Row, **overrides: Any) -> Reply:
    return api.post("/intercept-session", user.token, payload(user, rule, **overrides))


def new_dialog(api: ApiClient, user: AppUser, rule: Row, **overrides: Any) -> dict[str, Any]:
    reply = start_reply(api, user, rule, **overrides)
    assert reply.status == 201, reply.body
    return dict(reply.body)


def set_rule(db: Any, user: AppUser, rule: Row, **columns: Any) -> Row:
    """Opt a rule in as the app does: an UPDATE through PostgREST, as `authenticated`."""
    assignments = ", ".join(f"{name} = :{name}" for name in columns)
    with db.transaction("authenticated", user.claims) as tx:
        row = tx.one(
            f"UPDATE public.rules SET {assignments} WHERE id = CAST(:rule_id AS uuid) RETURNING *",
            rule_id=str(rule["id"]),
            **columns,
        )
    assert row is not None, "the user's own rule"
    return row


def set_allowance(db: Any, user: AppUser, per_week: int) -> None:
    """The user's weekly emergency allowance, written as the app writes it (RLS applies)."""
    with db.transaction("authenticated", user.claims) as tx:
        tx.execute(
            "INSERT INTO public.intercept_user_settings (emergency_allowance_per_week) VALUES (:n)"
            " ON CONFLICT (user_id) DO UPDATE SET emergency_allowance_per_week = excluded.emergency_allowance_per_week,"
            " updated_at = now()",
            n=per_week,
        )


def session_row(db: Any, user: AppUser, session_id: str) -> Row:
    with db.as_owner() as tx:
        row = tx.one(
            "SELECT * FROM public.intercept_sessions WHERE user_id = CAST(:u AS uuid) AND id = CAST(:s AS uuid)",
            u=user.id,
            s=session_id,
        )
    assert row is not None, f"no session {session_id}"
    return row


def sessions_of(db: Any, user: AppUser) -> list[Row]:
    with db.as_owner() as tx:
        return tx.rows(
            "SELECT * FROM public.intercept_sessions WHERE user_id = CAST(:u AS uuid) ORDER BY created_at",
            u=user.id,
        )


def completed_events(db: Any, user: AppUser, session_id: str) -> list[Row]:
    with db.as_owner() as tx:
        return tx.rows(
            "SELECT * FROM public.analytics_events WHERE user_id = CAST(:u AS uuid)"
            " AND subject_type = 'intercept_session' AND subject_id = CAST(:s AS uuid)"
            " AND name = 'interception.dialog_completed'",
            u=user.id,
            s=session_id,
        )


def update_session(db: Any, user: AppUser, session_id: str, assignments: str, **params: Any) -> None:
    """Rewrite a stored session as the owner (a test travelling in time)."""
    with db.as_owner() as tx:
        changed = tx.execute(
            f"UPDATE public.intercept_sessions SET {assignments}"
            " WHERE user_id = CAST(:u AS uuid) AND id = CAST(:s AS uuid)",
            u=user.id,
            s=session_id,
            **params,
        )
    assert changed == 1


def end_window(db: Any, user: AppUser, session_id: str) -> None:
    """The session's unlock window or delay is over, as if its time had passed."""
    update_session(
        db,
        user,
        session_id,
        "unlocked_until = CASE WHEN unlocked_until IS NULL THEN NULL ELSE now() - interval '1 second' END,"
        " retry_after = CASE WHEN retry_after IS NULL THEN NULL ELSE now() - interval '1 second' END",
    )


def override(api: ApiClient, db: Any, user: AppUser, rule: Row, **start: Any) -> dict[str, Any]:
    """One override today, its unlock window then ended so the rule can be opened again."""
    sid = new_dialog(api, user, rule, **start)["session_id"]
    assert reason(api, user, sid, "就是想看看有什么好玩的东西").status == 200
    closed = decide(api, user, sid, "override")
    assert closed.status == 200, closed.body
    end_window(db, user, sid)
    return dict(closed.body)


def emergency(api: ApiClient, db: Any, user: AppUser, rule: Row, **decision: Any) -> dict[str, Any]:
    """One tap on the emergency button, its unlock window then ended."""
    sid = new_dialog(api, user, rule)["session_id"]
    closed = decide(api, user, sid, "emergency", **decision)
    assert closed.status == 200, closed.body
    end_window(db, user, sid)
    return dict(closed.body)


@contextmanager
def handler_in_own_process(function: str = "InterceptSessionFunction") -> Iterator[ApiClient]:
    """The function's handler in a worker process of its own (as a fresh Lambda instance): it
    shares nothing with this process but the database."""
    declared = functions()[function]
    pool = FunctionPool(
        declared,
        lambda_environment(
            declared, overrides={"POWERTOOLS_LOG_LEVEL": "ERROR", "POWERTOOLS_METRICS_DISABLED": "true"}
        ),
        max_instances=1,
    )
    try:
        yield ApiClient(in_workers([pool]))
    finally:
        pool.close()
