"""Issue 11, item 4: a dialog still open after its countdown plus a grace period (default 10
minutes) is closed as an auto-dismissed `comply`, marked `abandoned`, and emits
`interception.dialog_completed` exactly once, whether the user's next start or the scheduled
function gets to it first (or both, or a retried tick)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from intercept_session.chores import run_housekeeping
from persona_rails.settings import InterceptSettings
from persona_rails_dev.lambda_runtime import LambdaContext, load_handler
from persona_rails_dev.template import functions
from tests.integration.intercept_session.v2_helpers import (
    DEFAULT_GRACE_SECONDS,
    SPEC_COUNTDOWN,
    completed_events,
    new_dialog,
    session_row,
    set_rule,
    update_session,
)
from tests.support.api import load_event
from tests.support.dialog import BORED, decide, reason

# Powertools keeps one metrics buffer per process; the tick publishes its own.
pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")

DEADLINE = SPEC_COUNTDOWN + DEFAULT_GRACE_SECONDS


def age(db, user, sid, seconds):
    """The dialog was started `seconds` ago (and its turns, if any, moved along with it)."""
    update_session(
        db,
        user,
        sid,
        "created_at = created_at - make_interval(secs => :secs),"
        " client_timestamp = client_timestamp - make_interval(secs => :secs)",
        secs=seconds,
    )
    with db.as_owner() as tx:
        tx.execute(
            "UPDATE public.intercept_turns SET created_at = created_at - make_interval(secs => :secs)"
            " WHERE user_id = CAST(:u AS uuid) AND session_id = CAST(:s AS uuid)",
            u=user.id,
            s=sid,
            secs=seconds,
        )


def tick():
    """The hourly EventBridge tick of the dialog's own housekeeping, through the real handler
    with the events/ fixture."""
    handler = load_handler(functions()["InterceptHousekeepingFunction"])
    return handler(
        load_event("intercept-housekeeping/scheduled.json"), LambdaContext("InterceptHousekeepingFunction")
    )


def assert_abandoned(db, user, sid, *, closed_at):
    row = session_row(db, user, sid)
    assert (row["state"], row["user_decision"], row["auto_dismissed"], row["abandoned"]) == (
        "closed",
        "comply",
        True,
        True,
    )
    assert row["accepted_delay"] is False
    assert (row["unlock_kind"], row["unlocked_until"], row["retry_after"]) == (None, None, None)
    assert row["closed_at"] == closed_at
    (event,) = completed_events(db, user, sid)
    props = event["properties"]
    assert (props["abandoned"], props["auto_dismissed"], props["user_decision"]) == (True, True, "comply")
    assert props["unlock_kind"] is None
    latency = (closed_at - row["created_at"]).total_seconds() * 1000
    assert abs(props["response_latency_ms"] - latency) <= 1
    return row, props


@pytest.fixture
def alice(users):
    user = users.create()
    douyin = users.rule(user)
    bilibili = users.rule(user, app_identifier="tv.danmaku.bili", app_display_name="哔哩哔哩")
    return user, douyin, bilibili


def test_the_users_next_start_of_any_rule_closes_a_dialog_left_open(api, alice, db):
    user, douyin, bilibili = alice
    sid = new_dialog(api, user, douyin)["session_id"]
    age(db, user, sid, DEADLINE + 5)
    created = session_row(db, user, sid)["created_at"]

    assert new_dialog(api, user, bilibili)["state"] == "awaiting_reason"

    _, props = assert_abandoned(db, user, sid, closed_at=created + timedelta(seconds=DEADLINE))
    assert props["countdown_seconds"] == SPEC_COUNTDOWN
    resumed = api.get(f"/intercept-session/{sid}", user.token).body
    assert resumed["state"] == "closed"
    assert (resumed["decision"]["abandoned"], resumed["decision"]["auto_dismissed"]) == (True, True)
    assert resumed["decision"]["unlocked_until"] is None


def test_an_abandoned_dialog_unlocks_nothing_and_still_counts_as_an_open(api, alice, db):
    user, douyin, _ = alice
    sid = new_dialog(api, user, douyin)["session_id"]
    age(db, user, sid, DEADLINE + 5)
    again = new_dialog(api, user, douyin)
    assert again["counts"]["opens_today"] == 2
    assert session_row(db, user, sid)["abandoned"] is True


def test_a_dialog_inside_its_grace_is_left_alone_by_both_paths(api, alice, db):
    user, douyin, bilibili = alice
    sid = new_dialog(api, user, douyin)["session_id"]
    age(db, user, sid, DEADLINE - 30)
    new_dialog(api, user, bilibili)
    run_housekeeping(db, InterceptSettings())
    row = session_row(db, user, sid)
    assert (row["state"], row["abandoned"], row["closed_at"]) == ("awaiting_reason", False, None)
    assert completed_events(db, user, sid) == []
    # The user is still there: their decision closes it as usual.
    closed = decide(api, user, sid, "comply")
    assert closed.status == 200, closed.body
    assert closed.body["abandoned"] is False


def test_the_deadline_follows_the_countdown_the_dialog_showed(api, users, db):
    user = users.create()
    rule = set_rule(db, user, users.rule(user), friction_growth_seconds=30, friction_cap_seconds=50)
    first = new_dialog(api, user, rule)
    decide(api, user, first["session_id"], "comply", auto_dismissed=True)
    second = new_dialog(api, user, rule)
    assert second["countdown_seconds"] == 50
    sid = second["session_id"]
    age(db, user, sid, 50 + DEFAULT_GRACE_SECONDS - 10)  # past 20 s + grace, not past 50 s + grace
    run_housekeeping(db, InterceptSettings())
    assert session_row(db, user, sid)["state"] == "awaiting_reason"
    age(db, user, sid, 20)
    run_housekeeping(db, InterceptSettings())
    created = session_row(db, user, sid)["created_at"]
    _, props = assert_abandoned(
        db, user, sid, closed_at=created + timedelta(seconds=50 + DEFAULT_GRACE_SECONDS)
    )
    assert props["countdown_seconds"] == 50


def test_closed_at_is_never_before_the_last_turn(api, alice, db):
    """A reason came in long after the deadline (the app was alive but never decided): the
    dialog closes at that turn, not at the deadline before it."""
    user, douyin, bilibili = alice
    sid = new_dialog(api, user, douyin)["session_id"]
    assert reason(api, user, sid, BORED).status == 200
    age(db, user, sid, 7200)
    with db.as_owner() as tx:
        tx.execute(
            "UPDATE public.intercept_turns SET created_at = created_at + interval '1 hour'"
            " WHERE user_id = CAST(:u AS uuid) AND session_id = CAST(:s AS uuid)",
            u=user.id,
            s=sid,
        )
        turn = tx.one(
            "SELECT created_at FROM public.intercept_turns WHERE user_id = CAST(:u AS uuid)"
            " AND session_id = CAST(:s AS uuid)",
            u=user.id,
            s=sid,
        )
    new_dialog(api, user, bilibili)
    row, props = assert_abandoned(db, user, sid, closed_at=turn["created_at"])
    assert row["final_verdict"] == "delay"
    assert props["response_latency_ms"] >= 3600 * 1000
    assert props["ai_verdict"] == "delay"
    with db.as_owner() as tx:
        decisions = tx.rows(
            "SELECT user_decision FROM public.intercept_turns WHERE user_id = CAST(:u AS uuid)"
            " AND session_id = CAST(:s AS uuid)",
            u=user.id,
            s=sid,
        )
    assert [turn["user_decision"] for turn in decisions] == ["comply"]


def test_a_turn_before_the_deadline_leaves_the_deadline_as_closed_at(api, alice, db):
    user, douyin, bilibili = alice
    sid = new_dialog(api, user, douyin)["session_id"]
    reason(api, user, sid, BORED)
    age(db, user, sid, DEADLINE + 60)
    new_dialog(api, user, bilibili)
    created = session_row(db, user, sid)["created_at"]
    assert_abandoned(db, user, sid, closed_at=created + timedelta(seconds=DEADLINE))


def test_another_users_start_does_not_close_my_dialog(api, users, alice, db):
    user, douyin, _ = alice
    sid = new_dialog(api, user, douyin)["session_id"]
    age(db, user, sid, DEADLINE + 5)
    bob = users.create()
    new_dialog(api, bob, users.rule(bob))
    assert session_row(db, user, sid)["state"] == "awaiting_reason"
    assert completed_events(db, user, sid) == []


def test_the_scheduled_tick_closes_every_users_stale_dialogs_once(api, users, db):
    people = [users.create() for _ in range(2)]
    stale = []
    for person in people:
        rule = users.rule(person)
        stale += [(person, new_dialog(api, person, rule)["session_id"]) for _ in range(2)]
    # Aged only now: a start closes its user's earlier stale dialogs itself.
    for person, sid in stale:
        age(db, person, sid, DEADLINE + 5)

    report = tick()

    assert report["abandoned_closed"] >= len(stale)
    for person, sid in stale:
        created = session_row(db, person, sid)["created_at"]
        assert_abandoned(db, person, sid, closed_at=created + timedelta(seconds=DEADLINE))
    before = {sid: session_row(db, person, sid)["closed_at"] for person, sid in stale}
    # A retried tick (the scheduler's retry policy, Lambda's own) closes nothing twice.
    tick()
    run_housekeeping(db, InterceptSettings())
    for person, sid in stale:
        assert len(completed_events(db, person, sid)) == 1
        assert session_row(db, person, sid)["closed_at"] == before[sid]


def test_the_start_then_the_tick_emit_one_event(api, alice, db):
    user, douyin, bilibili = alice
    sid = new_dialog(api, user, douyin)["session_id"]
    age(db, user, sid, DEADLINE + 5)
    new_dialog(api, user, bilibili)
    tick()
    assert len(completed_events(db, user, sid)) == 1


def test_the_tick_then_the_start_emit_one_event(api, alice, db):
    user, douyin, bilibili = alice
    sid = new_dialog(api, user, douyin)["session_id"]
    age(db, user, sid, DEADLINE + 5)
    run_housekeeping(db, InterceptSettings())
    closed_at = session_row(db, user, sid)["closed_at"]
    new_dialog(api, user, bilibili)
    new_dialog(api, user, douyin)
    assert len(completed_events(db, user, sid)) == 1
    assert session_row(db, user, sid)["closed_at"] == closed_at


def test_the_sql_sweep_is_idempotent(api, alice, db):
    user, douyin, _ = alice
    sid = new_dialog(api, user, douyin)["session_id"]
    age(db, user, sid, DEADLINE + 5)
    with db.as_user(user.claims) as tx:
        first = tx.one("SELECT public.intercept_close_abandoned(:g) AS n", g=DEFAULT_GRACE_SECONDS)
    with db.as_user(user.claims) as tx:
        second = tx.one("SELECT public.intercept_close_abandoned(:g) AS n", g=DEFAULT_GRACE_SECONDS)
    assert (first["n"], second["n"]) == (1, 0)
    assert len(completed_events(db, user, sid)) == 1


@pytest.mark.parametrize(
    ("path", "body", "code"),
    [
        ("decision", {"user_decision": "comply"}, "session_closed"),
        ("decision", {"user_decision": "emergency"}, "session_closed"),
        ("reason", {"reason_text": BORED}, "session_closed"),
    ],
)
@pytest.mark.parametrize("closed_first", [True, False], ids=["after-a-start", "by-itself"])
def test_a_late_request_on_an_abandoned_dialog_is_409(api, alice, db, path, body, code, closed_first):
    """Past the deadline the dialog is abandoned whether or not a start or the housekeeping has
    closed it yet: the late request closes it itself, as the sweep would, and is refused."""
    user, douyin, bilibili = alice
    sid = new_dialog(api, user, douyin)["session_id"]
    age(db, user, sid, DEADLINE + 5)
    created = session_row(db, user, sid)["created_at"]
    if closed_first:
        new_dialog(api, user, bilibili)
    reply = api.post(f"/intercept-session/{sid}/{path}", user.token, body)
    assert reply.status == 409, reply.body
    assert (reply.error["code"], reply.error["state"]) == (code, "closed")
    assert_abandoned(db, user, sid, closed_at=created + timedelta(seconds=DEADLINE))
