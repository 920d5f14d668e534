"""SQL of the data-rights routes. Every statement runs as the caller: RLS scopes it to their rows.

An export page is one statement, so its sessions, turns, events and records come from one
snapshot, and Postgres builds the JSON. A deletion is one transaction sent in one round trip:
it locks the user's clock row and sessions first, so a start or a decision in flight finishes
(and its rows are deleted too) or waits for the deletion (and starts a new history).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

Row = dict[str, Any]
Statement = tuple[str, Row]

FUNCTION_NAME = "InterceptSessionFunction"
SESSION_SUBJECT = "intercept_session"
TURN_SUBJECT = "intercept_turn"

_EXPORT_PAGE = """
WITH page AS (
    SELECT s.* FROM public.intercept_sessions s
    WHERE s.user_id = (SELECT auth.uid())
      AND (CAST(:after_created_at AS timestamptz) IS NULL
           OR (s.created_at >= CAST(:after_created_at AS timestamptz)
               AND (s.created_at, s.id) > (CAST(:after_created_at AS timestamptz), CAST(:after_id AS uuid))))
    ORDER BY s.created_at, s.id
    LIMIT :limit + 1
), shown AS (
    SELECT * FROM page ORDER BY created_at, id LIMIT :limit
), turns AS (
    SELECT t.* FROM public.intercept_turns t JOIN shown s ON t.user_id = s.user_id AND t.session_id = s.id
), subjects AS (
    SELECT :session_subject AS subject_type, s.id FROM shown s
    UNION ALL
    SELECT :turn_subject, t.id FROM turns t
), last AS (
    SELECT created_at, id FROM shown ORDER BY created_at DESC, id DESC LIMIT 1
)
SELECT
    clock_timestamp() AS exported_at,
    (SELECT count(*) FROM page) > :limit AS has_more,
    (SELECT created_at FROM last) AS last_created_at,
    (SELECT id FROM last) AS last_id,
    -- json, not jsonb: every row keeps its table's column order.
    coalesce((
        SELECT json_agg(x ORDER BY x.created_at, x.id) FROM (
            SELECT s.*, coalesce((
                SELECT json_agg(t ORDER BY t.turn_no) FROM turns t WHERE t.session_id = s.id
            ), '[]'::json) AS turns
            FROM shown s) x), '[]'::json) AS sessions,
    coalesce((
        SELECT json_agg(e ORDER BY e.occurred_at, e.id)
        FROM public.analytics_events e JOIN shown s ON e.subject_id = s.id
        WHERE e.user_id = (SELECT auth.uid()) AND e.subject_type = :session_subject), '[]'::json) AS events,
    coalesce((
        SELECT json_agg(r ORDER BY r.created_at, r.id)
        FROM public.decision_records r
        JOIN subjects j ON r.subject_type = j.subject_type AND r.subject_id = j.id
        WHERE r.user_id = (SELECT auth.uid()) AND r.function_name = :function_name), '[]'::json)
      AS decision_records,
    -- What is not per session comes once, with the first page.
    CASE WHEN CAST(:after_created_at AS timestamptz) IS NULL THEN coalesce((
        SELECT json_agg(w ORDER BY w.week_start) FROM public.weekly_summaries w
        WHERE w.user_id = (SELECT auth.uid())), '[]'::json) END AS weekly_summaries,
    CASE WHEN CAST(:after_created_at AS timestamptz) IS NULL THEN coalesce((
        SELECT json_agg(r ORDER BY r.created_at, r.id) FROM public.rules r
        WHERE r.user_id = (SELECT auth.uid())), '[]'::json) END AS rules,
    CASE WHEN CAST(:after_created_at AS timestamptz) IS NULL THEN (
        SELECT to_json(u) FROM public.intercept_user_settings u WHERE u.user_id = (SELECT auth.uid())) END
      AS settings,
    CASE WHEN CAST(:after_created_at AS timestamptz) IS NULL THEN (
        SELECT to_json(c) FROM public.intercept_user_clock c WHERE c.user_id = (SELECT auth.uid())) END
      AS clock
"""


def export_page(after: tuple[datetime, str] | None, limit: int) -> Statement:
    """Up to `limit` sessions after the cursor (oldest first) with their turns, events and
    decision records; with the first page, the user's summaries, rules, settings and clock."""
    return (
        _EXPORT_PAGE,
        {
            "after_created_at": after[0].isoformat() if after else None,
            "after_id": after[1] if after else None,
            "limit": limit,
            "session_subject": SESSION_SUBJECT,
            "turn_subject": TURN_SUBJECT,
            "function_name": FUNCTION_NAME,
        },
    )


# Locks first: the clock row is what a start and an emergency decision take first (see
# intercept_observe_offset), the sessions are what a turn and a decision update.
_LOCK_CLOCK = "SELECT 1 FROM public.intercept_user_clock WHERE user_id = (SELECT auth.uid()) FOR UPDATE"
_LOCK_SESSIONS = """
SELECT count(*) AS n FROM (
    SELECT 1 FROM public.intercept_sessions WHERE user_id = (SELECT auth.uid()) FOR UPDATE
) locked
"""

# (what the answer calls it, the DELETE). Children before their parents, so every count is
# what this statement itself removed, never a cascade's.
DELETIONS: tuple[tuple[str, str], ...] = (
    ("turns", "DELETE FROM public.intercept_turns WHERE user_id = (SELECT auth.uid())"),
    (
        "events",
        "DELETE FROM public.analytics_events"
        " WHERE user_id = (SELECT auth.uid()) AND subject_type = :session_subject",
    ),
    (
        "decision_records",
        "DELETE FROM public.decision_records"
        " WHERE user_id = (SELECT auth.uid()) AND function_name = :function_name",
    ),
    ("sessions", "DELETE FROM public.intercept_sessions WHERE user_id = (SELECT auth.uid())"),
    ("weekly_summaries", "DELETE FROM public.weekly_summaries WHERE user_id = (SELECT auth.uid())"),
    ("settings", "DELETE FROM public.intercept_user_settings WHERE user_id = (SELECT auth.uid())"),
    ("clock", "DELETE FROM public.intercept_user_clock WHERE user_id = (SELECT auth.uid())"),
)


def delete_history() -> list[Statement]:
    """The locks, then one `SELECT count(*)` over each DELETE's RETURNING, in DELETIONS' order."""
    params = {"session_subject": SESSION_SUBJECT, "function_name": FUNCTION_NAME}
    statements: list[Statement] = [(_LOCK_CLOCK, {}), (_LOCK_SESSIONS, {})]
    for _, sql in DELETIONS:
        used = {name: value for name, value in params.items() if f":{name}" in sql}
        statements.append((f"WITH gone AS ({sql} RETURNING 1) SELECT count(*) AS n FROM gone", used))
    return statements
