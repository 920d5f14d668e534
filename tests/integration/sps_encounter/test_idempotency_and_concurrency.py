"""Retries never take a turn twice, and concurrent turns on one encounter are serialized by
Postgres: each is stored in its own slot (learner indexes 0, 2, 4, …), planned on the state its
predecessor left (the RNG stream continues draw after draw across them).

Each thread calls the real handler, as concurrent Lambda instances would; the pool gives each
its own connection. A barrier releases the threads together.
"""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise

import pytest

from tests.integration.sps_encounter.helpers import (
    LOCATION,
    ONSET,
    OPENING,
    assert_turn,
    decision_record,
    post_start,
    post_turn,
    row_counts,
    start,
    start_body,
    stored_encounter,
    stored_turns,
    take,
    xorshift32,
)

PARALLEL = 8
# Powertools keeps one metrics buffer per process (Lambda runs one invocation at a time); threads
# here share it, so one may flush another's metrics and leave its own flush empty.
pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")


def together(call, n: int = PARALLEL) -> list:
    """`call(i)` for i in 0..n-1 on n threads released at once."""
    barrier = threading.Barrier(n)

    def run(index: int):
        barrier.wait()
        return call(index)

    with ThreadPoolExecutor(max_workers=n) as pool:
        return list(pool.map(run, range(n)))


@pytest.fixture
def opened(api, users):
    learner = users.create()
    return learner, start(api, learner)["encounter_id"]


def test_the_same_idempotency_key_returns_the_stored_turn(api, db, opened):
    learner, encounter = opened
    first = post_turn(api, learner.token, encounter, ONSET, key="retry-me")
    again = post_turn(api, learner.token, encounter, ONSET, key="retry-me")
    assert (first.status, again.status) == (200, 200)
    assert_turn(first.body)
    assert again.body == first.body
    assert row_counts(db, learner.id) == {
        "encounters": 1,
        "turns": 1,
        "records": 1,
        "validations": 0,
        "turn_indexes": 2,
    }
    # Still the stored turn after another turn was taken since (the state is the current one).
    take(api, learner, encounter, LOCATION)
    late = post_turn(api, learner.token, encounter, ONSET, key="retry-me")
    assert late.status == 200
    assert {k: v for k, v in late.body.items() if k not in {"state", "expires_at"}} == {
        k: v for k, v in first.body.items() if k not in {"state", "expires_at"}
    }
    assert row_counts(db, learner.id)["turns"] == 2


def test_a_keyed_retry_after_a_later_turn_answers_exactly_as_the_first_time(api, opened):
    learner, encounter = opened
    first = take(api, learner, encounter, ONSET, key="retry-later")
    take(api, learner, encounter, LOCATION)
    late = post_turn(api, learner.token, encounter, ONSET, key="retry-later")
    assert late.status == 200
    assert late.body["turn_id"] == first["turn_id"]
    assert late.body["state"] == first["state"]


def test_a_key_reused_with_another_text_is_409_and_writes_nothing(api, db, opened):
    learner, encounter = opened
    take(api, learner, encounter, ONSET, key="turn-key-1")
    before = row_counts(db, learner.id)
    reply = post_turn(api, learner.token, encounter, LOCATION, key="turn-key-1")
    assert reply.status == 409, reply.body
    assert (reply.error["code"], reply.error["field"]) == ("idempotency_key_reused", "Idempotency-Key")
    assert row_counts(db, learner.id) == before
    assert stored_encounter(db, encounter)["turn_index"] == 2


def test_the_same_key_on_another_encounter_is_another_turn(api, users, db, opened):
    learner, encounter = opened
    other = start(api, learner, seed=43)["encounter_id"]
    first = take(api, learner, encounter, ONSET, key="shared")
    second = take(api, learner, other, ONSET, key="shared")
    assert first["turn_id"] != second["turn_id"]
    assert row_counts(db, learner.id)["turns"] == 2


def test_a_double_tap_without_a_key_returns_the_stored_turn(api, db, opened):
    learner, encounter = opened
    first = post_turn(api, learner.token, encounter, ONSET)
    again = post_turn(api, learner.token, encounter, ONSET)
    assert (first.status, again.status) == (200, 200)
    assert again.body == first.body
    assert [t["learner_index"] for t in stored_turns(db, encounter)] == [0]
    assert row_counts(db, learner.id)["records"] == 1


def test_the_same_text_after_the_retry_window_is_a_new_turn(api, db, opened):
    learner, encounter = opened
    first = take(api, learner, encounter, ONSET)
    with db.as_owner() as tx:
        tx.execute(
            "UPDATE public.sps_turns SET created_at = created_at - interval '11 seconds' WHERE id = CAST(:t AS uuid)",
            t=first["turn_id"],
        )
    again = take(api, learner, encounter, ONSET)
    assert again["turn_id"] != first["turn_id"]
    assert again["learner_turn_index"] == 2
    # The same question again: the same fact.
    assert again["meta"]["slots"] == first["meta"]["slots"] == {"onset": "three weeks ago"}


