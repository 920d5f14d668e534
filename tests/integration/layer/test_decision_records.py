"""Decision records: a record stored in `public.decision_records` comes back whole through
`persona_rails.decisions.load_record`, under the owner's row-level security."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from intercept_session.engine.turn import ENGINE_VERSION
from intercept_session.judges import judges
from intercept_session.personas import persona_config
from persona_rails.db import DbError
from persona_rails.decisions import DecisionRecord, diff, load_record
from tests.support.dialog import BORED, reason, start

INSERT = """
INSERT INTO public.decision_records
  (id, function_name, kind, subject_type, subject_id, engine_version, config_version, inputs, output,
   source, model, raw_reply, seed)
VALUES (CAST(:id AS uuid), :function_name, :kind, :subject_type, CAST(:subject_id AS uuid), :engine_version,
        :config_version, CAST(:inputs AS jsonb), CAST(:output AS jsonb), :source, :model, :raw_reply, :seed)
"""


def a_record(user_id: str, **changes: Any) -> DecisionRecord:
    """A decision of a function that does not exist yet: the table is for any function."""
    values: dict[str, Any] = {
        "id": str(uuid.uuid4()),
        "user_id": user_id,
        "function_name": "ModerationFunction",
        "kind": "moderation.label",
        "subject_type": "chat_message",
        "subject_id": str(uuid.uuid4()),
        "engine_version": "moderation/3",
        "config_version": "2026.11.1+3f2a9c1b04de",
        "inputs": {"text": "便宜的药，快来买", "locale": "zh-CN", "thresholds": [0.5, 0.9], "meta": None},
        "output": {"label": "spam", "score": 0.875, "reasons": ["keyword", "link"], "escalate": False},
        "source": "llm",
        "model": "served-model-2026-01-01",
        "raw_reply": '{"label": "spam",  "score": 0.875}',
        "seed": 2**40 + 7,
        **changes,
    }
    return DecisionRecord(**values)


def store(db: Any, claims: dict[str, Any], record: DecisionRecord) -> None:
    with db.as_user(claims) as tx:
        tx.execute(
            INSERT,
            **{
                name: getattr(record, name)
                for name in DecisionRecord.__dataclass_fields__
                if name != "user_id"  # auth.uid(): the caller's own
            }
            | {"inputs": json.dumps(record.inputs), "output": json.dumps(record.output)},
        )


def test_a_stored_record_round_trips_through_load_record(db, users):
    alice = users.create()
    record = a_record(alice.id)
    store(db, alice.claims, record)

    with db.as_user(alice.claims) as tx:
        loaded = load_record(tx, record.id)

    assert loaded == record
    assert loaded is not None
    assert diff(record.output, loaded.output) == []


def test_an_offline_record_without_reply_or_seed_round_trips(db, users):
    alice = users.create()
    record = a_record(alice.id, source="offline", model=None, raw_reply=None, seed=None)
    store(db, alice.claims, record)

    with db.as_user(alice.claims) as tx:
        assert load_record(tx, record.id) == record


def test_another_users_record_and_an_unknown_id_read_as_none(db, users):
    alice, bob = users.create(), users.create()
    record = a_record(alice.id)
    store(db, alice.claims, record)

    with db.as_user(bob.claims) as tx:
        assert load_record(tx, record.id) is None
        assert load_record(tx, str(uuid.uuid4())) is None


def test_a_record_cannot_be_stored_in_another_users_name(db, users):
    alice, bob = users.create(), users.create()
    record = a_record(alice.id)
    with pytest.raises(DbError, match="row-level security"), db.as_user(bob.claims) as tx:
        tx.execute(
            INSERT.replace("(id, ", "(user_id, id, ").replace("VALUES (", "VALUES (CAST(:user_id AS uuid), "),
            **{name: getattr(record, name) for name in DecisionRecord.__dataclass_fields__}
            | {"inputs": json.dumps(record.inputs), "output": json.dumps(record.output)},
        )


def test_an_llm_record_must_keep_its_reply(db, users):
    alice = users.create()
    with pytest.raises(DbError, match="decision_records_llm_has_reply"):
        store(db, alice.claims, a_record(alice.id, source="llm", raw_reply=None))


def test_the_interception_turn_stores_its_record_and_it_loads(api, db, users):
    alice = users.create()
    sid = start(api, alice, users.rule(alice))
    turn = reason(api, alice, sid, BORED)
    assert turn.status == 200, turn.body
    with db.as_owner() as tx:
        turn_row = tx.one("SELECT * FROM public.intercept_turns WHERE session_id = CAST(:s AS uuid)", s=sid)
    assert turn_row is not None

    with db.as_user(alice.claims) as tx:
        record = load_record(tx, str(turn_row["id"]))

    assert record is not None
    assert (record.user_id, record.function_name, record.kind) == (
        alice.id,
        "InterceptSessionFunction",
        "intercept.verdict",
    )
    assert (record.subject_type, record.subject_id) == ("intercept_turn", str(turn_row["id"]))
    assert (record.engine_version, record.config_version) == (
        ENGINE_VERSION,
        f"{persona_config().version}+{judges().version}",
    )
    assert (record.source, record.model, record.raw_reply, record.seed) == ("offline", None, None, None)
    assert record.inputs["reason_text"] == BORED
    assert record.output["ai_verdict"] == turn_row["ai_verdict"] == turn.body["ai_verdict"]
    assert record.output["persona_response"] == turn.body["persona_response"]
