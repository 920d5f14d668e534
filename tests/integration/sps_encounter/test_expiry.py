"""The runtime state is ephemeral (spec §2): an encounter past `expires_at` takes no turn (410
`encounter_expired`, state "expired", nothing written) and reads with `state: null`; the hourly
housekeeping tick and the next encounter its owner starts erase (NULL) the stored state of
expired encounters, and keep their turns and decision records for QA and replay. Every turn
renews the expiry."""

from __future__ import annotations

from datetime import datetime

import pytest

from tests.integration.sps_encounter.helpers import (
    LOCATION,
    ONSET,
    OPENING,
    get_encounter,
    post_turn,
    records_of,
    row_counts,
    start,
    stored_encounter,
    stored_turns,
    take,
)

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")


def _expire(db, encounter_id: str) -> None:
    with db.as_owner() as tx:
        changed = tx.execute(
            "UPDATE public.sps_encounters SET expires_at = now() - interval '1 minute'"
            " WHERE id = CAST(:e AS uuid)",
            e=encounter_id,
        )
    assert changed == 1


@pytest.fixture
def expired(api, users, db):
    """A learner whose encounter took two turns and then expired."""
    learner = users.create()
    encounter = start(api, learner)["encounter_id"]
    take(api, learner, encounter, OPENING)
    take(api, learner, encounter, ONSET)
    _expire(db, encounter)
    return learner, encounter


def _assert_gone(reply) -> None:
    assert reply.status == 410, reply.body
    assert (reply.error["code"], reply.error["state"]) == ("encounter_expired", "expired")
    assert "expired" in reply.error["message"]


def test_a_turn_on_an_expired_encounter_is_410_and_writes_nothing(api, db, expired):
    learner, encounter = expired
    before = row_counts(db, learner.id)
    row_before = stored_encounter(db, encounter)
    _assert_gone(post_turn(api, learner.token, encounter, LOCATION))
    _assert_gone(post_turn(api, learner.token, encounter, LOCATION, key="after-expiry"))
    assert row_counts(db, learner.id) == before
    row_after = stored_encounter(db, encounter)
    assert (row_after["state"], row_after["turn_index"], row_after["expires_at"]) == (
        row_before["state"],
        row_before["turn_index"],
        row_before["expires_at"],
    )


def test_an_expired_encounter_still_reads_with_expired_true(api, db, expired):
    learner, encounter = expired
    detail = get_encounter(api, learner.token, encounter)
    assert detail.status == 200, detail.body
    assert detail.body["expired"] is True
    # The state is over at expiry, before housekeeping erases the row's copy.
    assert stored_encounter(db, encounter)["state"] is not None
    assert detail.body["state"] is None
    assert detail.body["turn_index"] == 4
    assert [t["text"] for t in detail.body["transcript"][0::2]] == [OPENING, ONSET]


def test_starting_another_encounter_erases_the_expired_state_but_keeps_turns_and_records(
    api, users, db, expired
):
    learner, encounter = expired
    live = start(api, learner, seed=7)["encounter_id"]
    take(api, learner, live, OPENING)
    # Another learner's expired encounter is theirs to erase, not this learner's.
    other = users.create()
    others = start(api, other)["encounter_id"]
    take(api, other, others, OPENING)
    _expire(db, others)
    turns_before = stored_turns(db, encounter)
    records_before = records_of(db, learner.id)

    fresh = start(api, learner, seed=8)["encounter_id"]

    erased = stored_encounter(db, encounter)
    assert erased["state"] is None
    assert erased["turn_index"] == 4
    assert stored_turns(db, encounter) == turns_before
    assert records_of(db, learner.id) == records_before
    assert len(records_before) == 3
    # The live encounter and the new one keep their state; so does the other learner's.
    assert stored_encounter(db, live)["state"] is not None
    assert stored_encounter(db, fresh)["state"] is not None
    assert stored_encounter(db, others)["state"] is not None

    detail = get_encounter(api, learner.token, encounter)
    assert detail.status == 200, detail.body
    assert (detail.body["expired"], detail.body["state"]) == (True, None)
    assert len(detail.body["transcript"]) == 4
    # Its turns still replay the way they were taken: the records keep the state they started from.
    assert [
        r["inputs"]["state"]["turnIndex"] for r in records_before if r["inputs"]["encounter_id"] == encounter
    ] == [
        0,
        2,
    ]
    _assert_gone(post_turn(api, learner.token, encounter, LOCATION))
    assert take(api, learner, live, ONSET)["learner_turn_index"] == 2


def test_a_turn_renews_the_expiry(api, users, db):
    learner = users.create()
    started = start(api, learner)
    encounter = started["encounter_id"]
    with db.as_owner() as tx:
        tx.execute(
            "UPDATE public.sps_encounters SET expires_at = now() + interval '1 minute' WHERE id = CAST(:e AS uuid)",
            e=encounter,
        )
    body = take(api, learner, encounter, OPENING)
    renewed = stored_encounter(db, encounter)["expires_at"]
    assert datetime.fromisoformat(body["expires_at"].replace("Z", "+00:00")) == renewed
    assert (renewed - stored_encounter(db, encounter)["updated_at"]).total_seconds() == pytest.approx(
        120 * 60, abs=5
    )


def test_the_hourly_housekeeping_erases_every_expired_state_and_nothing_else(api, users, db, expired):
    from persona_rails_dev.lambda_runtime import LambdaContext, load_handler
    from persona_rails_dev.template import functions
    from sps_encounter.chores import erase_expired_states
    from tests.support.api import load_event

    _, encounter = expired
    other = users.create()  # never starts another encounter: only housekeeping erases theirs
    gone = start(api, other)["encounter_id"]
    take(api, other, gone, OPENING)
    _expire(db, gone)
    live = start(api, other, seed=9)["encounter_id"]
    turns_before = stored_turns(db, gone)
    records_before = records_of(db, other.id)

    # The hourly tick of the encounters' own housekeeping, through its handler and events/ fixture.
    handler = load_handler(functions()["SpsHousekeepingFunction"])
    report = handler(load_event("sps-housekeeping/scheduled.json"), LambdaContext("SpsHousekeepingFunction"))

    assert report["encounter_states_erased"] >= 2
    assert stored_encounter(db, encounter)["state"] is None
    assert stored_encounter(db, gone)["state"] is None
    assert stored_encounter(db, live)["state"] is not None
    assert stored_turns(db, gone) == turns_before
    assert records_of(db, other.id) == records_before
    # A second tick finds nothing left: the chore is idempotent.
    assert erase_expired_states(db) == 0
