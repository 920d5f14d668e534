"""Concurrent duplicate requests: Postgres settles every race, and retries never duplicate rows.

Each thread calls the real handler, as concurrent Lambda instances would; the pool gives each
its own connection.
"""

import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.support.api import trigger_payload
from tests.support.dialog import BORED, WORK_APPEAL, decide, reason, row_counts, start

PARALLEL = 8
# Powertools keeps one metrics buffer per process (Lambda runs one invocation at a time); threads
# here share it, so one may flush another's metrics and leave its own flush empty.
pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")


def together(call, n=PARALLEL):
    with ThreadPoolExecutor(max_workers=n) as pool:
        return list(pool.map(lambda _: call(), range(n)))


@pytest.fixture
def alice(users):
    user = users.create()
    return user, users.rule(user)


def test_duplicate_starts_create_one_session(api, alice, db):
    user, rule = alice
    payload = trigger_payload(user.id, rule, session_id=str(uuid.uuid4()))
    replies = together(lambda: api.post("/intercept-session", user.token, payload))
    assert sorted(r.status for r in replies) == [200] * (PARALLEL - 1) + [201]
    assert len({r.body["session_id"] for r in replies}) == 1
    assert row_counts(db, user.id)["intercept_sessions"] == 1


def test_duplicate_reasons_create_one_turn_and_agree(api, alice, db):
    user, rule = alice
    sid = start(api, user, rule)
    replies = together(lambda: reason(api, user, sid, BORED))
    assert {r.status for r in replies} == {200}
    assert len({str(sorted(r.body.items())) for r in replies}) == 1
    assert row_counts(db, user.id)["intercept_turns"] == 1


def test_racing_different_appeals_let_exactly_one_through(api, alice, db):
    user, rule = alice
    sid = start(api, user, rule)
    reason(api, user, sid, BORED)
    texts = iter([f"{WORK_APPEAL} 第{i}次" for i in range(PARALLEL)])
    replies = together(
        lambda: api.post(f"/intercept-session/{sid}/appeal", user.token, {"appeal_text": next(texts)})
    )
    assert sorted(r.status for r in replies) == [200] + [409] * (PARALLEL - 1)
    assert {r.error["code"] for r in replies if r.status == 409} == {"appeal_limit_reached"}
    assert row_counts(db, user.id)["intercept_turns"] == 2


def test_duplicate_decisions_close_once_and_emit_one_event(api, alice, db):
    user, rule = alice
    sid = start(api, user, rule)
    reason(api, user, sid, BORED)
    replies = together(lambda: decide(api, user, sid, "override"))
    assert {r.status for r in replies} == {200}
    assert len({r.body["closed_at"] for r in replies}) == 1
    assert row_counts(db, user.id)["analytics_events"] == 1


def test_a_decision_racing_a_reason_never_leaves_a_half_written_session(api, alice, db):
    user, rule = alice
    sid = start(api, user, rule)
    with ThreadPoolExecutor(max_workers=2) as pool:
        turn = pool.submit(reason, api, user, sid, BORED)
        close = pool.submit(decide, api, user, sid, "emergency", emergency_reason="家里着火了")
    assert close.result().status == 200
    assert turn.result().status in (200, 409)
    with db.as_owner() as tx:
        session = tx.one("SELECT * FROM public.intercept_sessions WHERE id = CAST(:s AS uuid)", s=sid)
        turns = tx.one(
            "SELECT count(*) AS n FROM public.intercept_turns WHERE session_id = CAST(:s AS uuid)", s=sid
        )["n"]
    assert session["state"] == "closed"
    assert session["evaluation_turns"] == turns
