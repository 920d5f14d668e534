"""Short-hands for driving ChairInterruptFunction over HTTP and reading what it stored.

The debate is the spec's: chair_1 (utilitarianism) speaks, chair_2 (virtue ethics) and chair_3
(deontology) may interrupt. Stored rows are read as the table owner (no RLS) to see everything.
"""

from __future__ import annotations

import copy
import json
import uuid
from functools import cache
from pathlib import Path
from typing import Any

from tests.support.api import ApiClient, Reply
from tests.support.users import AppUser

FUNCTION = "ChairInterruptFunction"
DECISION_KIND = "chair.interrupt"
EVALUATION_ID = "x-evaluation-id"
ROOT = Path(__file__).resolve().parents[3]
CONFIG_DIR = ROOT / "functions" / "chair_interrupt" / "chair_interrupt" / "config"

REASONS = (
    "factual_correction",
    "straw_man_detected",
    "direct_challenge",
    "clarification_needed",
    "strong_agreement",
    "pivotal_point",
)
# The spec's getUrgencyThreshold.
THRESHOLDS = {1: 0.9, 2: 0.8, 3: 0.7, 4: 0.6, 5: 0.5}
CANDIDATE_FIELDS = {
    "interrupting_chair",
    "interrupted_chair",
    "trigger_reason",
    "trigger_content",
    "urgency",
    "suggested_opener",
}

# The spec's straw man, aimed at the virtue ethicist (chair_2).
STRAW_MAN = "Virtue ethics people just want to feel good about themselves!"
# A pivotal claim that names no chair's framework: any chair may take it up. Offline it is
# "mildly interruptable" (above aggressiveness 5's threshold, below aggressiveness 1's).
PIVOTAL = "The fundamental issue is whether rights are absolute."
# A non-defending reason (a direct challenge) that names no framework.
CHALLENGE = "Your argument is clearly wrong, and everyone can see it!"
# A factual error about deontology: only chair_3 can correct it.
DEONTOLOGY_ERROR = "Deontology ignores consequences entirely, which is why it fails."
# Nothing any quick-check pattern catches: the local scorer decides it.
CALM = "We should weigh the outcomes for everyone affected, and count each person equally."
# The spec's straw man, reported and rejected: it never interrupts below aggressiveness 5.
HEDGED = "Critics sometimes say virtue ethics people just want to feel good about themselves, but that's a caricature."


def chair(position: str, framework: str, name: str) -> dict[str, Any]:
    return {"position": position, "framework": framework, "model_id": name, "model_display_name": name}


SPEAKER = chair("chair_1", "utilitarianism", "Claude")
VIRTUE = chair("chair_2", "virtue_ethics", "GPT")
DEONTOLOGIST = chair("chair_3", "deontology", "Gemini")


def interruptions(**overrides: Any) -> dict[str, Any]:
    return {
        "enabled": True,
        "allow_chair_interruptions": True,
        "aggressiveness": 3,
        "cooldown_seconds": 60,
        **overrides,
    }


def evaluate_body(
    recent_content: str = STRAW_MAN,
    *,
    other_chairs: list[dict[str, Any]] | None = None,
    debate_so_far: str = "Moderator: Should AI systems be allowed to deceive users for their own good?",
    topic: str = "AI Ethics",
    **config: Any,
) -> dict[str, Any]:
    # Deep copies: a test may break any part of the body without touching the next test's.
    return {
        "current_speaker": copy.deepcopy(SPEAKER),
        "other_chairs": copy.deepcopy([VIRTUE, DEONTOLOGIST] if other_chairs is None else other_chairs),
        "recent_content": recent_content,
        "debate_so_far": debate_so_far,
        "topic": topic,
        "interruptions": interruptions(**config),
    }


def new_debate() -> str:
    return str(uuid.uuid4())


def path(debate_id: str, route: str) -> str:
    return f"/debates/{debate_id}/interrupts/{route}"


def post_evaluate(api: ApiClient, token: str, debate_id: str, body: dict[str, Any]) -> Reply:
    return api.post(path(debate_id, "evaluate"), token, body)


