"""Issue 11, item 3: the start reply carries the server's counts (never the client's hints), a
rule may opt in to escalating friction, and overrides can be disabled for a blocked window. The
default rule keeps the spec's behaviour."""

from __future__ import annotations

import pytest

from tests.integration.intercept_session.v2_helpers import (
    SPEC_COUNTDOWN,
    emergency,
    new_dialog,
    override,
    session_row,
    set_rule,
    start_reply,
    update_session,
)
from tests.support.dialog import OTHER, SPECIFIC_WORK, decide, reason

ABSURD_HINTS = {"streak": 100_000, "override_count_today": 10_000}
COUNT_KEYS = {"opens_today", "overrides_today", "streak_days", "emergencies_this_week", "emergency_allowance"}


def dismissed(api, user, rule, **start):
    """A dialog that ran out its countdown: it counts as an open and unlocks nothing."""
    body = new_dialog(api, user, rule, **start)
    assert decide(api, user, body["session_id"], "comply", auto_dismissed=True).status == 200
    return body


@pytest.fixture
def alice(users):
    user = users.create()
    return user, users.rule(user)


def test_a_new_users_first_start_counts_from_scratch_whatever_the_hints(api, alice):
    user, rule = alice
    counts = new_dialog(api, user, rule, **ABSURD_HINTS)["counts"]
    assert counts == {
        "opens_today": 1,
        "overrides_today": 0,
        "streak_days": 1,
        "emergencies_this_week": 0,
        "emergency_allowance": 3,
    }


def test_counts_follow_the_stored_history_not_the_hints(api, users, db):
    user = users.create()
    douyin = users.rule(user)
    bilibili = users.rule(user, app_identifier="tv.danmaku.bili", app_display_name="哔哩哔哩")
    dismissed(api, user, douyin, streak=0, override_count_today=0)
    override(api, db, user, bilibili, streak=0, override_count_today=0)
    override(api, db, user, bilibili, streak=0, override_count_today=0)
    emergency(api, db, user, bilibili)

    counts = new_dialog(api, user, douyin, **ABSURD_HINTS)["counts"]

    # Opens are this app's, this dialog included; overrides, streak and emergencies are the user's.
    assert counts == {
        "opens_today": 2,
        "overrides_today": 2,
        "streak_days": 0,
        "emergencies_this_week": 1,
        "emergency_allowance": 3,
    }
    assert new_dialog(api, user, bilibili, streak=0, override_count_today=0)["counts"]["opens_today"] == 4


def test_opens_today_counts_each_dialog_including_this_one(api, alice):
    user, rule = alice
    seen = [dismissed(api, user, rule, **ABSURD_HINTS)["counts"]["opens_today"] for _ in range(4)]
    assert seen == [1, 2, 3, 4]


def test_the_streak_counts_override_free_days(api, alice, db):
    user, rule = alice
    closed = override(api, db, user, rule)
    # That override was three days ago (and so was the user's first dialog).
    update_session(
        db,
        user,
        closed["session_id"],
        "created_at = created_at - interval '3 days', closed_at = closed_at - interval '3 days',"
        " local_date = local_date - 3, unlocked_until = unlocked_until - interval '3 days'",
    )
    counts = new_dialog(api, user, rule, streak=0, override_count_today=7)["counts"]
    assert (counts["streak_days"], counts["overrides_today"]) == (3, 0)


def test_the_unlocked_and_delayed_answers_carry_the_counts_too(api, alice, db):
    user, rule = alice
    sid = new_dialog(api, user, rule)["session_id"]
    reason(api, user, sid, OTHER)
    decide(api, user, sid, "override")
    unlocked = start_reply(api, user, rule, **ABSURD_HINTS).body
    assert unlocked["state"] == "unlocked"
    assert set(unlocked["counts"]) == COUNT_KEYS
    # No dialog was started by this answer: the one open today is still the only one.
    assert (unlocked["counts"]["opens_today"], unlocked["counts"]["overrides_today"]) == (1, 1)


def test_the_default_rule_keeps_the_specs_20_seconds_for_every_open(api, alice):
    user, rule = alice
    countdowns = [dismissed(api, user, rule)["countdown_seconds"] for _ in range(6)]
    assert countdowns == [SPEC_COUNTDOWN] * 6


