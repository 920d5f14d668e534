"""SQL for the interception tables. Every statement runs inside a caller's transaction (RLS applies)."""

from __future__ import annotations

import json
from typing import Any

from persona_rails.db import Tx

Row = dict[str, Any]


def get_rule(tx: Tx, rule_id: str) -> Row | None:
    return tx.one(
        "SELECT id, app_identifier, app_display_name, summary, next_action, remaining_minutes, delay_minutes"
        " FROM public.rules WHERE id = CAST(:id AS uuid)",
        id=rule_id,
    )


def insert_session(tx: Tx, values: Row) -> Row | None:
    """Insert unless the id exists; returns None on conflict (the caller decides if it is a retry)."""
    return tx.one(
        """
        INSERT INTO public.intercept_sessions (
            id, user_id, rule_id, app_identifier, app_display_name, trigger, persona_key, persona_version,
            client_timestamp, utc_offset_minutes, local_date, client_streak, client_override_count_today,
            start_fingerprint)
        VALUES (
            CAST(:id AS uuid), (SELECT auth.uid()), CAST(:rule_id AS uuid), :app_identifier,
            :app_display_name, :trigger, :persona_key, :persona_version,
            CAST(:client_timestamp AS timestamptz),
            :utc_offset_minutes, CAST(:local_date AS date), :client_streak, :client_override_count_today,
            :start_fingerprint)
        ON CONFLICT (id) DO NOTHING
        RETURNING *
        """,
        **values,
    )


_LOCKS = {None: "", "share": " FOR SHARE", "update": " FOR UPDATE"}


def get_session(tx: Tx, session_id: str, *, lock: str | None = None) -> Row | None:
    """Use `lock="share"` before reading the session's turns: a concurrent turn commits its row
    and the session's new state together, and the lock keeps both reads on one side of it."""
    return tx.one(
        f"SELECT * FROM public.intercept_sessions WHERE id = CAST(:id AS uuid){_LOCKS[lock]}", id=session_id
    )


def day_stats(tx: Tx, utc_offset_minutes: int) -> tuple[int, int]:
    """Today's overrides and the streak, from the user's own history (see the migration)."""
    row = tx.one(
        "SELECT * FROM public.intercept_day_stats(CAST(:offset AS integer))", offset=utc_offset_minutes
    )
    assert row is not None
    return int(row["override_count_today"]), int(row["streak"])


def get_turns(tx: Tx, session_id: str) -> list[Row]:
    return tx.rows(
        "SELECT * FROM public.intercept_turns WHERE session_id = CAST(:id AS uuid) ORDER BY turn_no",
        id=session_id,
    )


def insert_turn(tx: Tx, values: Row) -> Row | None:
    """Insert the turn unless its slot is taken; None means another request won the slot."""
    return tx.one(
        """
        INSERT INTO public.intercept_turns (
            session_id, user_id, turn_no, reason_text, reason_category, ai_verdict, confidence,
            persona_response, appeal_used, emergency, recommended_action, delay_minutes, justification,
            source, fallback_reason, model, latency_ms, override_count_today, streak, text_fingerprint)
        VALUES (
            CAST(:session_id AS uuid), (SELECT auth.uid()), :turn_no, :reason_text, :reason_category,
            :ai_verdict, :confidence, :persona_response, :appeal_used, :emergency, :recommended_action,
            :delay_minutes, :justification, :source, :fallback_reason, :model, :latency_ms,
            :override_count_today, :streak, :text_fingerprint)
        ON CONFLICT (session_id, turn_no) DO NOTHING
        RETURNING *
        """,
        **values,
    )


def advance_after_turn(tx: Tx, session_id: str, turn_no: int, verdict: str, emergency: bool) -> bool:
    """Move the session past turn `turn_no` if nothing else moved it first."""
    updated = tx.execute(
        """
        UPDATE public.intercept_sessions
        SET state = 'awaiting_decision', evaluation_turns = :turn_no, final_verdict = :verdict,
            emergency = emergency OR :emergency
        WHERE id = CAST(:id AS uuid) AND state <> 'closed' AND evaluation_turns = :turn_no - 1
        """,
        id=session_id,
        turn_no=turn_no,
        verdict=verdict,
        emergency=emergency,
    )
    return updated == 1


def close_session(tx: Tx, session_id: str, values: Row) -> Row | None:
    return tx.one(
        """
        UPDATE public.intercept_sessions
        SET state = 'closed', user_decision = :user_decision, accepted_delay = :accepted_delay,
            auto_dismissed = :auto_dismissed, emergency_reason = :emergency_reason,
            emergency = emergency OR :user_decision = 'emergency',
            decision_fingerprint = :decision_fingerprint, closed_at = now()
        WHERE id = CAST(:id AS uuid) AND state <> 'closed'
        RETURNING *
        """,
        id=session_id,
        **values,
    )


def record_decision_on_turns(tx: Tx, session_id: str, decision: str) -> None:
    """Every turn of the dialog carries the decision that ended it (spec: Data Captured Per Turn)."""
    tx.execute(
        "UPDATE public.intercept_turns SET user_decision = :decision WHERE session_id = CAST(:id AS uuid)",
        id=session_id,
        decision=decision,
    )


def insert_event(tx: Tx, session_id: str, name: str, properties: Row) -> None:
    tx.execute(
        """
        INSERT INTO public.analytics_events (user_id, session_id, name, properties)
        VALUES ((SELECT auth.uid()), CAST(:id AS uuid), :name, CAST(:properties AS jsonb))
        ON CONFLICT (session_id, name) DO NOTHING
        """,
        id=session_id,
        name=name,
        properties=json.dumps(properties, ensure_ascii=False, default=str),
    )