def test_the_same_text_after_another_turn_is_a_new_turn(api, db, opened):
    learner, encounter = opened
    take(api, learner, encounter, ONSET)
    take(api, learner, encounter, LOCATION)
    third = take(api, learner, encounter, ONSET)
    assert third["learner_turn_index"] == 4
    assert len(stored_turns(db, encounter)) == 3


def _assert_serialized(db, encounter: str, sent: list, expected: int, seed: int) -> None:
    """Every turn stored once, in consecutive slots, each planned on its predecessor's state."""
    turns = stored_turns(db, encounter)
    assert [t["learner_index"] for t in turns] == list(range(0, 2 * expected, 2))
    assert len({str(t["id"]) for t in turns}) == len(turns) == expected
    by_id = {str(t["id"]): t for t in turns}
    for text, reply in sent:
        body = assert_turn(reply.body)
        stored = by_id[body["turn_id"]]
        assert stored["learner_index"] == body["learner_turn_index"]
        assert stored["learner_text"] == text
        assert stored["patient_text"] == body["text"]
    final = stored_encounter(db, encounter)
    assert final["turn_index"] == final["state"]["turnIndex"] == 2 * expected
    # One RNG stream from the seed, draw after draw, across the turns in the order they were stored.
    rng = seed
    for turn in turns:
        record = decision_record(db, str(turn["id"]))
        assert record["inputs"]["state"]["turnIndex"] == turn["learner_index"]
        assert record["inputs"]["state"]["rngSeed"] == rng == record["seed"]
        for draw in turn["meta"]["rng"]:
            rng = xorshift32(rng)
            assert draw["state"] == rng
    assert final["state"]["rngSeed"] == rng
    for previous, turn in pairwise(turns):
        planned_on = decision_record(db, str(turn["id"]))["inputs"]["state"]
        assert planned_on["lastOpeners"][-1] == previous["meta"]["opening"]["bigram"]


def test_concurrent_turns_on_one_encounter_are_serialized(api, db, opened):
    learner, encounter = opened
    questions = (
        OPENING,
        ONSET,
        LOCATION,
        "What does the pain feel like?",
        "Does it go anywhere else?",
        "What makes it better?",
        "Any allergies?",
        "What do you do for work?",
    )

    def turn(index: int):
        text = questions[index]
        return text, post_turn(api, learner.token, encounter, text)

    sent = together(turn)
    replies = [reply for _, reply in sent]
    assert [r.status for r in replies] == [200] * PARALLEL, [r.body for r in replies if r.status != 200]
    assert sorted(r.body["learner_turn_index"] for r in replies) == list(range(0, 2 * PARALLEL, 2))
    _assert_serialized(db, encounter, sent, PARALLEL, seed=42)
    assert row_counts(db, learner.id)["records"] == PARALLEL


def test_concurrent_turns_keep_being_serialized_over_several_rounds(api, db, opened):
    learner, encounter = opened
    sent = []
    for round_no in range(3):

        def turn(index: int, round_no: int = round_no):
            text = f"Round {round_no}, question {index}: when did it start?"
            return text, post_turn(api, learner.token, encounter, text)

        sent += together(turn, n=6)
    assert [reply.status for _, reply in sent] == [200] * len(sent), [
        r.body for _, r in sent if r.status != 200
    ]
    _assert_serialized(db, encounter, sent, len(sent), seed=42)


def _turn_of(body: dict) -> dict:
    """A reply without the encounter's state and expiry (see the read-skew test below)."""
    return {name: value for name, value in body.items() if name not in {"state", "expires_at"}}


def test_concurrent_identical_keyed_turns_store_exactly_one(api, db, opened):
    learner, encounter = opened
    replies = together(lambda _: post_turn(api, learner.token, encounter, ONSET, key="same-key"))
    assert [r.status for r in replies] == [200] * PARALLEL, [r.body for r in replies]
    assert all(_turn_of(r.body) == _turn_of(replies[0].body) for r in replies)
    assert [t["learner_index"] for t in stored_turns(db, encounter)] == [0]
    assert row_counts(db, learner.id)["records"] == 1


def test_concurrent_identical_turns_without_a_key_store_exactly_one(api, db, opened):
    learner, encounter = opened
    replies = together(lambda _: post_turn(api, learner.token, encounter, ONSET))
    assert [r.status for r in replies] == [200] * PARALLEL, [r.body for r in replies]
    assert all(_turn_of(r.body) == _turn_of(replies[0].body) for r in replies)
    assert len(stored_turns(db, encounter)) == 1


