"""The weekly run: page through users, aggregate each page in Postgres, write it in one statement.

Every page is committed on its own, so a failure part-way keeps every finished user's summary,
and a retry redoes only what is missing (scheduled runs skip users already summarized; a
backfill rewrites the same rows with the same values).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from persona_rails.db import Database
from persona_rails.observability import logger
from weekly_summary import repository
from weekly_summary.engine.summary import MalformedAggregate, build_summary
from weekly_summary.engine.weeks import candidate_weeks, iso_week
from weekly_summary.insight import llm_insight
from weekly_summary.personas import InsightPersonas, insight_persona_config
from weekly_summary.schemas import RunRequest
from weekly_summary.settings import WeeklySettings

Progress = Callable[[str, int, int], None]


@dataclass
class RunReport:
    weeks: list[str] = field(default_factory=list)
    processed: int = 0
    skipped: int = 0
    failed: int = 0
    error: str | None = None
    duration_ms: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "weeks": self.weeks,
            "processed": self.processed,
            "skipped": self.skipped,
            "failed": self.failed,
            "error": self.error,
            "duration_ms": self.duration_ms,
        }


def _summaries(
    settings: WeeklySettings,
    personas: InsightPersonas,
    rows: list[dict[str, Any]],
    week: date,
    report: RunReport,
) -> list[dict[str, Any]]:
    summaries = []
    for row in rows:
        try:
            summary, insight = build_summary(row, personas)
        except MalformedAggregate as exc:
            report.skipped += 1
            # The id and the kind of problem only: never the user's text.
            logger.warning(
                "user skipped",
                extra={"user_id": str(row.get("user_id")), "week": iso_week(week), "problem": str(exc)},
            )
            continue
        if settings.llm_insights and settings.configured:
            insight = llm_insight(settings, personas.get(insight.persona_key), summary, insight)
        summary.update(
            insight=insight.text, insight_persona_key=insight.persona_key, insight_source=insight.source
        )
        summaries.append(summary)
    return summaries


def _run_week(
    db: Database,
    settings: WeeklySettings,
    request: RunRequest,
    week: date,
    *,
    personas: InsightPersonas,
    due_at: datetime | None,
    report: RunReport,
    progress: Progress | None,
) -> None:
    only_user = str(request.user_id) if request.user_id else None
    with db.as_service() as tx:
        total = repository.count_week_users(tx, week, only_user)
    done, after = 0, repository.FIRST_USER
    while True:
        with db.as_service() as tx:
            page = repository.due_users(
                tx,
                week,
                after=after,
                limit=settings.batch_size,
                only_user=only_user,
                due_at=due_at,
                skip_existing=due_at is not None,
            )
            if not page:
                return
            user_ids = [str(row["user_id"]) for row in page]
            rows = repository.aggregates(tx, user_ids, week)
        try:
            summaries = _summaries(settings, personas, rows, week, report)
            with db.as_service() as tx:
                repository.upsert_summaries(tx, summaries)
        except Exception:
            report.failed += len(user_ids)
            raise
        report.processed += len(summaries)
        done += len(page)
        after = user_ids[-1]
        if progress:
            progress(iso_week(week), done, total)


def run_weekly(
    db: Database,
    settings: WeeklySettings,
    request: RunRequest,
    now: datetime,
    progress: Progress | None = None,
    *,
    personas: InsightPersonas | None = None,
) -> RunReport:
    """Summaries for the requested week (backfill), or for every user whose week just ended.
    `personas` defaults to the function's own config file."""
    personas = personas or insight_persona_config().value
    started = time.perf_counter()
    report = RunReport()
    backfill = request.week_start
    weeks = [backfill] if backfill else candidate_weeks(request.tick(now))
    due_at = None if backfill else request.tick(now)
    report.weeks = [iso_week(week) for week in weeks]
    try:
        for week in weeks:
            _run_week(
                db,
                settings,
                request,
                week,
                personas=personas,
                due_at=due_at,
                report=report,
                progress=progress,
            )
    except Exception as exc:
        report.error = type(exc).__name__
        raise
    finally:
        report.duration_ms = int((time.perf_counter() - started) * 1000)
        logger.info("weekly summaries finished", extra=report.as_dict())
    return report
