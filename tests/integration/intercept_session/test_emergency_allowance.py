"""Issue 11, item 1 (the allowance): emergency unlocks stay one tap, are counted server-side
against a weekly allowance set per user (default 3), and past it are flagged: the unlock still
happens, the next challenge mentions it, and a rule may ask for `emergency_reason`. The persona
answers an emergency with care, not scolding."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from intercept_session.personas import MESSAGE_LIMIT, personas
from tests.integration.intercept_session.v2_helpers import (
    SCOLDING,
    URGENT,
    emergency,
    end_window,
    new_dialog,
    set_allowance,
    set_rule,
    start_reply,
    update_session,
)
from tests.support.dialog import BORED, OTHER, decide, reason

PARALLEL = 6
# Powertools keeps one metrics buffer per process (Lambda runs one invocation at a time); threads
# here share it, so one may flush another's metrics and leave its own flush empty.
pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")


def challenge_line(persona_key: str, template: str, app: str = "抖音") -> str:
    return personas().get(persona_key).templates[template].replace("{{app_display_name}}", app)


@pytest.fixture
def alice(users):
    user = users.create()
    return user, users.rule(user)


def test_the_fourth_emergency_this_week_still_unlocks_but_is_flagged(api, alice, db):
    user, rule = alice
    seen, flags = [], []
    for _ in range(4):
        started = new_dialog(api, user, rule)
        seen.append(started["counts"]["emergencies_this_week"])
        assert started["counts"]["emergency_allowance"] == 3
        closed = decide(api, user, started["session_id"], "emergency")
        assert closed.status == 200, closed.body
        assert closed.body["unlock_kind"] == "emergency"
        assert closed.body["unlocked_until"] is not None
        flags.append(closed.body["emergency_over_allowance"])
        end_window(db, user, started["session_id"])
    assert seen == [0, 1, 2, 3]
    assert flags == [False, False, False, True]
    assert new_dialog(api, user, rule)["counts"]["emergencies_this_week"] == 4


def test_the_next_challenge_mentions_the_excess_once(api, alice, db):
    user, rule = alice
    for _ in range(3):
        emergency(api, db, user, rule)
    flagged = emergency(api, db, user, rule)
    assert flagged["emergency_over_allowance"] is True

    told = new_dialog(api, user, rule)
    assert told["emergency_over_allowance_notice"] is True
    assert told["challenge_message"] == challenge_line("strict-father", "challenge_excess")
    assert len(told["challenge_message"]) <= MESSAGE_LIMIT
    # Resuming the dialog shows the same words.
    assert (
        api.get(f"/intercept-session/{told['session_id']}", user.token).body["challenge_message"]
        == (told["challenge_message"])
    )
    decide(api, user, told["session_id"], "comply", auto_dismissed=True)

    after = new_dialog(api, user, rule)
    assert after["emergency_over_allowance_notice"] is False
    assert after["challenge_message"] == challenge_line("strict-father", "challenge")


@pytest.mark.parametrize("persona_key", ["strict-father", "rational-mentor", "humor-coach"])
def test_each_persona_has_an_excess_challenge(api, alice, db, persona_key):
    user, rule = alice
    set_allowance(db, user, 0)
    emergency(api, db, user, rule)
    told = new_dialog(api, user, rule, persona_key=persona_key)
    assert told["challenge_message"] == challenge_line(persona_key, "challenge_excess")
    assert told["challenge_message"] != challenge_line(persona_key, "challenge")


def test_a_notice_waits_for_a_dialog_when_the_next_start_finds_the_app_unlocked(api, alice, db):
    user, rule = alice
    set_allowance(db, user, 0)
    sid = new_dialog(api, user, rule)["session_id"]
    assert decide(api, user, sid, "emergency").body["emergency_over_allowance"] is True
    still_open = start_reply(api, user, rule)
    assert still_open.body["state"] == "unlocked"
    end_window(db, user, sid)
    assert new_dialog(api, user, rule)["emergency_over_allowance_notice"] is True


def test_the_allowance_is_per_user(api, users, db):
    strict, relaxed = users.create(), users.create()
    strict_rule, relaxed_rule = users.rule(strict), users.rule(relaxed)
    set_allowance(db, strict, 1)
    assert new_dialog(api, strict, strict_rule)["counts"]["emergency_allowance"] == 1
    flags_of_strict = [emergency(api, db, strict, strict_rule)["emergency_over_allowance"] for _ in range(2)]
    others = [emergency(api, db, relaxed, relaxed_rule)["emergency_over_allowance"] for _ in range(2)]
    assert flags_of_strict == [False, True]
    assert others == [False, False]
    assert new_dialog(api, relaxed, relaxed_rule)["counts"]["emergency_allowance"] == 3


def test_the_user_can_raise_the_allowance_mid_week(api, alice, db):
    user, rule = alice
    set_allowance(db, user, 1)
    emergency(api, db, user, rule)
    set_allowance(db, user, 5)
    assert emergency(api, db, user, rule)["emergency_over_allowance"] is False


def test_the_settings_row_is_the_users_own(db, users):
    alice, mallory = users.create(), users.create()
    set_allowance(db, alice, 2)
    with db.transaction("authenticated", mallory.claims) as tx:
        assert tx.rows("SELECT * FROM public.intercept_user_settings") == []
        changed = tx.execute(
            "UPDATE public.intercept_user_settings SET emergency_allowance_per_week = 100"
            " WHERE user_id = CAST(:u AS uuid)",
            u=alice.id,
        )
    assert changed == 0


def test_an_urgent_allow_counts_against_the_allowance_like_the_button(api, alice, db):
    user, rule = alice
    set_allowance(db, user, 1)
    emergency(api, db, user, rule)
    sid = new_dialog(api, user, rule)["session_id"]
    verdict = reason(api, user, sid, URGENT).body
    assert (verdict["ai_verdict"], verdict["emergency"]) == ("allow", True)
    closed = decide(api, user, sid, "comply")
    assert (closed.body["unlock_kind"], closed.body["emergency_over_allowance"]) == ("emergency", True)


def test_last_weeks_emergencies_do_not_count(api, alice, db):
    user, rule = alice
    earlier = [emergency(api, db, user, rule)["session_id"] for _ in range(3)]
    for sid in earlier:
        update_session(
            db,
            user,
            sid,
            "created_at = created_at - interval '7 days', closed_at = closed_at - interval '7 days',"
            " unlocked_until = unlocked_until - interval '7 days', local_date = local_date - 7",
        )
    started = new_dialog(api, user, rule)
    assert started["counts"]["emergencies_this_week"] == 0
    assert decide(api, user, started["session_id"], "emergency").body["emergency_over_allowance"] is False


def test_a_rule_may_require_a_reason_past_the_allowance(api, users, db):
    user = users.create()
    rule = set_rule(db, user, users.rule(user), emergency_reason_required_past_allowance=True)
    set_allowance(db, user, 1)
    # Within the allowance, still one tap.
    assert emergency(api, db, user, rule)["emergency_over_allowance"] is False
    sid = new_dialog(api, user, rule)["session_id"]

    for missing in ({}, {"emergency_reason": "   "}):
        refused = decide(api, user, sid, "emergency", **missing)
        assert refused.status == 422, refused.body
        assert refused.error["code"] == "emergency_reason_required"
        assert refused.error["field"] == "emergency_reason"
        assert api.get(f"/intercept-session/{sid}", user.token).body["state"] == "awaiting_reason"

    accepted = decide(api, user, sid, "emergency", emergency_reason="邻居家着火了，要帮忙")
    assert accepted.status == 200, accepted.body
    assert (accepted.body["unlock_kind"], accepted.body["emergency_over_allowance"]) == ("emergency", True)


def test_without_the_opt_in_past_the_allowance_is_still_one_tap(api, alice, db):
    user, rule = alice
    set_allowance(db, user, 0)
    sid = new_dialog(api, user, rule)["session_id"]
    closed = decide(api, user, sid, "emergency")
    assert closed.status == 200, closed.body
    assert closed.body["emergency_over_allowance"] is True


@pytest.mark.parametrize("persona_key", ["strict-father", "rational-mentor", "humor-coach"])
def test_an_emergency_gets_the_personas_caring_line(api, alice, persona_key):
    user, rule = alice
    sid = new_dialog(api, user, rule, persona_key=persona_key)["session_id"]
    closed = decide(api, user, sid, "emergency").body
    persona = personas().get(persona_key)
    assert closed["message"] == persona.templates["emergency"]
    assert 0 < len(closed["message"]) <= MESSAGE_LIMIT
    assert not any(word in closed["message"] for word in SCOLDING), closed["message"]
    assert closed["message"] != persona.templates["allow"]
    # A retried decision answers the same words.
    assert decide(api, user, sid, "emergency").body["message"] == closed["message"]


def test_an_urgent_allow_is_answered_with_care_too(api, alice):
    user, rule = alice
    sid = new_dialog(api, user, rule)["session_id"]
    verdict = reason(api, user, sid, URGENT).body
    assert verdict["emergency"] is True
    assert not any(word in verdict["persona_response"] for word in SCOLDING), verdict["persona_response"]
    closed = decide(api, user, sid, "comply").body
    assert closed["message"] == personas().get("strict-father").templates["emergency"]


@pytest.mark.parametrize(
    ("text", "decision", "extra"),
    [(OTHER, "override", {}), (BORED, "comply", {"accepted_delay": True}), (OTHER, "comply", {})],
)
def test_other_decisions_carry_no_emergency_message(api, alice, text, decision, extra):
    user, rule = alice
    sid = new_dialog(api, user, rule)["session_id"]
    reason(api, user, sid, text)
    closed = decide(api, user, sid, decision, **extra).body
    assert closed["message"] is None
    assert closed["emergency_over_allowance"] is False


def test_parallel_emergencies_flag_exactly_the_ones_past_the_allowance(api, alice, db):
    """At allowance - 1, N emergency taps at once (N dialogs, N Lambda instances): one is the
    last within the allowance, every other one is flagged, whatever the interleaving."""
    user, rule = alice
    allowance = 3
    for _ in range(allowance - 1):
        emergency(api, db, user, rule)
    sids = [new_dialog(api, user, rule)["session_id"] for _ in range(PARALLEL)]
    barrier = threading.Barrier(PARALLEL)

    def tap(sid):
        barrier.wait()
        return decide(api, user, sid, "emergency")

    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        replies = list(pool.map(tap, sids))

    assert [reply.status for reply in replies] == [200] * PARALLEL, [reply.body for reply in replies]
    flags = sorted(reply.body["emergency_over_allowance"] for reply in replies)
    assert flags == [False] + [True] * (PARALLEL - 1)
    with db.as_owner() as tx:
        stored = tx.rows(
            "SELECT emergency_over_allowance AS over, count(*) AS n FROM public.intercept_sessions"
            " WHERE user_id = CAST(:u AS uuid) AND unlock_kind = 'emergency' GROUP BY 1 ORDER BY 1",
            u=user.id,
        )
    assert [(row["over"], row["n"]) for row in stored] == [(False, allowance), (True, PARALLEL - 1)]
