"""What grants an allow comes from the server's own records; the client's numbers are hints."""

from datetime import UTC, datetime, timedelta, timezone

from tests.support.dialog import OTHER, SPECIFIC_WORK, end_windows, override_today, reason, start


def now_at(offset: str) -> str:
    """The phone's clock now, at a UTC offset such as "-02:50" (a start's timestamp is checked
    against the server clock, so a fixed date would go stale)."""
    sign = -1 if offset.startswith("-") else 1
    hours, minutes = offset[1:].split(":")
    zone = timezone(sign * timedelta(hours=int(hours), minutes=int(minutes)))
    return datetime.now(zone).isoformat()


def test_three_server_side_overrides_downgrade_allow_even_if_the_client_says_zero(api, users, db):
    user = users.create()
    rule = users.rule(user)
    override_today(api, db, user, rule, 3)
    sid = start(api, user, rule, override_count_today=0, streak=99)
    body = reason(api, user, sid, SPECIFIC_WORK).body
    assert body["ai_verdict"] == "delay"
    with db.as_owner() as tx:
        turn = tx.one(
            "SELECT override_count_today, streak, justification FROM public.intercept_turns WHERE session_id = CAST(:s AS uuid)",
            s=sid,
        )
        session = tx.one(
            "SELECT client_override_count_today, client_streak FROM public.intercept_sessions WHERE id = CAST(:s AS uuid)",
            s=sid,
        )
    assert turn["override_count_today"] == 3
    assert turn["streak"] == 0
    assert "downgraded" in turn["justification"]
    assert (session["client_override_count_today"], session["client_streak"]) == (0, 99)


def test_a_client_claiming_many_overrides_changes_nothing(api, users):
    user = users.create()
    rule = users.rule(user)
    sid = start(api, user, rule, override_count_today=9)
    assert reason(api, user, sid, SPECIFIC_WORK).body["ai_verdict"] == "allow"


def test_repeated_override_attempts_escalate(api, users, db):
    """Scenario: the same user keeps overriding (each time after the last unlock window ended);
    from the fourth attempt an allow becomes a delay."""
    user = users.create()
    rule = users.rule(user)
    verdicts = []
    for _ in range(5):
        sid = start(api, user, rule)
        verdicts.append(reason(api, user, sid, SPECIFIC_WORK).body["ai_verdict"])
        decided = api.post(f"/intercept-session/{sid}/decision", user.token, {"user_decision": "override"})
        assert decided.status == 200, decided.body
        end_windows(db, user.id)
    assert verdicts == ["allow", "allow", "allow", "delay", "delay"]


def test_emergencies_still_pass_after_many_overrides(api, users, db):
    user = users.create()
    rule = users.rule(user)
    override_today(api, db, user, rule, 3)
    sid = start(api, user, rule)
    body = reason(api, user, sid, "老人摔倒了，医院打电话来").body
    assert (body["ai_verdict"], body["emergency"]) == ("allow", True)


def test_overrides_count_in_the_users_local_day(api, users, db):
    """Sessions store the local date from the server clock at the UTC offset of the user's clock,
    which a new user's first start sets."""
    user = users.create()
    rule = users.rule(user)
    sid = start(api, user, rule, timestamp=now_at("+14:00"))
    with db.as_owner() as tx:
        row = tx.one(
            "SELECT local_date, utc_offset_minutes, (now() AT TIME ZONE 'UTC' + interval '14 hours')::date AS expected"
            " FROM public.intercept_sessions WHERE id = CAST(:s AS uuid)",
            s=sid,
        )
    assert row["utc_offset_minutes"] == 840
    assert row["local_date"] == row["expected"]


def test_streak_counts_days_since_the_last_override(api, users, db):
    user = users.create()
    rule = users.rule(user)
    sid = start(api, user, rule)
    reason(api, user, sid, OTHER)
    api.post(f"/intercept-session/{sid}/decision", user.token, {"user_decision": "override"})
    # Move that override three days back, as if it happened then.
    shift_back(db, sid, days=3)
    sid = start(api, user, rule)
    reason(api, user, sid, OTHER)
    with db.as_owner() as tx:
        assert (
            tx.one("SELECT streak FROM public.intercept_turns WHERE session_id = CAST(:s AS uuid)", s=sid)[
                "streak"
            ]
            == 3
        )