def test_escalating_friction_grows_with_todays_opens_up_to_the_cap(api, users, db):
    user = users.create()
    rule = set_rule(db, user, users.rule(user), friction_growth_seconds=15, friction_cap_seconds=60)
    opened = [dismissed(api, user, rule) for _ in range(6)]
    assert [body["countdown_seconds"] for body in opened] == [20, 35, 50, 60, 60, 60]
    # What the dialog showed is stored, served on resume and reported in the event.
    last = opened[-1]["session_id"]
    assert session_row(db, user, last)["countdown_seconds"] == 60
    assert api.get(f"/intercept-session/{last}", user.token).body["countdown_seconds"] == 60


def test_friction_uses_the_default_cap_of_120_seconds(api, users, db):
    user = users.create()
    rule = set_rule(db, user, users.rule(user), friction_growth_seconds=50)
    assert [dismissed(api, user, rule)["countdown_seconds"] for _ in range(4)] == [20, 70, 120, 120]


def test_friction_counts_todays_attempts_only(api, users, db):
    user = users.create()
    rule = set_rule(db, user, users.rule(user), friction_growth_seconds=10)
    earlier = [dismissed(api, user, rule)["session_id"] for _ in range(3)]
    for sid in earlier:
        update_session(
            db,
            user,
            sid,
            "created_at = created_at - interval '1 day', closed_at = closed_at - interval '1 day',"
            " local_date = local_date - 1",
        )
    assert dismissed(api, user, rule)["countdown_seconds"] == SPEC_COUNTDOWN


def test_hints_do_not_escalate_or_relax_friction(api, users, db):
    user = users.create()
    rule = set_rule(db, user, users.rule(user), friction_growth_seconds=15, friction_cap_seconds=60)
    first = dismissed(api, user, rule, streak=0, override_count_today=10_000)
    second = dismissed(api, user, rule, streak=100_000, override_count_today=0)
    assert (first["countdown_seconds"], second["countdown_seconds"]) == (20, 35)


def test_overrides_can_be_disabled_in_the_rules_blocked_window(api, users, db):
    user = users.create()
    rule = set_rule(db, user, users.rule(user), overrides_disabled_in_blocked_window=True)
    started = new_dialog(api, user, rule, trigger="blocked_window")
    sid = started["session_id"]
    assert started["override_allowed"] is False
    assert reason(api, user, sid, OTHER).body["ai_verdict"] == "deny"

    refused = decide(api, user, sid, "override")

    assert refused.status == 409, refused.body
    assert refused.error["code"] == "override_disabled"
    assert refused.error["state"] == "awaiting_decision"
    resumed = api.get(f"/intercept-session/{sid}", user.token).body
    assert (resumed["state"], resumed["override_allowed"], resumed["decision"]) == (
        "awaiting_decision",
        False,
        None,
    )
    # Complying (or an emergency) still closes it.
    assert decide(api, user, sid, "comply").status == 200


def test_the_blocked_window_setting_leaves_quota_starts_alone(api, users, db):
    user = users.create()
    rule = set_rule(db, user, users.rule(user), overrides_disabled_in_blocked_window=True)
    started = new_dialog(api, user, rule, trigger="quota_exceeded")
    assert started["override_allowed"] is True
    reason(api, user, started["session_id"], OTHER)
    closed = decide(api, user, started["session_id"], "override")
    assert closed.status == 200, closed.body
    assert closed.body["unlock_kind"] == "override"


def test_an_emergency_is_never_disabled(api, users, db):
    user = users.create()
    rule = set_rule(db, user, users.rule(user), overrides_disabled_in_blocked_window=True)
    sid = new_dialog(api, user, rule, trigger="blocked_window")["session_id"]
    closed = decide(api, user, sid, "emergency")
    assert closed.status == 200, closed.body
    assert closed.body["unlock_kind"] == "emergency"


def test_by_default_a_blocked_window_start_may_override(api, alice):
    user, rule = alice
    started = new_dialog(api, user, rule, trigger="blocked_window")
    assert started["override_allowed"] is True
    assert reason(api, user, started["session_id"], SPECIFIC_WORK).status == 200
    assert decide(api, user, started["session_id"], "override").status == 200
