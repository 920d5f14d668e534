"""SQL for the interview tables. Every statement runs as the caller, under row-level security.

A turn costs two round trips: one batch reads the session with its last turn (and the turn an
idempotency key names), and one statement advances the session, stores the turn and its
decision record. The advance is conditional on `turn_count`, so of two concurrent turns exactly
one is stored per slot, and the other learns it lost by getting no row back.
"""

from __future__ import annotations

import json
from typing import Any

Row = dict[str, Any]
Statement = tuple[str, Row]

FUNCTION_NAME = "InterviewTurnFunction"
DECISION_KIND = "interview.turn"
SUBJECT_TYPE = "interview_turn"

_TURN_COLUMNS = (
    "user_text",
    "request_fingerprint",
    "idempotency_key",
    "topic_id",
    "persona_used",
    "conversation_phase",
    "depth_level_before",
    "depth_level_after",
    "tactic_used",
    "loop_state",
    "safety_action",
    "metrics",
    "response_text",
    "signals",
    "winning_rule",
    "depth_decision",
    "depth_reason",
    "violated_rule_ids",
    "telemetry",
    "source",
    "fallback_reason",
    "model",
    "latency_ms",
    "config_version",
    "engine_version",
)
_JSON_COLUMNS = frozenset({"metrics", "signals", "telemetry"})
_RECORD_COLUMNS = (
    "engine_version",
    "config_version",
    "inputs",
    "output",
    "source",
    "model",
    "raw_reply",
    "seed",
)


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def _turn_values(turn: Row) -> tuple[str, str, Row]:
    """Column list, VALUES expressions and parameters for one interview_turns row."""
    expressions = []
    for column in _TURN_COLUMNS:
        if column in _JSON_COLUMNS:
            expressions.append(f"CAST(:{column} AS jsonb)")
        elif column == "violated_rule_ids":
            expressions.append("CAST(:violated_rule_ids AS text[])")
        else:
            expressions.append(f":{column}")
    params = {
        column: _json(turn[column]) if column in _JSON_COLUMNS else turn[column] for column in _TURN_COLUMNS
    }
    return ", ".join(_TURN_COLUMNS), ", ".join(expressions), params


def _record_params(record: Row) -> Row:
    return {
        f"record_{name}": _json(record[name]) if name in {"inputs", "output"} else record[name]
        for name in _RECORD_COLUMNS
    }


_RECORD_INSERT = f"""
    INSERT INTO public.decision_records
        (id, user_id, function_name, kind, subject_type, subject_id, {", ".join(_RECORD_COLUMNS)})
    SELECT t.id, t.user_id, '{FUNCTION_NAME}', '{DECISION_KIND}', '{SUBJECT_TYPE}', t.id,
           :record_engine_version, :record_config_version, CAST(:record_inputs AS jsonb),
           CAST(:record_output AS jsonb), :record_source, :record_model, :record_raw_reply, :record_seed
    FROM turn t
    RETURNING id
"""


# A started session with its opening turn (as JSON), for answering a retried start in one read.
_STARTED = (
    "SELECT s.*, to_jsonb(t) AS opening FROM public.interview_sessions s"
    " JOIN public.interview_turns t ON t.session_id = s.id AND t.turn_no = 0"
    " WHERE s.user_id = (SELECT auth.uid())"
)


def recent_start(fingerprint: str, window_seconds: int) -> Statement:
    """An open session this caller started with the same request moments ago: a retry without a
    key (a closed one is history, and the same request now means a new interview)."""
    return (
        f"{_STARTED} AND s.status = 'open' AND s.start_fingerprint = :fingerprint"
        " AND s.created_at > now() - make_interval(secs => CAST(:window AS double precision))"
        " ORDER BY s.created_at DESC LIMIT 1",
        {"fingerprint": fingerprint, "window": window_seconds},
    )


def session_by_key(key: str) -> Statement:
    return (f"{_STARTED} AND s.idempotency_key = :key", {"key": key})