def _wait_for_a_waiter(db, table: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with db.as_owner() as tx:
            waiting = tx.one(
                "SELECT count(*) AS n FROM pg_locks WHERE relation = CAST(:t AS regclass) AND NOT granted",
                t=f"public.{table}",
            )["n"]
        if waiting:
            return
        time.sleep(0.01)
    raise AssertionError(f"no request came to wait on {table}")


@pytest.mark.parametrize("key", ["racing", None], ids=["keyed", "keyless"])
def test_a_retry_read_while_its_turn_commits_answers_the_state_after_it(api, db, opened, key):
    """The interleaving concurrent retries hit by chance, forced: the retry reads the encounter,
    then the first request's turn commits, then the retry reads the turns."""
    learner, encounter = opened
    first = take(api, learner, encounter, ONSET, key=key)
    turn_id = first["turn_id"]
    planned_on = decision_record(db, turn_id)["inputs"]["state"]
    stored = stored_turns(db, encounter)[0]
    # Roll the committed world back to just before the first request's commit...
    with db.as_owner() as tx:
        tx.execute(
            "UPDATE public.sps_encounters SET state = CAST(:s AS jsonb), turn_index = 0 WHERE id = CAST(:e AS uuid)",
            s=json.dumps(planned_on),
            e=encounter,
        )
        tx.execute(
            "UPDATE public.sps_turns SET idempotency_key = NULL, request_fingerprint = 'not yet'"
            " WHERE id = CAST(:t AS uuid)",
            t=turn_id,
        )
    replies: list = []
    retry = threading.Thread(
        target=lambda: replies.append(post_turn(api, learner.token, encounter, ONSET, key=key))
    )
    # ...then commit it again while the retry is between its read of the encounter and of the turns.
    with db.as_owner() as tx:
        tx.execute("LOCK TABLE public.sps_turns IN ACCESS EXCLUSIVE MODE")
        tx.execute(
            "UPDATE public.sps_encounters SET state = CAST(:s AS jsonb), turn_index = 2 WHERE id = CAST(:e AS uuid)",
            s=json.dumps(first["state"]),
            e=encounter,
        )
        tx.execute(
            "UPDATE public.sps_turns SET idempotency_key = :k, request_fingerprint = :f WHERE id = CAST(:t AS uuid)",
            k=stored["idempotency_key"],
            f=stored["request_fingerprint"],
            t=turn_id,
        )
        retry.start()
        _wait_for_a_waiter(db, "sps_turns")
    retry.join(timeout=30)
    (reply,) = replies
    assert reply.status == 200, reply.body
    assert reply.body["turn_id"] == turn_id
    assert len(stored_turns(db, encounter)) == 1
    assert reply.body["state"]["turnIndex"] == reply.body["patient_turn_index"] + 1
    assert reply.body["state"] == first["state"]


def test_a_start_with_the_same_key_twice_is_one_encounter(api, users, db):
    learner = users.create()
    first = post_start(api, learner.token, key="start-once")
    again = post_start(api, learner.token, key="start-once")
    assert (first.status, again.status) == (201, 200)
    assert again.body == first.body
    assert row_counts(db, learner.id)["encounters"] == 1
    # Still the same encounter after turns were taken on it.
    take(api, learner, first.body["encounter_id"], ONSET)
    later = post_start(api, learner.token, key="start-once")
    assert (later.status, later.body["encounter_id"]) == (200, first.body["encounter_id"])
    assert row_counts(db, learner.id)["encounters"] == 1


def test_a_start_key_reused_with_another_body_is_409(api, users, db):
    learner = users.create()
    assert post_start(api, learner.token, key="start-key").status == 201
    before = row_counts(db, learner.id)
    reply = post_start(api, learner.token, start_body(seed=43), key="start-key")
    assert reply.status == 409, reply.body
    assert (reply.error["code"], reply.error["field"]) == ("idempotency_key_reused", "Idempotency-Key")
    assert row_counts(db, learner.id) == before


def test_concurrent_identical_keyed_starts_create_one_encounter(api, users, db):
    learner = users.create()
    replies = together(lambda _: post_start(api, learner.token, key="start-together"))
    assert sorted(r.status for r in replies) == [200] * (PARALLEL - 1) + [201], [r.body for r in replies]
    assert len({r.body["encounter_id"] for r in replies}) == 1
    assert row_counts(db, learner.id)["encounters"] == 1


def test_a_keyless_start_retried_at_once_is_the_same_encounter_until_it_has_turns(api, users, db):
    learner = users.create()
    first = post_start(api, learner.token)
    again = post_start(api, learner.token)
    assert (first.status, again.status) == (201, 200)
    assert again.body["encounter_id"] == first.body["encounter_id"]
    take(api, learner, first.body["encounter_id"], ONSET)
    # Once it has a turn, the same start is another encounter.
    third = post_start(api, learner.token)
    assert third.status == 201
    assert third.body["encounter_id"] != first.body["encounter_id"]
    assert row_counts(db, learner.id)["encounters"] == 2
