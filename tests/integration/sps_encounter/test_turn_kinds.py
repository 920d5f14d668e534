"""Every kind of patient turn the engine can give is one the database stores: a kind missing from
`sps_turns.kind`'s CHECK turns that reply into a failed write. "Are you an actor?" (the role
question, answered in role since issue 22) once did, as a 500."""

from __future__ import annotations

import re

import pytest

from sps_encounter.engine.respond import Kind
from tests.integration.sps_encounter.helpers import OPENING, post_turn, start, stored_turns, take

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")


def test_the_stored_kinds_are_the_engines_kinds(db):
    with db.as_owner() as tx:
        row = tx.one(
            "SELECT pg_get_constraintdef(c.oid) AS definition FROM pg_constraint c"
            " WHERE c.conrelid = 'public.sps_turns'::regclass AND c.conname = 'sps_turns_kind_check'"
        )
    assert row is not None
    assert set(re.findall(r"'([a-z_]+)'::text", row["definition"])) == {kind.value for kind in Kind}


@pytest.mark.parametrize("question", ["Are you an actor?", "Sorry, are you a real patient or an actor?"])
def test_a_role_question_is_answered_in_role_and_stored(api, users, db, question):
    learner = users.create()
    encounter = start(api, learner)["encounter_id"]
    take(api, learner, encounter, OPENING)
    reply = post_turn(api, learner.token, encounter, question)
    assert reply.status == 200, reply.body
    assert stored_turns(db, encounter)[-1]["kind"] == Kind.IN_ROLE.value
