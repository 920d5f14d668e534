"""What grants an allow comes from the server's own records; the client's numbers are hints."""

from tests.support.dialog import OTHER, SPECIFIC_WORK, override_today, reason, start


def test_three_server_side_overrides_downgrade_allow_even_if_the_client_says_zero(api, users, db):
    user = users.create()
    rule = users.rule(user)
    override_today(api, user, rule, 3)
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


def test_repeated_override_attempts_escalate(api, users):
    """Scenario: the same user keeps overriding; from the fourth attempt an allow becomes a delay."""
    user = users.create()
    rule = users.rule(user)
    verdicts = []
    for _ in range(5):
        sid = start(api, user, rule)
        verdicts.append(reason(api, user, sid, SPECIFIC_WORK).body["ai_verdict"])
        api.post(f"/intercept-session/{sid}/decision", user.token, {"user_decision": "override"})
    assert verdicts == ["allow", "allow", "allow", "delay", "delay"]


def test_emergencies_still_pass_after_many_overrides(api, users):
    user = users.create()
    rule = users.rule(user)
    override_today(api, user, rule, 3)
    sid = start(api, user, rule)
    body = reason(api, user, sid, "老人摔倒了，医院打电话来").body
    assert (body["ai_verdict"], body["emergency"]) == ("allow", True)


def test_overrides_count_in_the_users_local_day(api, users, db):
    """Sessions store the local date from the server clock at the client's UTC offset."""
    user = users.create()
    rule = users.rule(user)
    sid = start(api, user, rule, timestamp="2026-01-01T00:00:00+14:00")
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
    """Move a session into the past, as if it had happened then."""
    with db.as_owner() as tx:
        tx.execute(
            "UPDATE public.intercept_sessions SET local_date = local_date - CAST(:days AS integer),"
            " created_at = created_at - make_interval(days => :days, hours => :hours),"
            " closed_at = closed_at - make_interval(days => :days, hours => :hours),"
            " client_timestamp = client_timestamp - make_interval(days => :days, hours => :hours)"
            " WHERE id = CAST(:s AS uuid)",
            s=session_id,
            days=days,
            hours=hours,
        )


def test_another_utc_offset_does_not_reset_todays_overrides(api, users):
    user = users.create()
    rule = users.rule(user)
    override_today(api, user, rule, 3)  # at UTC+08:00
    for offset in ("-10:00", "+14:00", "-12:00"):
        sid = start(api, user, rule, timestamp=f"2026-11-22T09:30:00{offset}")
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
    """The second review's attack: an old open session with a far-off offset, then overrides."""
    user = users.create()
    rule = users.rule(user)
    home = start(api, user, rule)  # the user's first session, days ago: home offset +08:00
    shift_back(db, home, days=5)
    planted = start(api, user, rule, timestamp="2026-11-21T01:30:00-02:50")
    shift_back(db, planted, hours=23)
    sessions = []
    for _ in range(3):
        sid = start(api, user, rule)
        reason(api, user, sid, OTHER)
        api.post(f"/intercept-session/{sid}/decision", user.token, {"user_decision": "override"})
        sessions.append(sid)
    for sid in sessions:
        shift_back(db, sid, hours=1)
    sid = start(api, user, rule)
    assert reason(api, user, sid, SPECIFIC_WORK).body["ai_verdict"] == "delay"
