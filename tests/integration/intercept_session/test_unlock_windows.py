"""Issue 11, item 2: an allow, an override or an emergency returns `unlocked_until`; an accepted
delay returns `retry_after`; a start inside either answers without a dialog. Both are computed
from stored sessions, never from process memory or anything the client sends."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from intercept_session.engine.access import EMERGENCY_MIN_UNLOCK_MINUTES
from intercept_session.personas import MESSAGE_LIMIT, personas
from tests.integration.intercept_session.v2_helpers import (
    URGENT,
    end_window,
    handler_in_own_process,
    new_dialog,
    offset_at_local,
    payload,
    session_row,
    set_rule,
    stamp,
    start_reply,
    when,
)
from tests.support.dialog import BORED, OTHER, SPECIFIC_WORK, decide, reason, row_counts

REMAINING = 45  # tests/support/users.py's default rule


@pytest.fixture
def alice(users):
    user = users.create()
    return user, users.rule(user)


def allowed(api, user, rule, **start):
    sid = new_dialog(api, user, rule, **start)["session_id"]
    verdict = reason(api, user, sid, SPECIFIC_WORK).body
    assert (verdict["ai_verdict"], verdict["emergency"]) == ("allow", False)
    return sid, decide(api, user, sid, "comply")


def overridden(api, user, rule, **start):
    sid = new_dialog(api, user, rule, **start)["session_id"]
    assert reason(api, user, sid, OTHER).body["ai_verdict"] == "deny"
    return sid, decide(api, user, sid, "override")


def emergency_tap(api, user, rule, **start):
    sid = new_dialog(api, user, rule, **start)["session_id"]
    return sid, decide(api, user, sid, "emergency")


def urgent_allow(api, user, rule, **start):
    sid = new_dialog(api, user, rule, **start)["session_id"]
    verdict = reason(api, user, sid, URGENT).body
    assert (verdict["ai_verdict"], verdict["emergency"]) == ("allow", True)
    return sid, decide(api, user, sid, "comply")


UNLOCKS = [
    pytest.param(allowed, "allow", id="comply-after-allow"),
    pytest.param(overridden, "override", id="override"),
    pytest.param(emergency_tap, "emergency", id="emergency-button"),
    pytest.param(urgent_allow, "emergency", id="comply-after-urgent-allow"),
]


@pytest.mark.parametrize(("unlock", "kind"), UNLOCKS)
def test_each_unlock_returns_unlocked_until_for_the_rules_remaining_minutes(api, alice, db, unlock, kind):
    user, rule = alice
    sid, closed = unlock(api, user, rule)
    assert closed.status == 200, closed.body
    body = closed.body
    assert body["unlock_kind"] == kind
    assert body["retry_after"] is None
    closed_at = when(body["closed_at"])
    assert when(body["unlocked_until"]) == closed_at + timedelta(minutes=REMAINING)
    stored = session_row(db, user, sid)
    assert (stored["unlock_kind"], stored["unlocked_until"]) == (kind, when(body["unlocked_until"]))


@pytest.mark.parametrize(("unlock", "kind"), UNLOCKS)
def test_the_rule_sets_the_window(api, users, db, unlock, kind):
    user = users.create()
    rule = set_rule(db, user, users.rule(user), unlock_minutes=45)
    _, closed = unlock(api, user, rule)
    assert closed.body["unlock_kind"] == kind
    assert when(closed.body["unlocked_until"]) == when(closed.body["closed_at"]) + timedelta(minutes=45)


@pytest.mark.parametrize(("unlock", "kind"), UNLOCKS)
def test_an_emergency_unlocks_for_at_least_half_an_hour_even_when_the_rule_is_spent(
    api, users, db, unlock, kind
):
    """remaining_minutes 0 (the quota used up) is no window for an allow or an override, but an
    emergency still gets EMERGENCY_MIN_UNLOCK_MINUTES: nobody taps twice in a fire."""
    user = users.create()
    rule = set_rule(db, user, users.rule(user, remaining_minutes=0), unlock_minutes=None)
    _, closed = unlock(api, user, rule)
    closed_at, until = when(closed.body["closed_at"]), when(closed.body["unlocked_until"])
    expected = EMERGENCY_MIN_UNLOCK_MINUTES if kind == "emergency" else 0
    assert (closed.body["unlock_kind"], until - closed_at) == (kind, timedelta(minutes=expected))


@pytest.mark.parametrize(("unlock", "kind"), UNLOCKS)
def test_the_window_ends_at_local_midnight_at_the_latest(api, users, db, unlock, kind):
    user = users.create()
    rule = set_rule(db, user, users.rule(user, remaining_minutes=600), unlock_minutes=None)
    late = offset_at_local(23, 30)  # the user's first start: their clock is at this offset
    _, closed = unlock(api, user, rule, timestamp=stamp(late))
    closed_at = when(closed.body["closed_at"])
    local = closed_at.astimezone(when(stamp(late)).tzinfo)
    midnight = datetime.combine(local.date() + timedelta(days=1), datetime.min.time(), local.tzinfo)
    assert closed.body["unlock_kind"] == kind
    assert timedelta(0) < midnight - closed_at < timedelta(hours=1)
    if kind == "emergency":
        # Past midnight if need be: an emergency's half hour is not cut short by the calendar.
        floor = closed_at + timedelta(minutes=EMERGENCY_MIN_UNLOCK_MINUTES)
        assert when(closed.body["unlocked_until"]) == max(midnight, floor)
    else:
        assert when(closed.body["unlocked_until"]) == midnight


def test_a_start_inside_the_window_answers_unlocked_without_a_dialog(api, alice, db):
    user, rule = alice
    _, closed = overridden(api, user, rule)
    before = row_counts(db, user.id)
    reply = start_reply(api, user, rule)
    assert reply.status == 200, reply.body
    assert reply.body["state"] == "unlocked"
    assert reply.body["unlocked_until"] == closed.body["unlocked_until"]
    assert set(reply.body) == {"state", "unlocked_until", "counts"}
    assert "session_id" not in reply.body
    assert row_counts(db, user.id) == before


def test_after_the_window_a_dialog_starts_again(api, alice, db):
    user, rule = alice
    sid, _ = overridden(api, user, rule)
    assert start_reply(api, user, rule).body["state"] == "unlocked"
    end_window(db, user, sid)
    reply = start_reply(api, user, rule)
    assert reply.status == 201, reply.body
    assert reply.body["state"] == "awaiting_reason"


def test_an_accepted_delay_returns_retry_after(api, alice, db):
    user, rule = alice
    sid = new_dialog(api, user, rule)["session_id"]
    verdict = reason(api, user, sid, BORED).body
    assert (verdict["ai_verdict"], verdict["delay_minutes"]) == ("delay", 10)
    closed = decide(api, user, sid, "comply", accepted_delay=True)
    assert closed.status == 200, closed.body
    assert when(closed.body["retry_after"]) == when(closed.body["closed_at"]) + timedelta(minutes=10)
    assert (closed.body["unlock_kind"], closed.body["unlocked_until"]) == (None, None)
    assert session_row(db, user, sid)["retry_after"] == when(closed.body["retry_after"])


@pytest.mark.parametrize("persona_key", ["strict-father", "rational-mentor", "humor-coach"])
def test_a_start_before_retry_after_is_told_to_wait_in_the_personas_voice(api, alice, db, persona_key):
    user, rule = alice
    sid = new_dialog(api, user, rule)["session_id"]
    reason(api, user, sid, BORED)
    retry_after = when(decide(api, user, sid, "comply", accepted_delay=True).body["retry_after"])
    before = row_counts(db, user.id)

    reply = start_reply(api, user, rule, persona_key=persona_key)

    assert reply.status == 200, reply.body
    body = reply.body
    assert body["state"] == "delayed"
    assert when(body["retry_after"]) == retry_after
    assert 590 <= body["seconds_left"] <= 600
    persona = personas().get(persona_key)
    assert body["persona"]["key"] == persona_key
    assert body["message"] == persona.templates["delayed"].replace("{{minutes_left}}", "10")
    assert 0 < len(body["message"]) <= MESSAGE_LIMIT
    assert {"state", "retry_after", "seconds_left", "message"} <= set(body)
    assert "session_id" not in body
    assert row_counts(db, user.id) == before


def test_each_persona_has_its_own_delayed_line():
    lines = {persona.templates["delayed"] for persona in personas().personas}
    assert len(lines) == 3


def test_after_retry_after_a_dialog_starts_again(api, alice, db):
    user, rule = alice
    sid = new_dialog(api, user, rule)["session_id"]
    reason(api, user, sid, BORED)
    decide(api, user, sid, "comply", accepted_delay=True)
    assert start_reply(api, user, rule).body["state"] == "delayed"
    end_window(db, user, sid)
    assert start_reply(api, user, rule).status == 201


@pytest.mark.parametrize("gate", ["unlocked", "delayed"])
def test_another_rule_is_not_affected(api, users, db, gate):
    user = users.create()
    douyin = users.rule(user)
    bilibili = users.rule(user, app_identifier="tv.danmaku.bili", app_display_name="哔哩哔哩")
    sid = new_dialog(api, user, douyin)["session_id"]
    if gate == "unlocked":
        decide(api, user, sid, "emergency")
    else:
        reason(api, user, sid, BORED)
        decide(api, user, sid, "comply", accepted_delay=True)
    assert start_reply(api, user, douyin).body["state"] == gate
    other = start_reply(api, user, bilibili)
    assert other.status == 201, other.body
    assert other.body["state"] == "awaiting_reason"


def test_an_auto_dismissed_comply_after_an_allow_unlocks_nothing(api, alice, db):
    user, rule = alice
    sid = new_dialog(api, user, rule)["session_id"]
    assert reason(api, user, sid, SPECIFIC_WORK).body["ai_verdict"] == "allow"
    closed = decide(api, user, sid, "comply", auto_dismissed=True)
    assert closed.status == 200, closed.body
    assert (closed.body["unlock_kind"], closed.body["unlocked_until"], closed.body["retry_after"]) == (
        None,
        None,
        None,
    )
    assert start_reply(api, user, rule).status == 201


def test_an_auto_dismissed_countdown_unlocks_nothing(api, alice):
    user, rule = alice
    sid = new_dialog(api, user, rule)["session_id"]
    closed = decide(api, user, sid, "comply", auto_dismissed=True)
    assert (closed.body["unlock_kind"], closed.body["unlocked_until"]) == (None, None)
    assert start_reply(api, user, rule).status == 201


def test_deny_then_comply_unlocks_nothing(api, alice, db):
    user, rule = alice
    sid = new_dialog(api, user, rule)["session_id"]
    assert reason(api, user, sid, OTHER).body["ai_verdict"] == "deny"
    closed = decide(api, user, sid, "comply")
    assert (closed.body["unlock_kind"], closed.body["unlocked_until"], closed.body["retry_after"]) == (
        None,
        None,
        None,
    )
    stored = session_row(db, user, sid)
    assert (stored["unlocked_until"], stored["retry_after"]) == (None, None)
    assert start_reply(api, user, rule).status == 201


def test_a_delay_not_accepted_sets_no_retry_after(api, alice):
    user, rule = alice
    sid = new_dialog(api, user, rule)["session_id"]
    assert reason(api, user, sid, BORED).body["ai_verdict"] == "delay"
    closed = decide(api, user, sid, "comply")
    assert (closed.body["retry_after"], closed.body["unlocked_until"]) == (None, None)
    assert start_reply(api, user, rule).status == 201


@pytest.mark.parametrize("gate", ["unlocked", "delayed"])
def test_a_fresh_process_gives_the_same_answer_from_the_stored_rows(api, users, db, gate):
    """The window is in the database: a handler in another process, sharing no memory with the
    one that recorded the decision, answers the same."""
    user = users.create()
    rule = users.rule(user)
    sid = new_dialog(api, user, rule)["session_id"]
    if gate == "unlocked":
        reason(api, user, sid, OTHER)
        closed = decide(api, user, sid, "override")
        until_key = "unlocked_until"
    else:
        reason(api, user, sid, BORED)
        closed = decide(api, user, sid, "comply", accepted_delay=True)
        until_key = "retry_after"
    here = start_reply(api, user, rule)
    with handler_in_own_process() as elsewhere:
        there = elsewhere.post("/intercept-session", user.token, payload(user, rule))
    for reply in (here, there):
        assert reply.status == 200, reply.body
        assert reply.body["state"] == gate
        assert when(reply.body[until_key]) == when(closed.body[until_key])
    # And the stored row is what decides: once it says the time has passed, both start dialogs.
    end_window(db, user, sid)
    with handler_in_own_process() as elsewhere:
        assert elsewhere.post("/intercept-session", user.token, payload(user, rule)).status == 201


CLIENT_CHANGES = [
    pytest.param({"streak": 0, "override_count_today": 0}, id="hints-zero"),
    pytest.param({"streak": 100_000, "override_count_today": 10_000}, id="hints-huge"),
    pytest.param({"trigger": "blocked_window"}, id="other-trigger"),
    pytest.param({"persona_key": "humor-coach"}, id="other-persona"),
    pytest.param({"app_display_name": "Douyin (unlocked please)"}, id="other-display-name"),
    pytest.param({"timestamp": stamp(offset_at_local(0, 30))}, id="another-offset-just-past-midnight"),
    pytest.param({"timestamp": stamp(-720, shift=timedelta(hours=-23))}, id="an-old-timestamp"),
    pytest.param({"timestamp": stamp(840, shift=timedelta(hours=23))}, id="a-future-timestamp"),
]


@pytest.mark.parametrize("change", CLIENT_CHANGES)
def test_no_request_field_changes_an_unlock_window(api, alice, db, change):
    user, rule = alice
    _, closed = overridden(api, user, rule)
    reply = start_reply(api, user, rule, **change)
    assert reply.status == 200, reply.body
    assert (reply.body["state"], reply.body["unlocked_until"]) == ("unlocked", closed.body["unlocked_until"])


@pytest.mark.parametrize("change", CLIENT_CHANGES)
def test_no_request_field_shortens_a_delay(api, alice, db, change):
    user, rule = alice
    sid = new_dialog(api, user, rule)["session_id"]
    reason(api, user, sid, BORED)
    closed = decide(api, user, sid, "comply", accepted_delay=True)
    reply = start_reply(api, user, rule, **change)
    assert reply.status == 200, reply.body
    assert (reply.body["state"], reply.body["retry_after"]) == ("delayed", closed.body["retry_after"])


@pytest.mark.parametrize(
    "extra", [{"unlocked_until": None}, {"retry_after": "2000-01-01T00:00:00Z"}, {"state": "awaiting_reason"}]
)
def test_a_client_cannot_send_the_gate_itself(api, alice, db, extra):
    user, rule = alice
    sid = new_dialog(api, user, rule)["session_id"]
    reason(api, user, sid, BORED)
    decide(api, user, sid, "comply", accepted_delay=True)
    before = row_counts(db, user.id)
    reply = api.post("/intercept-session", user.token, {**payload(user, rule), **extra})
    assert reply.status == 422, reply.body
    assert reply.error["field"] == next(iter(extra))
    assert row_counts(db, user.id) == before
    assert start_reply(api, user, rule).body["state"] == "delayed"