def evaluate(api: ApiClient, user: AppUser, debate_id: str, *args: Any, **kwargs: Any) -> Reply:
    """An evaluation that must succeed (200, an evaluation id); the body is the candidate or None."""
    reply = post_evaluate(api, user.token, debate_id, evaluate_body(*args, **kwargs))
    assert reply.status == 200, reply.body
    assert uuid.UUID(reply.headers[EVALUATION_ID])
    if reply.body is not None:
        assert_candidate(reply.body)
    return reply


def assert_candidate(body: dict[str, Any]) -> dict[str, Any]:
    """The spec's ChairInterruptCandidate, field for field."""
    assert set(body) == CANDIDATE_FIELDS, sorted(set(body) ^ CANDIDATE_FIELDS)
    assert body["trigger_reason"] in REASONS
    assert 0 <= body["urgency"] <= 1
    assert body["interrupting_chair"]["position"] != body["interrupted_chair"]["position"]
    assert body["trigger_content"].strip()
    assert 2 <= len(body["suggested_opener"].split()) <= 8, body["suggested_opener"]
    return body


def stats(api: ApiClient, user: AppUser, debate_id: str) -> dict[str, Any]:
    reply = api.get(path(debate_id, "stats"), user.token)
    assert reply.status == 200, reply.body
    return dict(reply.body)


def reset(api: ApiClient, user: AppUser, debate_id: str) -> dict[str, Any]:
    reply = api.post(path(debate_id, "reset-cooldowns"), user.token)
    assert reply.status == 200, reply.body
    return dict(reply.body)


@cache
def config(name: str) -> Any:
    """A configuration artifact exactly as the function ships it."""
    return json.loads((CONFIG_DIR / name).read_text(encoding="utf-8"))


def openers(reason: str) -> list[str]:
    return list(config("openers.json")["openers"][reason])


def row_counts(db: Any, user_id: str) -> dict[str, int]:
    """Everything stored for an owner, across all their debates."""
    with db.as_owner() as tx:
        row = tx.one(
            """
            SELECT
              (SELECT count(*) FROM public.chair_cooldowns WHERE user_id = CAST(:u AS uuid)) AS cooldowns,
              (SELECT count(*) FROM public.chair_interruptions WHERE user_id = CAST(:u AS uuid))
                AS interruptions,
              (SELECT count(*) FROM public.decision_records
                WHERE user_id = CAST(:u AS uuid) AND function_name = :f) AS records
            """,
            u=user_id,
            f=FUNCTION,
        )
    assert row is not None
    return {name: int(value) for name, value in row.items()}


def interruption_rows(db: Any, user_id: str, debate_id: str) -> list[dict[str, Any]]:
    with db.as_owner() as tx:
        return tx.rows(
            "SELECT * FROM public.chair_interruptions WHERE user_id = CAST(:u AS uuid)"
            " AND debate_id = CAST(:d AS uuid) ORDER BY created_at, id",
            u=user_id,
            d=debate_id,
        )


def cooldown_rows(db: Any, user_id: str, debate_id: str) -> list[dict[str, Any]]:
    with db.as_owner() as tx:
        return tx.rows(
            "SELECT * FROM public.chair_cooldowns WHERE user_id = CAST(:u AS uuid)"
            " AND debate_id = CAST(:d AS uuid) ORDER BY chair_position",
            u=user_id,
            d=debate_id,
        )


def decision_record(db: Any, record_id: str) -> dict[str, Any]:
    with db.as_owner() as tx:
        row = tx.one("SELECT * FROM public.decision_records WHERE id = CAST(:i AS uuid)", i=record_id)
    assert row is not None, f"no decision record {record_id}"
    return row


def records(db: Any, user_id: str) -> list[dict[str, Any]]:
    with db.as_owner() as tx:
        return tx.rows(
            "SELECT * FROM public.decision_records WHERE user_id = CAST(:u AS uuid) AND function_name = :f"
            " ORDER BY created_at, id",
            u=user_id,
            f=FUNCTION,
        )


def record_of(db: Any, reply: Reply) -> dict[str, Any]:
    return decision_record(db, reply.headers[EVALUATION_ID])


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]
