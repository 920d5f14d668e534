"""Short-hands for driving SpsEncounterFunction over HTTP and reading what it stored.

Every turn a test sees goes through `assert_turn` (the `{text, meta}` of spec §13 with its ids,
indexes and state); stored rows are read as the table owner (no RLS) to see everything.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs

from tests.support.api import ApiClient, Reply
from tests.support.users import AppUser

ENCOUNTERS = "/sps/encounters"
VALIDATE = "/sps/validate"
SCENARIOS = "/sps/scenarios"
FUNCTION = "SpsEncounterFunction"
DECISION_KIND = "sps.patient_turn"
ROOT = Path(__file__).resolve().parents[3]
CONFIG_DIR = ROOT / "functions" / "sps_encounter" / "sps_encounter" / "config"
SCHEMAS_DIR = CONFIG_DIR / "schemas"
SCENARIO = "chest-pain"
PERSONA = "en-reserved-brief"

TURN_FIELDS = {
    "text",
    "meta",
    "turn_id",
    "learner_turn_index",
    "patient_turn_index",
    "state",
    "expires_at",
}
# Every variation decision a turn's meta records (spec §13: "the meta records every variation
# decision and RNG draw").
META_FIELDS = {
    "turnIndex",
    "kind",
    "questionType",
    "eligible",
    "elaborated",
    "elaboration",
    "slots",
    "answered",
    "declined",
    "refusal",
    "guardrails",
    "clarification",
    "agendaRevealed",
    "dobChallenge",
    "identityVerified",
    "misunderstanding",
    "disfluencies",
    "opening",
    "rapport",
    "rapportShift",
    "layers",
    "learner",
    "rng",
    "source",
    "factCheck",
    "fallbackReason",
}
# SPSRuntimeState (spec §2), field for field, plus what the rules track.
STATE_FIELDS = {
    "rapport",
    "personaVerbosity",
    "lastClarifications",
    "lastBoundaries",
    "lastOpeners",
    "agendaRevealed",
    "identityVerified",
    "dobChallengeUsed",
    "turnsSinceHesitation",
    "rngSeed",
    "turnIndex",
    "tracking",
}

# Learner turns of the chest-pain case whose kind the engine's rules fix.
OPENING = "What brings you in today?"
ONSET = "When did it start?"
IDENTITY = "Can you tell me your full name and date of birth?"
IDENTITY_AGAIN = "I do need to confirm your full name and date of birth, please."
LOCATION = "Where is the pain exactly?"
MEDICATIONS = "What medications are you taking?"
VAGUE = "Anything else?"
GUARDRAIL = "Could you run on the spot for me for a minute?"
MEASURE_BP = "I'm going to check your blood pressure."
NARRATIVE = "Can you describe the pain?"
SMOKING = "Do you smoke?"
# An encounter of ten turns whose transcript validates with no error.
TEN_TURNS = (
    OPENING,
    ONSET,
    IDENTITY,
    IDENTITY_AGAIN,
    LOCATION,
    MEDICATIONS,
    VAGUE,
    GUARDRAIL,
    MEASURE_BP,
    NARRATIVE,
)

# A varied encounter: empathy (rapport), dismissals, a misunderstanding and its reframe, privacy.
VARIED = (
    *TEN_TURNS,
    "I can imagine that must be really worrying.",
    "Thank you for sharing that, it sounds hard.",
    "Do you smoke?",
    "How much alcohol do you drink?",
    "Are you under a lot of pressure?",
    "I mean, how does the pain in your chest feel?",
    "Just answer yes or no.",
    "Yes or no, quickly please.",
    "Are you worried about anything?",
    VAGUE,
    "What else?",
    GUARDRAIL,
    "Could you climb the stairs for me now?",
    "Have you ever travelled abroad?",
)


# Configuration as the function ships it


def catalog_document(kind: str, document_id: str) -> dict[str, Any]:
    """A fresh copy of a catalog scenario or persona (`kind`: scenarios | personas)."""
    return copy.deepcopy(_catalog_document(kind, document_id))


@cache
def _catalog_document(kind: str, document_id: str) -> dict[str, Any]:
    return dict(json.loads((CONFIG_DIR / kind / f"{document_id}.json").read_text(encoding="utf-8")))


def catalog_files(kind: str) -> dict[str, dict[str, Any]]:
    return {
        path.stem: json.loads(path.read_text(encoding="utf-8"))
        for path in sorted((CONFIG_DIR / kind).glob("*.json"))
    }


def inline_scenario(**changes: Any) -> dict[str, Any]:
    """The chest-pain scenario posted inline under another id, with `changes` at the top level."""
    document = catalog_document("scenarios", SCENARIO)
    document["id"] = "chest-pain-inline"
    document["version"] = "inline-1"
    document.update(changes)
    return document


@cache
def _schema(name: str) -> Any:
    return jsonschema_rs.validator_for(json.loads((SCHEMAS_DIR / name).read_text(encoding="utf-8")))


def assert_schema(name: str, instance: Any) -> None:
    errors = [error.message for error in _schema(name).iter_errors(instance)]
    assert not errors, errors


# Requests


def start_body(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"scenario_id": SCENARIO, "persona_id": PERSONA, "seed": 42}
    body.update(overrides)
    return {name: value for name, value in body.items() if value is not None}


def post_start(
    api: ApiClient, token: str, body: dict[str, Any] | None = None, *, key: str | None = None
) -> Reply:
    headers = {"Idempotency-Key": key} if key else None
    return api.post(ENCOUNTERS, token, start_body() if body is None else body, headers=headers)


def start(api: ApiClient, user: AppUser, **overrides: Any) -> dict[str, Any]:
    """A new encounter (201); returns the body."""
    reply = post_start(api, user.token, start_body(**overrides))
    assert reply.status == 201, reply.body
    body = dict(reply.body)
    assert set(body["state"]) == STATE_FIELDS
    assert (body["turn_index"], body["state"]["turnIndex"], body["expired"]) == (0, 0, False)
    return body


def post_turn(
    api: ApiClient, token: str, encounter_id: str, text: str, *, key: str | None = None, query: str = ""
) -> Reply:
    headers = {"Idempotency-Key": key} if key else None
    return api.post(
        f"{ENCOUNTERS}/{encounter_id}/turns{query}", token, {"learner_text": text}, headers=headers
    )


def take(api: ApiClient, user: AppUser, encounter_id: str, text: str, **kwargs: Any) -> dict[str, Any]:
    """A turn that must succeed; returns the checked body."""
    reply = post_turn(api, user.token, encounter_id, text, **kwargs)
    assert reply.status == 200, reply.body
    return assert_turn(reply.body)


def assert_turn(body: dict[str, Any]) -> dict[str, Any]:
    assert set(body) == TURN_FIELDS, sorted(set(body) ^ TURN_FIELDS)
    meta = body["meta"]
    assert set(meta) == META_FIELDS, sorted(set(meta) ^ META_FIELDS)
    assert body["text"].strip()
    assert body["patient_turn_index"] == body["learner_turn_index"] + 1 == meta["turnIndex"]
    assert meta["learner"]["turnIndex"] == body["learner_turn_index"]
    assert body["state"]["turnIndex"] == body["patient_turn_index"] + 1
    assert set(body["state"]) == STATE_FIELDS
    assert meta["rng"], "a turn without a single RNG draw"
    for draw in meta["rng"]:
        assert {"state", "value", "domain", "purpose"} <= set(draw)
    return body


def get_encounter(api: ApiClient, token: str, encounter_id: str, query: str = "") -> Reply:
    return api.get(f"{ENCOUNTERS}/{encounter_id}{query}", token)


def validate(api: ApiClient, token: str, transcript: list[dict[str, Any]], **fields: Any) -> Reply:
    body = {"scenario_id": SCENARIO, "persona_id": PERSONA, "transcript": transcript, **fields}
    return api.post(VALIDATE, token, {name: value for name, value in body.items() if value is not None})


def without_ids(body: dict[str, Any]) -> dict[str, Any]:
    """A turn as two encounters of the same seed must share it: all but its id and its clock."""
    return {name: value for name, value in body.items() if name not in {"turn_id", "expires_at"}}


# xorshift32 as the spec's TypeScript reference computes it (§3).


def xorshift32(state: int) -> int:
    x = state & 0xFFFFFFFF
    x ^= (x << 13) & 0xFFFFFFFF
    x ^= x >> 17
    x ^= (x << 5) & 0xFFFFFFFF
    return x & 0xFFFFFFFF


# Stored rows


def row_counts(db: Any, user_id: str) -> dict[str, int]:
    """What is stored for a learner, read as the table owner (no RLS) to see everything."""
    with db.as_owner() as tx:
        row = tx.one(
            """
            SELECT
              (SELECT count(*) FROM public.sps_encounters WHERE user_id = CAST(:u AS uuid)) AS encounters,
              (SELECT count(*) FROM public.sps_turns WHERE user_id = CAST(:u AS uuid)) AS turns,
              (SELECT count(*) FROM public.decision_records
                WHERE user_id = CAST(:u AS uuid) AND function_name = :f) AS records,
              (SELECT count(*) FROM public.sps_validations WHERE user_id = CAST(:u AS uuid)) AS validations,
              (SELECT coalesce(sum(turn_index), 0) FROM public.sps_encounters
                WHERE user_id = CAST(:u AS uuid)) AS turn_indexes
            """,
            u=user_id,
            f=FUNCTION,
        )
    assert row is not None
    return {name: int(value) for name, value in row.items()}


NOTHING = {"encounters": 0, "turns": 0, "records": 0, "validations": 0, "turn_indexes": 0}


def stored_encounter(db: Any, encounter_id: str) -> dict[str, Any]:
    with db.as_owner() as tx:
        row = tx.one(
            "SELECT *, expires_at > now() AS live FROM public.sps_encounters WHERE id = CAST(:e AS uuid)",
            e=encounter_id,
        )
    assert row is not None, f"no stored encounter {encounter_id}"
    return row


def stored_turns(db: Any, encounter_id: str) -> list[dict[str, Any]]:
    with db.as_owner() as tx:
        return tx.rows(
            "SELECT * FROM public.sps_turns WHERE encounter_id = CAST(:e AS uuid) ORDER BY learner_index",
            e=encounter_id,
        )


def decision_record(db: Any, record_id: str) -> dict[str, Any]:
    with db.as_owner() as tx:
        row = tx.one("SELECT * FROM public.decision_records WHERE id = CAST(:i AS uuid)", i=record_id)
    assert row is not None, f"no decision record {record_id}"
    return row


def records_of(db: Any, user_id: str) -> list[dict[str, Any]]:
    with db.as_owner() as tx:
        return tx.rows(
            "SELECT * FROM public.decision_records WHERE user_id = CAST(:u AS uuid) AND function_name = :f"
            " ORDER BY created_at, id",
            u=user_id,
            f=FUNCTION,
        )


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]
