"""The weekly run: the requested weeks, each either paged through here or fanned out.

Every page is committed on its own (weekly_summary.pages), so a failure part-way keeps every
finished user's summary, and a retry redoes only what is missing (scheduled runs skip users
already summarized; a backfill rewrites the same rows with the same values). A week with more
due users than one invocation can take is fanned out instead (weekly_summary.fanout): this run
sends its partitions and each partition runs the same page loop in an invocation of its own.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from persona_rails.db import Database
from persona_rails.observability import logger
from weekly_summary import repository
from weekly_summary.engine.weeks import candidate_weeks, iso_week
from weekly_summary.fanout import Send, partitions
from weekly_summary.insight_pool import InsightPool, Remaining
from weekly_summary.pages import Progress, Scope, Tally, run_pages
from weekly_summary.personas import InsightPersonas, insight_persona_config
from weekly_summary.schemas import PartitionRequest, RunRequest
from weekly_summary.settings import WeeklySettings

__all__ = ["Progress", "RunReport", "run_partition", "run_weekly"]


@dataclass
class RunReport:
    weeks: list[str] = field(default_factory=list)
    tally: Tally = field(default_factory=Tally)
    # Partition messages sent by this run (weeks it fanned out rather than paged through).
    partitions_sent: int = 0
    # The range this run covered when it was one partition of a fanned-out week.
    partition: str | None = None
    error: str | None = None
    duration_ms: int = 0

    @property
    def processed(self) -> int:
        return self.tally.processed

    @property
    def skipped(self) -> int:
        return self.tally.skipped

    @property
    def failed(self) -> int:
        return self.tally.failed

    def as_dict(self) -> dict[str, Any]:
        return {
            "weeks": self.weeks,
            "processed": self.tally.processed,
            "skipped": self.tally.skipped,
            "failed": self.tally.failed,
            "llm_insights": self.tally.llm_insights,
            "insight_fallbacks": self.tally.insight_fallbacks,
            "deadline_fallbacks": self.tally.deadline_fallbacks,
            "partitions_sent": self.partitions_sent,
            "partition": self.partition,
            "error": self.error,
            "duration_ms": self.duration_ms,
        }


def _fanned_out(
    db: Database, settings: WeeklySettings, scope: Scope, send: Send | None, report: RunReport
) -> bool:
    """Send the week's partitions if it has more due users than one invocation takes."""
    if send is None or scope.only_user is not None:
        return False
    size = settings.users_per_invocation
    with db.as_service() as tx:
        total, bounds = repository.due_partitions(
            tx, scope.week, due_at=scope.due_at, skip_existing=scope.skip_existing, size=size
        )
    if total <= size:
        return False
    requests = partitions(scope.week, scope.due_at, bounds)
    send(requests)
    report.partitions_sent += len(requests)
    logger.info(
        "weekly run fanned out",
        extra={"week": iso_week(scope.week), "due_users": total, "partitions": len(requests)},
    )
    return True


def _execute(
    db: Database,
    settings: WeeklySettings,
    scopes: list[Scope],
    report: RunReport,
    *,
    personas: InsightPersonas,
    remaining: Remaining | None,
    progress: Progress | None,
    send: Send | None,
) -> RunReport:
    started = time.perf_counter()
    insights = InsightPool(settings, personas, remaining)
    try:
        for scope in scopes:
            if _fanned_out(db, settings, scope, send, report):
                continue
            with db.as_service() as tx:
                total = repository.count_week_users(tx, scope.week, scope.only_user)
            run_pages(
                db,
                settings,
                scope,
                personas=personas,
                insights=insights,
                tally=report.tally,
                total=total,
                progress=progress,
            )
    except Exception as exc:
        report.error = type(exc).__name__
        raise
    finally:
        insights.close()
        report.duration_ms = int((time.perf_counter() - started) * 1000)
        logger.info("weekly summaries finished", extra=report.as_dict())
    return report


def run_weekly(
    db: Database,
    settings: WeeklySettings,
    request: RunRequest,
    now: datetime,
    progress: Progress | None = None,
    *,
    personas: InsightPersonas | None = None,
    remaining: Remaining | None = None,
    send: Send | None = None,
) -> RunReport:
    """Summaries for the requested week (backfill), or for every user whose week just ended.
    `personas` defaults to the function's own config file; `remaining` tells the seconds left
    in the invocation; `send`, when given, lets a week too large for one invocation fan out."""
    backfill = request.week_start
    weeks = [backfill] if backfill else candidate_weeks(request.tick(now))
    due_at = None if backfill else request.tick(now)
    only_user = str(request.user_id) if request.user_id else None
    report = RunReport(weeks=[iso_week(week) for week in weeks])
    scopes = [Scope(week=week, due_at=due_at, only_user=only_user) for week in weeks]
    return _execute(
        db,
        settings,
        scopes,
        report,
        personas=personas or insight_persona_config().value,
        remaining=remaining,
        progress=progress,
        send=send,
    )


def run_partition(
    db: Database,
    settings: WeeklySettings,
    partition: PartitionRequest,
    progress: Progress | None = None,
    *,
    personas: InsightPersonas | None = None,
    remaining: Remaining | None = None,
) -> RunReport:
    """One partition of a fanned-out week: the same page loop over its user-id range."""
    scope = Scope(
        week=partition.week_start,
        due_at=partition.due_at,
        after=str(partition.after),
        until=str(partition.until) if partition.until else None,
    )
    report = RunReport(weeks=[partition.week], partition=f"{partition.index + 1}/{partition.count}")
    return _execute(
        db,
        settings,
        [scope],
        report,
        personas=personas or insight_persona_config().value,
        remaining=remaining,
        progress=progress,
        send=None,
    )
