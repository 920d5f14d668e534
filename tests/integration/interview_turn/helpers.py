"""Short-hands for driving an interview through the handler and reading what it stored.

Every contract a test sees goes through `assert_contract` (the spec's ten fields, validated
against `turn-contract.schema.json`), every turn response through `assert_turn_response`.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs

from tests.support.api import ApiClient, Reply
from tests.support.users import AppUser

SESSIONS = "/interview/sessions"
FUNCTION = "InterviewTurnFunction"
DECISION_KIND = "interview.turn"
ROOT = Path(__file__).resolve().parents[3]
CONFIG_DIR = ROOT / "functions" / "interview_turn" / "interview_turn" / "config"
SCHEMA_PATH = CONFIG_DIR / "schemas" / "turn-contract.schema.json"

# The spec's Turn Output Contract, field for field.
CONTRACT_FIELDS = (
    "persona_used",
    "topic_id",
    "conversation_phase",
    "depth_level_before",
    "depth_level_after",
    "tactic_used",
    "loop_state",
    "safety_action",
    "metrics",
    "response_text",
)
TURN_RESPONSE_FIELDS = {*CONTRACT_FIELDS, "signals", "winning_rule", "turn"}
SIGNAL_FIELDS = {
    "vagueness_score",
    "emotion_score",
    "contradiction_score",
    "refusal_or_discomfort",
    "conversation_phase",
}

# Narrator answers whose route the spec's priority order fixes (offline heuristics).
CONCRETE = "We moved to Boston in 1985, when I was twelve. My father had found work at the shipyard."
VAGUE = "I don't really remember, maybe sometime around then."
# Emotion above the router's threshold but below the distress threshold (expand, bounded)...
EMOTIONAL = "We were scared and lonely, I cried a lot that winter."
# ...and at the distress threshold (stabilize and offer a choice).
DISTRESSING = "I cried so much when my mother passed away, I still miss her every day."
CONTRADICTING = "We moved to Boston in 1987."
REFUSAL = "I'd rather not talk about that part, can we change the topic?"
STOP = "I want to stop the interview now."
DISTRESS = "I can't breathe, I think I'm having a panic attack."
SELF_HARM = "Some days I want to kill myself."
SELF_HARM_ZH = "有时候我真的不想活了。"


@cache
def config(name: str) -> Any:
    """A configuration artifact exactly as the function ships it."""
    return json.loads((CONFIG_DIR / name).read_text(encoding="utf-8"))


@cache
def _contract_validator() -> Any:
    return jsonschema_rs.validator_for(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


def contract_of(body: dict[str, Any]) -> dict[str, Any]:
    return {name: body[name] for name in CONTRACT_FIELDS}


def assert_contract(contract: dict[str, Any]) -> dict[str, Any]:
    assert set(contract) == set(CONTRACT_FIELDS), sorted(set(contract) ^ set(CONTRACT_FIELDS))
    errors = [error.message for error in _contract_validator().iter_errors(contract)]
    assert not errors, errors
    assert contract["response_text"].strip()
    return contract


def assert_turn_response(body: dict[str, Any]) -> dict[str, Any]:
    assert set(body) == TURN_RESPONSE_FIELDS, sorted(set(body) ^ TURN_RESPONSE_FIELDS)
    assert_contract(contract_of(body))
    assert set(body["signals"]) >= SIGNAL_FIELDS
    assert set(body["turn"]) >= {"turn_id", "turn_no", "session_id", "session_status", "source"}
    return body


def start_body(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "narrator": {"display_name": "Margaret"},
        "language": "en",
        "locale": "en-US",
        "topic_plan": [
            {"topic_id": "childhood", "title": "your childhood"},
            {"topic_id": "first_job", "title": "your first job"},
        ],
        "consent": {"sensitive_topics": False},
    }
    body.update(overrides)
    return {name: value for name, value in body.items() if value is not None}


def start(api: ApiClient, user: AppUser, **overrides: Any) -> dict[str, Any]:
    """A new session (201); returns the body, its opening contract validated."""
    reply = api.post(SESSIONS, user.token, start_body(**overrides))
    assert reply.status == 201, reply.body
    assert_contract(reply.body["opening"])
    return dict(reply.body)


def post_turn(
    api: ApiClient,
    token: str,
    session_id: str,
    text: str,
    *,
    key: str | None = None,
    query: str = "",
    **fields: Any,
) -> Reply:
    headers = {"Idempotency-Key": key} if key else None
    return api.post(
        f"{SESSIONS}/{session_id}/turns{query}", token, {"user_text": text, **fields}, headers=headers
    )


def take(api: ApiClient, user: AppUser, session_id: str, text: str, **kwargs: Any) -> dict[str, Any]:
    """A turn that must succeed; returns the validated body."""
    reply = post_turn(api, user.token, session_id, text, **kwargs)
    assert reply.status == 200, reply.body
    return assert_turn_response(reply.body)


def row_counts(db: Any, user_id: str) -> dict[str, int]:
    """What is stored for a narrator, read as the table owner (no RLS) to see everything."""
    with db.as_owner() as tx:
        row = tx.one(
            """
            SELECT
              (SELECT count(*) FROM public.interview_sessions WHERE user_id = CAST(:u AS uuid)) AS sessions,
              (SELECT count(*) FROM public.interview_turns WHERE user_id = CAST(:u AS uuid)) AS turns,
              (SELECT count(*) FROM public.decision_records
                WHERE user_id = CAST(:u AS uuid) AND kind = :kind) AS records,
              (SELECT coalesce(sum(turn_count), 0) FROM public.interview_sessions
                WHERE user_id = CAST(:u AS uuid)) AS turn_counts
            """,
            u=user_id,
            kind=DECISION_KIND,
        )
    assert row is not None
    return {name: int(value) for name, value in row.items()}


def stored_turns(db: Any, session_id: str) -> list[dict[str, Any]]:
    with db.as_owner() as tx:
        return tx.rows(
            "SELECT * FROM public.interview_turns WHERE session_id = CAST(:s AS uuid) ORDER BY turn_no",
            s=session_id,
        )


def stored_turn(db: Any, turn_id: str) -> dict[str, Any]:
    with db.as_owner() as tx:
        row = tx.one("SELECT * FROM public.interview_turns WHERE id = CAST(:i AS uuid)", i=turn_id)
    assert row is not None, f"no stored turn {turn_id}"
    return row


def stored_session(db: Any, session_id: str) -> dict[str, Any]:
    with db.as_owner() as tx:
        row = tx.one("SELECT * FROM public.interview_sessions WHERE id = CAST(:s AS uuid)", s=session_id)
    assert row is not None, f"no stored session {session_id}"
    return row


def decision_record(db: Any, record_id: str) -> dict[str, Any]:
    with db.as_owner() as tx:
        row = tx.one("SELECT * FROM public.decision_records WHERE id = CAST(:i AS uuid)", i=record_id)
    assert row is not None, f"no decision record {record_id}"
    return row


def lines(tactic_lines: dict[str, list[str]], language: str = "en", **values: str) -> list[str]:
    """A configured set of alternative lines in one language, placeholders filled."""
    filled = {"name": "", "topic": "", "next_topic": "", "earlier": "", "current": "", **values}
    return [line.format_map(filled) for line in tactic_lines[language]]


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]
