"""SQL for the interception tables. Every statement runs as the caller (RLS applies).

Round trips are the latency in production (each statement crosses the network to the pooler),
so reads that a step needs together are sent together (`Tx.batch`, `Database.run_as_user`) and
a turn is written with one statement.
"""

from __future__ import annotations

import json
from typing import Any

Row = dict[str, Any]
Statement = tuple[str, Row]

_RULE_COLUMNS = (
    "id, app_identifier, app_display_name, summary, next_action, remaining_minutes, delay_minutes,"
    " unlock_minutes, friction_growth_seconds, friction_cap_seconds, overrides_disabled_in_blocked_window,"
    " emergency_reason_required_past_allowance"
)
_LOCKS = {None: "", "share": " FOR SHARE", "update": " FOR UPDATE"}


def rule(rule_id: str) -> Statement:
    return (f"SELECT {_RULE_COLUMNS} FROM public.rules WHERE id = CAST(:id AS uuid)", {"id": rule_id})


def session(session_id: str, *, lock: str | None = None) -> Statement:
    """Lock with "share" before reading the session's turns: a concurrent turn commits its row
    and the session's new state together, and the lock keeps both reads on one side of it."""
    return (
        f"SELECT * FROM public.intercept_sessions WHERE id = CAST(:id AS uuid){_LOCKS[lock]}",
        {"id": session_id},
    )


def turns(session_id: str) -> Statement:
    return (
        "SELECT * FROM public.intercept_turns WHERE session_id = CAST(:id AS uuid) ORDER BY turn_no",
        {"id": session_id},
    )


def rule_of_session(session_id: str) -> Statement:
    return (
        f"SELECT {', '.join('r.' + c.strip() for c in _RULE_COLUMNS.split(','))} FROM public.rules r"
        " JOIN public.intercept_sessions s ON s.rule_id = r.id WHERE s.id = CAST(:id AS uuid)",
        {"id": session_id},
    )


def close_abandoned(grace_seconds: int) -> Statement:
    """The caller's dialogs left open past countdown + grace, closed before anything is counted."""
    return ("SELECT public.intercept_close_abandoned(:grace) AS closed", {"grace": grace_seconds})


def observe_offset(offset_minutes: int) -> Statement:
    """Record the offset this start reported (a change waits for the next local midnight) and
    lock the user's clock row until commit: one user's starts and decisions take turns."""
    return (
        "SELECT * FROM public.intercept_observe_offset(CAST(:offset AS integer))",
        {"offset": offset_minutes},
    )


def start_context(app_identifier: str, offset_minutes: int) -> Statement:
    """The local day, the app's running unlock or delay, and the counts a start answers with."""
    return (
        "SELECT * FROM public.intercept_start_context(:app, CAST(:offset AS integer))",
        {"app": app_identifier, "offset": offset_minutes},
    )


def emergency_budget(session_id: str) -> Statement:
    """The local day's end and the week's emergency unlocks, under the user's clock lock (a user
    without a clock row yet is at the session's offset)."""
    return (
        "SELECT * FROM public.intercept_emergency_budget(COALESCE((SELECT s.utc_offset_minutes::integer"
        " FROM public.intercept_sessions s WHERE s.id = CAST(:id AS uuid)), 0))",
        {"id": session_id},
    )


def closing_time(session_id: str) -> Statement:
    """Now by the database clock, and never before the session's last turn: with the session
    row locked no turn can be added any more, so closed_at cannot run backwards."""
    return (
        "SELECT greatest(clock_timestamp(), (SELECT max(t.created_at) FROM public.intercept_turns t"
        " WHERE t.session_id = CAST(:id AS uuid))) AS closed_at",
        {"id": session_id},
    )


def day_stats_of_session(session_id: str) -> Statement:
    """Today's overrides and the streak, from the user's own history (see the migration)."""
    return (
        "SELECT d.override_count_today, d.streak FROM public.intercept_sessions s,"
        " LATERAL public.intercept_day_stats(CAST(s.utc_offset_minutes AS integer)) d"
        " WHERE s.id = CAST(:id AS uuid)",
        {"id": session_id},
    )


def insert_session(values: Row) -> Statement:
    """Insert unless the user already has a session with this id; no row on conflict (the
    caller decides if it is a retry). Ids are scoped per user: another user's is a fresh one."""
    return (
        """
        INSERT INTO public.intercept_sessions (
            id, user_id, rule_id, app_identifier, app_display_name, trigger, persona_key, persona_version,
            client_timestamp, utc_offset_minutes, local_date, client_streak, client_override_count_today,
            start_fingerprint, countdown_seconds, override_allowed, emergency_reason_required_past_allowance,
            unlock_minutes, mentions_excess_of)
        VALUES (
            CAST(:id AS uuid), (SELECT auth.uid()), CAST(:rule_id AS uuid), :app_identifier,
            :app_display_name, :trigger, :persona_key, :persona_version,
            CAST(:client_timestamp AS timestamptz),
            :utc_offset_minutes, CAST(:local_date AS date), :client_streak, :client_override_count_today,
            :start_fingerprint, :countdown_seconds, :override_allowed, :emergency_reason_required,
            :unlock_minutes, CAST(:mentions_excess_of AS uuid))
        ON CONFLICT (user_id, id) DO NOTHING
        RETURNING *
        """,
        values,
    )


