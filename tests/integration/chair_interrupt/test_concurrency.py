"""Concurrent evaluations of one debate, as concurrent Lambda instances would send them: each
thread calls the real handler (the pool gives each its own connection), released together by a
barrier. The cooldown claim is one statement in Postgres, so a chair interrupts at most once per
cooldown whatever the interleaving; every evaluation still stores its decision record."""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.integration.chair_interrupt.helpers import (
    EVALUATION_ID,
    PIVOTAL,
    STRAW_MAN,
    VIRTUE,
    assert_candidate,
    cooldown_rows,
    evaluate_body,
    interruption_rows,
    new_debate,
    post_evaluate,
    record_of,
    records,
    row_counts,
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


def test_parallel_evaluations_for_one_eligible_chair_interrupt_exactly_once(api, users, db):
    owner = users.create()
    debate = new_debate()
    body = evaluate_body(STRAW_MAN, other_chairs=[VIRTUE])
    replies = together(lambda _: post_evaluate(api, owner.token, debate, body))

    assert [reply.status for reply in replies] == [200] * PARALLEL, [r.body for r in replies]
    winners = [reply for reply in replies if reply.body is not None]
    assert len(winners) == 1, [reply.body for reply in replies]
    (winner,) = winners
    assert_candidate(winner.body)
    assert winner.body["interrupting_chair"] == VIRTUE

    (logged,) = interruption_rows(db, owner.id, debate)
    assert str(logged["id"]) == winner.headers[EVALUATION_ID]
    assert [row["chair_position"] for row in cooldown_rows(db, owner.id, debate)] == ["chair_2"]
    # Every evaluation is recorded; only the winner's record says it interrupted.
    assert row_counts(db, owner.id) == {"cooldowns": 1, "interruptions": 1, "records": PARALLEL}
    outcomes = Counter(record_of(db, reply)["output"]["outcome"] for reply in replies)
    assert outcomes["interrupt"] == 1
    assert set(outcomes) <= {"interrupt", "on_cooldown", "no_eligible_chair"}, outcomes
    assert len({reply.headers[EVALUATION_ID] for reply in replies}) == PARALLEL
    for reply in replies:
        record = record_of(db, reply)
        assert record["inputs"]["cooldown_claimed"] is (reply is winner)


def test_parallel_evaluations_with_two_eligible_chairs_interrupt_at_most_once_per_chair(api, users, db):
    owner = users.create()
    debate = new_debate()
    # A pivotal point any chair may take up, urgent enough at aggressiveness 5.
    body = evaluate_body(PIVOTAL, aggressiveness=5)
    replies = together(lambda _: post_evaluate(api, owner.token, debate, body))

    assert [reply.status for reply in replies] == [200] * PARALLEL, [r.body for r in replies]
    winners = [reply.body["interrupting_chair"]["position"] for reply in replies if reply.body is not None]
    assert 1 <= len(winners) <= 2, winners
    assert len(set(winners)) == len(winners), f"a chair interrupted twice: {winners}"
    logged = [row["interrupting_chair"] for row in interruption_rows(db, owner.id, debate)]
    assert sorted(logged) == sorted(winners)
    assert [row["chair_position"] for row in cooldown_rows(db, owner.id, debate)] == sorted(winners)
    assert len(records(db, owner.id)) == PARALLEL


def test_parallel_evaluations_of_different_debates_do_not_block_each_other(api, users, db):
    owner = users.create()
    debates = [new_debate() for _ in range(PARALLEL)]
    body = evaluate_body(STRAW_MAN, other_chairs=[VIRTUE])
    replies = together(lambda i: post_evaluate(api, owner.token, debates[i], body))
    assert [reply.status for reply in replies] == [200] * PARALLEL
    assert all(reply.body is not None for reply in replies)
    for debate in debates:
        assert len(interruption_rows(db, owner.id, debate)) == 1


def test_rounds_of_parallel_evaluations_with_resets_interrupt_once_per_round(api, users, db):
    owner = users.create()
    debate = new_debate()
    body = evaluate_body(STRAW_MAN, other_chairs=[VIRTUE])
    for round_no in range(1, 4):
        replies = together(lambda _: post_evaluate(api, owner.token, debate, body))
        assert sum(reply.body is not None for reply in replies) == 1
        assert len(interruption_rows(db, owner.id, debate)) == round_no
        reset = api.post(f"/debates/{debate}/interrupts/reset-cooldowns", owner.token)
        assert reset.body["cleared"] == ["chair_2"]


def test_a_zero_second_cooldown_never_blocks_concurrent_evaluations(api, users, db):
    """With no cooldown every concurrent evaluation interrupts, whichever began first."""
    owner = users.create()
    debate = new_debate()
    body = evaluate_body(STRAW_MAN, other_chairs=[VIRTUE], cooldown_seconds=0)
    barrier = threading.Barrier(8)

    def go(_: int):
        barrier.wait()
        return post_evaluate(api, owner.token, debate, body)

    with ThreadPoolExecutor(8) as pool:
        replies = list(pool.map(go, range(8)))
    assert [reply.status for reply in replies] == [200] * 8
    assert all(reply.body is not None for reply in replies)
    assert len(interruption_rows(db, owner.id, debate)) == 8
