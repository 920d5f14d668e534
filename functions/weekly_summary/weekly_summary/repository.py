"""SQL for the weekly run. Aggregation happens in Postgres; Python only sees one row per user."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from typing import Any

from persona_rails.db import Tx

Row = dict[str, Any]

_DUE_USERS = """
SELECT s.user_id::text AS user_id
FROM public.intercept_sessions s
WHERE s.local_date >= CAST(:week_start AS date) AND s.local_date < CAST(:week_start AS date) + 7
  AND s.user_id > CAST(:after AS uuid)
  AND (CAST(:until AS uuid) IS NULL OR s.user_id <= CAST(:until AS uuid))
  AND (CAST(:only_user AS uuid) IS NULL OR s.user_id = CAST(:only_user AS uuid))
  AND (NOT :skip_existing OR NOT EXISTS (
    -- Only a summary written after the week was over for the user counts as done: one written
    -- early (a backfill during the week) is redone.
    SELECT 1 FROM public.weekly_summaries w
    WHERE w.user_id = s.user_id AND w.week_start = CAST(:week_start AS date)
      AND w.generated_at >= ((CAST(:week_start AS date) + interval '7 days 6 hours')
                             - make_interval(mins => w.utc_offset_minutes)) AT TIME ZONE 'UTC'))
GROUP BY s.user_id
HAVING CAST(:now AS timestamp) IS NULL
    OR CAST(:now AS timestamp)
       + make_interval(mins => (array_agg(s.utc_offset_minutes ORDER BY s.created_at DESC))[1])
       >= CAST(:week_start AS date) + interval '7 days 6 hours'
ORDER BY s.user_id
LIMIT CAST(:limit AS integer)
"""

FIRST_USER = "00000000-0000-0000-0000-000000000000"


def _utc_naive(moment: datetime | None) -> str | None:
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat() if moment else None


def due_users(
    tx: Tx,
    week_start: date,
    *,
    after: str,
    until: str | None = None,
    limit: int,
    only_user: str | None,
    due_at: datetime | None,
    skip_existing: bool,
) -> list[Row]:
    """The next page of users with sessions in the week (keyset on user_id), up to `until`
    (inclusive) when the run is one partition of a fanned-out week.

    With `due_at`, only users whose local clock (at their latest offset) has passed Monday 06:00
    after the week; with `skip_existing`, only users without a summary written since then.
    """
    return tx.rows(
        _DUE_USERS,
        week_start=week_start.isoformat(),
        after=after,
        until=until,
        limit=limit,
        only_user=only_user,
        now=_utc_naive(due_at),
        skip_existing=skip_existing,
    )


def count_week_users(tx: Tx, week_start: date, only_user: str | None) -> int:
    row = tx.one(
        """
        SELECT count(DISTINCT user_id) AS n FROM public.intercept_sessions
        WHERE local_date >= CAST(:week_start AS date) AND local_date < CAST(:week_start AS date) + 7
          AND (CAST(:only_user AS uuid) IS NULL OR user_id = CAST(:only_user AS uuid))
        """,
        week_start=week_start.isoformat(),
        only_user=only_user,
    )
    return int(row["n"]) if row else 0


def aggregates(tx: Tx, user_ids: list[str], week_start: date, grace_seconds: int) -> list[Row]:
    """One row per user with sessions in the week; a dialog open past its countdown and
    `grace_seconds` counts as abandoned, as the interception's housekeeping will close it. The
    page travels as one JSON document: decoding it is a single json.loads, where column-by-column
    decoding cost as much as the query."""
    row = tx.one(
        "SELECT json_agg(a ORDER BY a.user_id) AS rows FROM public.weekly_aggregates("
        "CAST(:users AS uuid[]), CAST(:weeks AS date[]), CAST(:grace AS integer)) a",
        users="{" + ",".join(user_ids) + "}",
        weeks="{" + ",".join([week_start.isoformat()] * len(user_ids)) + "}",
        grace=grace_seconds,
    )
    rows = row["rows"] if row else None
    return list(rows) if rows else []


def due_partitions(
    tx: Tx, week_start: date, *, due_at: datetime | None, skip_existing: bool, size: int
) -> tuple[int, list[str]]:
    """How many users `due_users` would page through for the whole week, and every `size`-th of
    their ids in order: the inclusive upper bounds of partitions of `size` users (the last
    partition runs to the end, so it needs no bound)."""
    row = tx.one(
        f"""
        WITH due AS ({_DUE_USERS})
        SELECT count(*) AS n,
               array_agg(user_id ORDER BY rn) FILTER (WHERE rn % :size = 0) AS bounds
        FROM (SELECT user_id, row_number() OVER (ORDER BY CAST(user_id AS uuid)) AS rn FROM due) numbered
        """,
        week_start=week_start.isoformat(),
        after=FIRST_USER,
        until=None,
        limit=None,
        only_user=None,
        now=_utc_naive(due_at),
        skip_existing=skip_existing,
        size=size,
    )
    total = int(row["n"]) if row else 0
    bounds = [str(user_id) for user_id in (row["bounds"] if row and row["bounds"] else [])]
    if bounds and total % size == 0:
        bounds.pop()  # the last user closes the last partition already
    return total, bounds


_COLUMNS = (
    "user_id uuid, week_start date, iso_week text, utc_offset_minutes smallint, sessions integer, "
    "unfinished_sessions integer, category_counts jsonb, top_category text, verdict_counts jsonb, "
    "overrides integer, emergencies integer, abandoned_sessions integer, emergency_unlocks integer, "
    "emergency_excess integer, appeals integer, appeal_rate numeric, compliance_rate numeric, "
    "persona_compliance jsonb, response_latency_p50_ms integer, response_latency_p90_ms integer, "
    "trend jsonb, insight text, insight_persona_key text, insight_source text"
)
_NAMES = [column.split()[0] for column in _COLUMNS.split(", ")]


def upsert_summaries(tx: Tx, summaries: list[Row]) -> int:
    """Write a batch in one statement; a re-run replaces the week's row, never adds one."""
    if not summaries:
        return 0
    updates = ", ".join(
        f"{name} = EXCLUDED.{name}" for name in _NAMES if name not in {"user_id", "week_start"}
    )
    return tx.execute(
        f"""
        INSERT INTO public.weekly_summaries ({", ".join(_NAMES)}, generated_at)
        SELECT {", ".join(_NAMES)}, now() FROM jsonb_to_recordset(CAST(:rows AS jsonb)) AS r({_COLUMNS})
        ON CONFLICT (user_id, week_start) DO UPDATE SET {updates}, generated_at = now()
        """,
        rows=json.dumps(summaries, ensure_ascii=False),
    )
