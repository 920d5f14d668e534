"""Interception history written straight into Postgres, for weeks the dialog cannot reach today.

The dialog API stamps sessions with the server's clock; summaries are about past weeks, so
these helpers insert realistic rows with chosen local dates, offsets and outcomes.
"""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta
from typing import Any

CATEGORY_REASONS = {
    "work": "老板让我10分钟内回复客户的消息",
    "study": "明天考试，要看老师发的复习资料",
    "mental_break": "今天太累了，想放松一下",
    "emergency": "家里老人住院了，医院打电话来",
    "other": "就是想看看有什么好玩的东西",
}


def add_session(
    db: Any,
    user_id: str,
    *,
    local_start: datetime,
    offset_minutes: int = 480,
    persona: str = "strict-father",
    category: str | None = "work",
    verdict: str = "delay",
    decision: str | None = "comply",
    appeal: bool = False,
    response_seconds: float = 30.0,
) -> str:
    """One session that starts at `local_start` (the user's wall clock) and, with a decision,
    closes `response_seconds` later. `category=None` means no reason was ever given."""
    session_id = str(uuid.uuid4())
    created = (local_start - timedelta(minutes=offset_minutes)).replace(tzinfo=UTC)
    closed = created + timedelta(seconds=response_seconds) if decision else None
    turns = 0 if category is None else (2 if appeal else 1)
    with db.as_owner() as tx:
        tx.execute(
            """
            INSERT INTO public.intercept_sessions (id, user_id, rule_id, app_identifier, app_display_name, trigger,
              persona_key, persona_version, client_timestamp, utc_offset_minutes, local_date, state,
              evaluation_turns, final_verdict, emergency, user_decision, start_fingerprint, created_at, closed_at)
            VALUES (CAST(:id AS uuid), CAST(:user AS uuid), NULL, 'com.ss.android.ugc.aweme', '抖音', 'quota_exceeded',
              :persona, 1, CAST(:created AS timestamptz), :offset, CAST(:local_date AS date), :state, :turns,
              :verdict, :emergency, :decision, 'seeded', CAST(:created AS timestamptz), CAST(:closed AS timestamptz))
            """,
            id=session_id,
            user=user_id,
            persona=persona,
            created=created.isoformat(),
            offset=offset_minutes,
            local_date=local_start.date().isoformat(),
            state="closed" if decision else ("awaiting_decision" if turns else "awaiting_reason"),
            turns=turns,
            verdict=verdict if turns else None,
            emergency=category == "emergency",
            decision=decision,
            closed=closed.isoformat() if closed else None,
        )
        for turn_no in range(1, turns + 1):
            tx.execute(
                """
                INSERT INTO public.intercept_turns (session_id, user_id, turn_no, reason_text, reason_category,
                  ai_verdict, confidence, persona_response, appeal_used, emergency, recommended_action, delay_minutes,
                  justification, source, latency_ms, override_count_today, streak, text_fingerprint, user_decision)
                VALUES (CAST(:sid AS uuid), CAST(:user AS uuid), :turn_no, :text, :category, :verdict, 0.8, '好',
                  :appeal, false, 'comply', :delay, 'seeded', 'offline', 3, 0, 0, 'seeded', :decision)
                """,
                sid=session_id,
                user=user_id,
                turn_no=turn_no,
                text=CATEGORY_REASONS[category],
                category=category,
                verdict=verdict,
                appeal=turn_no == 2,
                delay=10 if verdict == "delay" else None,
                decision=decision if turn_no == turns else None,
            )
    return session_id


def at(day: date, hour: int, minute: int = 0) -> datetime:
    return datetime(day.year, day.month, day.day, hour, minute)


def summary_of(db: Any, user_id: str, week_start: date) -> dict[str, Any] | None:
    with db.as_owner() as tx:
        return tx.one(
            "SELECT * FROM public.weekly_summaries WHERE user_id = CAST(:u AS uuid) AND week_start = CAST(:w AS date)",
            u=user_id,
            w=week_start.isoformat(),
        )