_TURN_COLUMNS = (
    "reason_text, reason_category, ai_verdict, confidence, persona_response, appeal_used, emergency,"
    " emergency_suggested, recommended_action, delay_minutes, justification, source, fallback_reason,"
    " model, latency_ms, override_count_today, streak, text_fingerprint"
)
_RECORD_COLUMNS = "engine_version, config_version, inputs, output, source, model, raw_reply"


def record_turn(values: Row, record: Row) -> Statement:
    """Advance the session past the turn, store the turn and its decision record: one statement.

    The session moves only if nothing moved it first (a concurrent duplicate waits on the row
    and then finds it advanced), so no turn is ever stored for a session that did not take it.
    Returns the turn with the session's new state, or no row when another request won.
    """
    turn_params = {name.strip(): values[name.strip()] for name in _TURN_COLUMNS.split(",")}
    record_params = {f"record_{name.strip()}": record[name.strip()] for name in _RECORD_COLUMNS.split(",")}
    sql = f"""
        WITH advanced AS (
            UPDATE public.intercept_sessions
            SET state = 'awaiting_decision', evaluation_turns = :turn_no, final_verdict = :ai_verdict,
                emergency = emergency OR :emergency
            WHERE id = CAST(:session_id AS uuid) AND state <> 'closed' AND evaluation_turns = :turn_no - 1
            RETURNING id, state, evaluation_turns, final_verdict
        ), turn AS (
            INSERT INTO public.intercept_turns (id, session_id, user_id, turn_no, created_at, {_TURN_COLUMNS})
            -- clock_timestamp(): the turn's time is when it was written, so a decision that
            -- waited for this row can never be stamped before it.
            SELECT CAST(:turn_id AS uuid), a.id, (SELECT auth.uid()), :turn_no, clock_timestamp(),
                   {", ".join(":" + name.strip() for name in _TURN_COLUMNS.split(","))}
            FROM advanced a
            RETURNING *
        ), record AS (
            INSERT INTO public.decision_records
                (id, user_id, function_name, kind, subject_type, subject_id, {_RECORD_COLUMNS})
            SELECT t.id, t.user_id, 'InterceptSessionFunction', 'intercept.verdict', 'intercept_turn', t.id,
                   :record_engine_version, :record_config_version, CAST(:record_inputs AS jsonb),
                   CAST(:record_output AS jsonb), :record_source, :record_model, :record_raw_reply
            FROM turn t
            RETURNING id
        )
        SELECT t.*, a.state AS session_state, a.evaluation_turns AS session_evaluation_turns,
               a.final_verdict AS session_final_verdict
        FROM turn t CROSS JOIN advanced a
    """
    params = {
        "session_id": values["session_id"],
        "turn_id": values["turn_id"],
        "turn_no": values["turn_no"],
        **turn_params,
        **{
            key: json.dumps(value, ensure_ascii=False) if key in {"record_inputs", "record_output"} else value
            for key, value in record_params.items()
        },
    }
    return sql, params


def close_session(session_id: str, values: Row) -> Statement:
    return (
        """
        UPDATE public.intercept_sessions
        SET state = 'closed', user_decision = :user_decision, accepted_delay = :accepted_delay,
            auto_dismissed = :auto_dismissed, emergency_reason = :emergency_reason,
            emergency = emergency OR :user_decision = 'emergency',
            decision_fingerprint = :decision_fingerprint, closed_at = CAST(:closed_at AS timestamptz),
            unlock_kind = :unlock_kind, unlocked_until = CAST(:unlocked_until AS timestamptz),
            retry_after = CAST(:retry_after AS timestamptz), emergency_over_allowance = :over_allowance
        WHERE id = CAST(:id AS uuid) AND state <> 'closed'
        RETURNING *
        """,
        {"id": session_id, **values},
    )


def record_decision_on_turns(session_id: str, decision: str) -> Statement:
    """Every turn of the dialog carries the decision that ended it (spec: Data Captured Per Turn)."""
    return (
        "UPDATE public.intercept_turns SET user_decision = :decision WHERE session_id = CAST(:id AS uuid)"
        " RETURNING *",
        {"id": session_id, "decision": decision},
    )


def completed_event(session_id: str, name: str) -> Statement:
    """The closed dialog's event, built in SQL from the stored rows (the abandoned sweep emits
    the same); at most once per session."""
    return (
        """
        INSERT INTO public.analytics_events (user_id, subject_type, subject_id, name, properties)
        VALUES ((SELECT auth.uid()), 'intercept_session', CAST(:id AS uuid), :name,
                public.intercept_completed_event((SELECT auth.uid()), CAST(:id AS uuid)))
        ON CONFLICT (user_id, subject_type, subject_id, name) DO NOTHING
        """,
        {"id": session_id, "name": name},
    )