def start_session(session: Row, opening: Row, record: Row) -> list[Statement]:
    """Insert the session, then its opening turn with the turn's decision record: two statements
    of one transaction, sent together. The turn's policy checks that the caller owns the session,
    which it can only see once the first statement has run. Both return nothing when the
    caller's idempotency key is already taken; else the new session and its opening turn."""
    insert_session = (
        """
        INSERT INTO public.interview_sessions (
            id, user_id, narrator_name, language, locale, topic_plan, sensitive_consent, topic_id,
            engine_state, last_response_text, config_version, idempotency_key, start_fingerprint)
        VALUES (
            CAST(:id AS uuid), (SELECT auth.uid()), :narrator_name, :language, :locale,
            CAST(:topic_plan AS jsonb), :sensitive_consent, :topic_id, CAST(:engine_state AS jsonb),
            :last_response_text, :config_version, :idempotency_key, :start_fingerprint)
        ON CONFLICT (user_id, idempotency_key) DO NOTHING
        RETURNING *
        """,
        {
            **session,
            "topic_plan": _json(session["topic_plan"]),
            "engine_state": _json(session["engine_state"]),
        },
    )
    columns, values, turn_params = _turn_values(opening)
    insert_opening = (
        f"""
        WITH turn AS (
            INSERT INTO public.interview_turns (id, session_id, user_id, turn_no, {columns})
            SELECT CAST(:turn_id AS uuid), s.id, s.user_id, 0, {values}
            FROM public.interview_sessions s
            WHERE s.id = CAST(:session_id AS uuid) AND s.turn_count = 0
              AND NOT EXISTS (SELECT 1 FROM public.interview_turns t WHERE t.session_id = s.id)
            RETURNING *
        ), record AS ({_RECORD_INSERT})
        SELECT t.* FROM turn t
        """,
        {"session_id": session["id"], "turn_id": opening["id"], **turn_params, **_record_params(record)},
    )
    return [insert_session, insert_opening]


def session(session_id: str) -> Statement:
    return ("SELECT * FROM public.interview_sessions WHERE id = CAST(:id AS uuid)", {"id": session_id})


def last_turn(session_id: str) -> Statement:
    return (
        "SELECT * FROM public.interview_turns WHERE session_id = CAST(:id AS uuid)"
        " ORDER BY turn_no DESC LIMIT 1",
        {"id": session_id},
    )


def turn_by_key(session_id: str, key: str | None) -> Statement:
    return (
        "SELECT * FROM public.interview_turns"
        " WHERE session_id = CAST(:id AS uuid) AND idempotency_key = :key",
        {"id": session_id, "key": key},
    )


def turns(session_id: str) -> Statement:
    return (
        "SELECT * FROM public.interview_turns WHERE session_id = CAST(:id AS uuid) ORDER BY turn_no",
        {"id": session_id},
    )


def record_turn(session_id: str, turn_no: int, advance: Row, turn: Row, record: Row) -> Statement:
    """Advance the session to `turn_no` and store the turn with its decision record.

    The UPDATE only matches while the session is open and still at `turn_no - 1`; a concurrent
    turn that committed first makes it match nothing, so nothing is written and no row returns.
    """
    columns, values, turn_params = _turn_values(turn)
    sql = f"""
        WITH advanced AS (
            UPDATE public.interview_sessions
            SET turn_count = :turn_no, topic_id = :session_topic_id, depth_level = :depth_level,
                sensitive_consent = :sensitive_consent, engine_state = CAST(:engine_state AS jsonb),
                last_response_text = :last_response_text, config_version = :session_config_version,
                status = CASE WHEN CAST(:closed_reason AS text) IS NULL THEN 'open' ELSE 'closed' END,
                closed_reason = CAST(:closed_reason AS text),
                closed_at = CASE WHEN CAST(:closed_reason AS text) IS NULL THEN NULL ELSE now() END,
                updated_at = now()
            WHERE id = CAST(:session_id AS uuid) AND status = 'open' AND turn_count = :turn_no - 1
            RETURNING id, user_id, status
        ), turn AS (
            INSERT INTO public.interview_turns (id, session_id, user_id, turn_no, {columns})
            SELECT CAST(:turn_id AS uuid), a.id, a.user_id, :turn_no, {values}
            FROM advanced a
            RETURNING *
        ), record AS ({_RECORD_INSERT})
        SELECT t.*, a.status AS session_status FROM turn t CROSS JOIN advanced a
    """
    params = {
        "session_id": session_id,
        "turn_no": turn_no,
        "turn_id": turn["id"],
        "session_topic_id": advance["topic_id"],
        "depth_level": advance["depth_level"],
        "sensitive_consent": advance["sensitive_consent"],
        "engine_state": _json(advance["engine_state"]),
        "last_response_text": advance["last_response_text"],
        "session_config_version": advance["config_version"],
        "closed_reason": advance["closed_reason"],
        **turn_params,
        **_record_params(record),
    }
    return sql, params
