"""Run WeeklySummaryFunction's job locally, loaded from template.yaml exactly as Lambda loads it."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from persona_rails_dev.lambda_runtime import apply_environment, put_on_path
from persona_rails_dev.progress import ProgressLine
from persona_rails_dev.template import Function


def run_weekly_locally(
    function: Function, week: str | None = None, user_id: str | None = None, now: str | None = None
) -> dict[str, Any]:
    put_on_path(function)
    apply_environment(function)
    from persona_rails.db import get_database
    from persona_rails.settings import cached_settings
    from weekly_summary.personas import insight_persona_config
    from weekly_summary.schemas import RunRequest
    from weekly_summary.service import run_weekly
    from weekly_summary.settings import WeeklySettings

    request = RunRequest.model_validate({"week": week, "user_id": user_id, "scheduled_time": now})
    progress = ProgressLine()
    try:
        report = run_weekly(
            get_database(),
            cached_settings(WeeklySettings),
            request,
            datetime.now(UTC),
            progress,
            personas=insight_persona_config().value,
        )
    finally:
        progress.close()
    return report.as_dict()


def read_summaries(user_id: str) -> list[dict[str, Any]]:
    """What the mobile app sees: the user's rows through RLS, newest week first."""
    from persona_rails.db import get_database

    with get_database().transaction("authenticated", {"sub": user_id, "role": "authenticated"}) as tx:
        rows = tx.rows("SELECT * FROM public.weekly_summaries ORDER BY week_start DESC")
    # numeric columns arrive as Decimal; the app sees JSON numbers, so print numbers too.
    return [
        {key: float(value) if isinstance(value, Decimal) else value for key, value in row.items()}
        for row in rows
    ]
