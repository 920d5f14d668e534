"""The page loop: keyset pages of users, each aggregated in Postgres, built, and written in one
statement, in a transaction of its own.

The main thread reads the page boundaries (a cheap keyset query) and hands each page to one of
`page_workers` threads, each on its own connection, so one page's Python work overlaps the next
page's aggregation. At most `page_workers` pages are in flight, so memory stays flat whatever
the size of the week. After a failure no new page starts; pages already in flight finish and
are kept, like every page committed before, and the first error is raised once they have.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from persona_rails.db import Database
from persona_rails.observability import logger
from weekly_summary import repository
from weekly_summary.engine.summary import MalformedAggregate, build_summary
from weekly_summary.engine.weeks import iso_week
from weekly_summary.insight_pool import InsightPool
from weekly_summary.personas import InsightPersonas
from weekly_summary.settings import WeeklySettings

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Scope:
    """Which users of which week a loop covers: user ids in (after, until], or one user."""

    week: date
    due_at: datetime | None
    after: str = repository.FIRST_USER
    until: str | None = None
    only_user: str | None = None

    @property
    def skip_existing(self) -> bool:
        # A scheduled run skips users already summarized; a backfill rewrites them.
        return self.due_at is not None


@dataclass(frozen=True)
class PageResult:
    users: int
    processed: int = 0
    skipped: int = 0
    llm: int = 0
    fallbacks: int = 0
    deadline_fallbacks: int = 0


@dataclass
class Tally:
    """What the pages of a run did, added up in the main thread as pages finish."""

    processed: int = 0
    skipped: int = 0
    failed: int = 0
    llm_insights: int = 0
    insight_fallbacks: int = 0
    deadline_fallbacks: int = 0

    def add(self, result: PageResult) -> None:
        self.processed += result.processed
        self.skipped += result.skipped
        self.llm_insights += result.llm
        self.insight_fallbacks += result.fallbacks
        self.deadline_fallbacks += result.deadline_fallbacks


def _page(
    db: Database,
    personas: InsightPersonas,
    insights: InsightPool,
    user_ids: list[str],
    week: date,
    *,
    grace_seconds: int,
) -> PageResult:
    with db.as_service() as tx:
        rows = repository.aggregates(tx, user_ids, week, grace_seconds)
    built: list[tuple[dict[str, Any], Any]] = []
    skipped = 0
    for row in rows:
        try:
            built.append(build_summary(row, personas))
        except MalformedAggregate as exc:
            skipped += 1
            # The id and the kind of problem only: never the user's text.
            logger.warning(
                "user skipped",
                extra={"user_id": str(row.get("user_id")), "week": iso_week(week), "problem": str(exc)},
            )
    outcomes = insights.write(built)
    summaries = []
    for (summary, _), outcome in zip(built, outcomes, strict=True):
        insight = outcome.insight
        summary.update(
            insight=insight.text, insight_persona_key=insight.persona_key, insight_source=insight.source
        )
        summaries.append(summary)
    with db.as_service() as tx:
        repository.upsert_summaries(tx, summaries)
    return PageResult(
        users=len(user_ids),
        processed=len(summaries),
        skipped=skipped,
        llm=sum(1 for outcome in outcomes if outcome.insight.source == "llm"),
        fallbacks=sum(1 for outcome in outcomes if outcome.fallback),
        deadline_fallbacks=sum(1 for outcome in outcomes if outcome.fallback == "deadline"),
    )


def run_pages(
    db: Database,
    settings: WeeklySettings,
    scope: Scope,
    *,
    personas: InsightPersonas,
    insights: InsightPool,
    tally: Tally,
    total: int,
    progress: Progress | None = None,
) -> None:
    in_flight: deque[tuple[int, Future[PageResult]]] = deque()
    done = 0
    error: Exception | None = None

    def settle_oldest() -> None:
        nonlocal done, error
        size, future = in_flight.popleft()
        try:
            result = future.result()
        except Exception as exc:  # noqa: BLE001 - kept, and raised once the pages in flight are done
            tally.failed += size
            error = error or exc
            return
        tally.add(result)
        done += result.users
        if progress:
            progress(iso_week(scope.week), done, total)

    def page_of(user_ids: list[str]) -> PageResult:
        return _page(
            db, personas, insights, user_ids, scope.week, grace_seconds=settings.abandon_grace_seconds
        )

    with ThreadPoolExecutor(settings.page_workers, thread_name_prefix="weekly-page") as pool:
        after = scope.after
        try:
            while error is None:
                with db.as_service() as tx:
                    page = repository.due_users(
                        tx,
                        scope.week,
                        after=after,
                        until=scope.until,
                        limit=settings.batch_size,
                        only_user=scope.only_user,
                        due_at=scope.due_at,
                        skip_existing=scope.skip_existing,
                    )
                if not page:
                    break
                user_ids = [str(row["user_id"]) for row in page]
                after = user_ids[-1]
                in_flight.append((len(user_ids), pool.submit(page_of, user_ids)))
                while len(in_flight) >= settings.page_workers or (in_flight and in_flight[0][1].done()):
                    settle_oldest()
        finally:
            # Whatever stopped the loop, the pages in flight finish and are counted.
            while in_flight:
                settle_oldest()
    if error is not None:
        raise error
