"""Retries never take a turn twice, and concurrent turns on one session are serialized by Postgres:
each is stored in its own consecutive slot, planned on the state its predecessor left.

Each thread calls the real handler, as concurrent Lambda instances would; the pool gives each
its own connection. A barrier releases the threads together.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise

import pytest

from tests.integration.interview_turn.helpers import (
    CONCRETE,
    SESSIONS,
    STOP,
    assert_contract,
    assert_turn_response,
    decision_record,
    post_turn,
    row_counts,
    start,
    start_body,
    stored_session,
    stored_turns,
    take,
)

PARALLEL = 6
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
    narrator = users.create()
    return narrator, start(api, narrator)["session_id"]


def test_the_same_idempotency_key_twice_takes_one_turn_and_answers_identically(api, db, opened):
    narrator, sid = opened
    first = post_turn(api, narrator.token, sid, CONCRETE, key="retry-me")
    again = post_turn(api, narrator.token, sid, CONCRETE, key="retry-me")
    assert (first.status, again.status) == (200, 200)
    assert_turn_response(first.body)
    assert again.body == first.body
    assert row_counts(db, narrator.id) == {"sessions": 1, "turns": 2, "records": 2, "turn_counts": 1}
    # Still replayed after another turn has been taken since.
    take(api, narrator, sid, "Then we moved again, to a farm.")
    assert post_turn(api, narrator.token, sid, CONCRETE, key="retry-me").body == first.body
    assert row_counts(db, narrator.id)["turns"] == 3


def test_an_identical_turn_retried_without_a_key_is_replayed_not_taken_again(api, db, opened):
    narrator, sid = opened
    first = post_turn(api, narrator.token, sid, CONCRETE)
    again = post_turn(api, narrator.token, sid, CONCRETE)
    assert (first.status, again.status) == (200, 200)
    assert_turn_response(first.body)
    assert again.body == first.body
    assert row_counts(db, narrator.id)["turns"] == 2
    assert stored_session(db, sid)["turn_count"] == 1


def test_a_different_answer_or_consent_without_a_key_is_a_new_turn(api, db, opened):
    narrator, sid = opened
    first = take(api, narrator, sid, CONCRETE)
    with_consent = take(api, narrator, sid, CONCRETE, consent=True)
    other = take(api, narrator, sid, "My father worked at the shipyard for thirty years.")
    assert [b["turn"]["turn_no"] for b in (first, with_consent, other)] == [1, 2, 3]
    assert row_counts(db, narrator.id)["turns"] == 4


def _assert_serialized(db, sid: str, sent: list, expected_turns: int) -> None:
    """Every turn (text, reply) stored once, in consecutive slots, each planned on its
    predecessor's state."""
    turns = stored_turns(db, sid)
    assert [t["turn_no"] for t in turns] == list(range(expected_turns + 1))
    assert len({str(t["id"]) for t in turns}) == len(turns)
    assert stored_session(db, sid)["turn_count"] == expected_turns
    by_id = {str(t["id"]): t for t in turns}
    for text, reply in sent:
        body = assert_turn_response(reply.body)
        stored = by_id[body["turn"]["turn_id"]]
        assert stored["turn_no"] == body["turn"]["turn_no"]
        assert stored["user_text"] == text
    for previous, turn in pairwise(turns):
        assert turn["depth_level_before"] == previous["depth_level_after"], (
            f"turn {turn['turn_no']} started at depth {turn['depth_level_before']}, "
            f"turn {previous['turn_no']} had left {previous['depth_level_after']}"
        )
        planned_on = decision_record(db, str(turn["id"]))["inputs"]["state"]
        assert planned_on["turn_no"] == previous["turn_no"]
        assert planned_on["last_increase"] == (previous["depth_decision"] == "increase")
        if previous["turn_no"] > 0:
            assert planned_on["topics"]["childhood"]["depth"] == previous["depth_level_after"]
    increases = [t["depth_decision"] == "increase" for t in turns[1:]]
    # Planned on stale state, two turns would both climb from the same level.
    assert not any(a and b for a, b in pairwise(increases))


def test_concurrent_different_turns_are_all_stored_in_consecutive_slots(api, db, opened):
    narrator, sid = opened

    def turn(index: int):
        text = f"Answer {index}: we lived by the harbour and I walked to school."
        return text, post_turn(api, narrator.token, sid, text, consent=True)

    sent = together(turn)
    replies = [reply for _, reply in sent]
    assert [r.status for r in replies] == [200] * PARALLEL, [r.body for r in replies if r.status != 200]
    assert sorted(r.body["turn"]["turn_no"] for r in replies) == list(range(1, PARALLEL + 1))
    _assert_serialized(db, sid, sent, PARALLEL)
    assert row_counts(db, narrator.id)["records"] == PARALLEL + 1


def test_concurrent_turns_keep_being_serialized_over_several_rounds(api, db, opened):
    narrator, sid = opened
    sent = []
    for round_no in range(3):

        def turn(index: int, round_no: int = round_no):
            text = f"Round {round_no}, answer {index}: the harbour, the school, the shipyard."
            return text, post_turn(api, narrator.token, sid, text, consent=True)

        sent += together(turn)
    statuses = [reply.status for _, reply in sent]
    assert statuses == [200] * len(sent), [reply.body for _, reply in sent if reply.status != 200]
    _assert_serialized(db, sid, sent, len(sent))


def test_concurrent_identical_keyed_turns_store_exactly_one(api, db, opened):
    narrator, sid = opened
    replies = together(lambda _: post_turn(api, narrator.token, sid, CONCRETE, key="same-key"))
    assert [r.status for r in replies] == [200] * PARALLEL, [r.body for r in replies]
    assert_turn_response(replies[0].body)
    assert all(r.body == replies[0].body for r in replies)
    assert [t["turn_no"] for t in stored_turns(db, sid)] == [0, 1]
    assert row_counts(db, narrator.id) == {"sessions": 1, "turns": 2, "records": 2, "turn_counts": 1}


def test_concurrent_identical_turns_without_a_key_store_exactly_one(api, db, opened):
    narrator, sid = opened
    replies = together(lambda _: post_turn(api, narrator.token, sid, CONCRETE))
    assert [r.status for r in replies] == [200] * PARALLEL, [r.body for r in replies]
    assert_turn_response(replies[0].body)
    assert all(r.body == replies[0].body for r in replies)
    assert row_counts(db, narrator.id)["turns"] == 2


def test_concurrent_identical_keyed_starts_create_one_session(api, users, db):
    narrator = users.create()
    key = {"Idempotency-Key": "start-once"}
    replies = together(lambda _: api.post(SESSIONS, narrator.token, start_body(), headers=key))
    assert sorted(r.status for r in replies) == [200] * (PARALLEL - 1) + [201], [r.body for r in replies]
    assert len({r.body["session_id"] for r in replies}) == 1
    assert all(r.body == replies[0].body for r in replies)
    assert_contract(replies[0].body["opening"])
    assert row_counts(db, narrator.id) == {"sessions": 1, "turns": 1, "records": 1, "turn_counts": 0}


def test_the_same_start_after_the_interview_was_stopped_is_a_new_interview(api, users, db):
    """A keyless retry only ever replays an open session: a stopped one is history."""
    narrator = users.create()
    first = api.post(SESSIONS, narrator.token, start_body())
    assert first.status == 201
    assert take(api, narrator, first.body["session_id"], STOP)["turn"]["session_status"] == "closed"
    again = api.post(SESSIONS, narrator.token, start_body())
    assert again.status == 201
    assert again.body["session_id"] != first.body["session_id"]
    assert again.body["status"] == "open"