def shift_back(db, session_id, *, days=0, hours=0):
    """Move a session into the past, as if it had happened then (its unlock window or delay too)."""
    with db.as_owner() as tx:
        tx.execute(
            "UPDATE public.intercept_sessions SET local_date = local_date - CAST(:days AS integer),"
            " created_at = created_at - make_interval(days => :days, hours => :hours),"
            " closed_at = closed_at - make_interval(days => :days, hours => :hours),"
            " unlocked_until = unlocked_until - make_interval(days => :days, hours => :hours),"
            " retry_after = retry_after - make_interval(days => :days, hours => :hours),"
            " client_timestamp = client_timestamp - make_interval(days => :days, hours => :hours)"
            " WHERE id = CAST(:s AS uuid)",
            s=session_id,
            days=days,
            hours=hours,
        )


def end_unlock_window(db, session_id):
    """End a session's unlock window now, leaving it where it happened: moving the session back
    instead put it on yesterday whenever the test ran within an hour of the user's midnight."""
    with db.as_owner() as tx:
        tx.execute(
            "UPDATE public.intercept_sessions SET unlocked_until = clock_timestamp() - interval '1 second'"
            " WHERE id = CAST(:s AS uuid) AND unlocked_until IS NOT NULL",
            s=session_id,
        )


def test_another_utc_offset_does_not_reset_todays_overrides(api, users, db):
    user = users.create()
    rule = users.rule(user)
    override_today(api, db, user, rule, 3)  # at UTC+08:00
    for offset in ("-10:00", "+14:00", "-12:00"):
        sid = start(api, user, rule, timestamp=now_at(offset))
        assert reason(api, user, sid, SPECIFIC_WORK).body["ai_verdict"] == "delay", offset


def test_yesterdays_overrides_do_not_count_today(api, users, db):
    user = users.create()
    rule = users.rule(user)
    for _ in range(3):
        sid = start(api, user, rule)
        reason(api, user, sid, OTHER)
        api.post(f"/intercept-session/{sid}/decision", user.token, {"user_decision": "override"})
        shift_back(db, sid, days=1)
    sid = start(api, user, rule)
    assert reason(api, user, sid, SPECIFIC_WORK).body["ai_verdict"] == "allow"


def test_a_session_planted_with_another_offset_cannot_move_midnight(api, users, db):
    """The second review's attack, now against the user's clock: an old session with a far-off
    offset, starts reporting that offset, then overrides. Midnight is the clock's, which only the
    function writes; a new offset waits for a midnight at least 23 hours after today began."""
    user = users.create()
    rule = users.rule(user)
    home = start(api, user, rule)  # the user's first session, days ago: the clock is at +08:00
    shift_back(db, home, days=5)
    planted = start(api, user, rule, timestamp=now_at("-02:50"))
    shift_back(db, planted, hours=23)
    for _ in range(3):
        sid = start(api, user, rule, timestamp=now_at("-02:50"))
        reason(api, user, sid, OTHER)
        decided = api.post(f"/intercept-session/{sid}/decision", user.token, {"user_decision": "override"})
        assert decided.status == 200, decided.body
        end_unlock_window(db, sid)  # its 45-minute unlock window would answer the next start
    sid = start(api, user, rule, timestamp=now_at("-02:50"))
    assert reason(api, user, sid, SPECIFIC_WORK).body["ai_verdict"] == "delay"
    with db.as_owner() as tx:
        clock = tx.one(
            "SELECT * FROM public.intercept_user_clock WHERE user_id = CAST(:u AS uuid)", u=user.id
        )
        last = tx.one(
            "SELECT utc_offset_minutes, local_date,"
            " ((now() AT TIME ZONE 'UTC') + interval '8 hours')::date AS beijing_today"
            " FROM public.intercept_sessions WHERE user_id = CAST(:u AS uuid) AND id = CAST(:s AS uuid)",
            u=user.id,
            s=sid,
        )
    # The far-off offset is only pending, and not before today (begun at +08:00) has lasted 23 hours.
    assert clock["utc_offset_minutes"] == 480
    assert clock["pending_offset_minutes"] == -170
    assert clock["pending_effective_at"] >= clock["pending_day_start"] + timedelta(hours=23)
    assert clock["pending_effective_at"] > datetime.now(UTC)
    # Today is still the clock's day: the session counts in it, at the offset in effect.
    assert last["utc_offset_minutes"] == 480
    assert last["local_date"] == last["beijing_today"]
