"""What the data-rights and retention tests share: the history route, the reasons they store,
and the owner's view of a user's rows and weekly summary."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from tests.support.history import summary_of
from weekly_summary.schemas import RunRequest
from weekly_summary.service import run_weekly
from weekly_summary.settings import WeeklySettings

HISTORY = "/intercept-session/me/history"
EMERGENCY_REASON = "楼下着火了，我要马上联系物业和消防"
LLM_JUSTIFICATION = "用户说“就是有点无聊”，没有具体需要"


def owner_rows(db: Any, table: str, user_id: str, order: str = "id") -> list[dict[str, Any]]:
    with db.as_owner() as tx:
        return tx.rows(
            f"SELECT * FROM public.{table} WHERE user_id = CAST(:u AS uuid) ORDER BY {order}", u=user_id
        )


def summarize(db: Any, user_id: str, week_start: date) -> dict[str, Any]:
    settings = WeeklySettings.from_env(PERSONA_RAILS_WEEKLY_LLM_INSIGHTS=False)
    run_weekly(db, settings, RunRequest(week=week_start.isoformat(), user_id=user_id), datetime.now(UTC))
    summary = summary_of(db, user_id, week_start)
    assert summary is not None
    return {key: value for key, value in summary.items() if key != "generated_at"}
