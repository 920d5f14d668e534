"""Issue 11, item 5: "today" follows the user and can't be gamed. An offset change takes effect
from the next local midnight, so it cannot reset today's count, and a traveller's day follows
them from tomorrow: shown for a DST change and for a Beijing -> New York trip (and back).

The SQL functions take the time as an argument, so each scenario plays its dates here, as the
function role acting for the user (what the service does); the API scenarios use today."""

from __future__ import annotations

import itertools
import random
from datetime import UTC, date, datetime, timedelta

import pytest

from persona_rails.db import DbError
from tests.integration.intercept_session.v2_helpers import (
    MORNING,
    new_dialog,
    offset_at_local,
    override,
    session_row,
    stamp,
)
from tests.support.dialog import SPECIFIC_WORK, reason
from tests.support.history import add_session

BEIJING, NEW_YORK_WINTER, NEW_YORK_SUMMER = 480, -300, -240
HOUR = timedelta(hours=1)


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def observe(tx, offset: int, now: datetime) -> dict:
    """A start reporting `offset` at `now`: the day the service would count in."""
    return tx.one(
        "SELECT * FROM public.intercept_observe_offset(CAST(:o AS integer), CAST(:t AS timestamptz))",
        o=offset,
        t=now.isoformat(),
    )


def local_day(tx, offset: int, now: datetime) -> dict:
    return tx.one(
        "SELECT * FROM public.intercept_local_day(CAST(:o AS integer), CAST(:t AS timestamptz))",
        o=offset,
        t=now.isoformat(),
    )


def overrides_today(tx, offset: int, now: datetime) -> int:
    row = tx.one(
        "SELECT overrides_today FROM public.intercept_start_context('', CAST(:o AS integer),"
        " CAST(:t AS timestamptz))",
        o=offset,
        t=now.isoformat(),
    )
    return int(row["overrides_today"])


def clock_of(tx) -> dict:
    return tx.one("SELECT * FROM public.intercept_user_clock")


def span(day: dict) -> timedelta:
    return day["day_end"] - day["day_start"]


def an_override(db, user, local: datetime, offset: int) -> None:
    add_session(
        db,
        user.id,
        local_start=local,
        offset_minutes=offset,
        category="other",
        verdict="deny",
        decision="override",
    )


def test_dst_fall_back_gives_one_25_hour_day(db, users):
    """New York, Sunday 2026-11-01: at 02:00 EDT the clocks go back to 01:00 EST."""
    user = users.create()
    an_override(db, user, datetime(2026, 11, 1, 1, 0), NEW_YORK_SUMMER)
    with db.as_user(user.claims) as tx:
        observe(tx, NEW_YORK_SUMMER, utc("2026-10-31T16:00:00"))
        before = observe(tx, NEW_YORK_SUMMER, utc("2026-11-01T05:30:00"))  # 01:30 EDT
        assert (before["local_date"], span(before)) == (date(2026, 11, 1), 24 * HOUR)

        after = observe(tx, NEW_YORK_WINTER, utc("2026-11-01T07:00:00"))  # 02:00 EST: the phone says -05:00

        assert after["local_date"] == date(2026, 11, 1)
        assert after["day_start"] == utc("2026-11-01T04:00:00")  # midnight EDT
        assert after["day_end"] == utc("2026-11-02T05:00:00")  # midnight EST
        assert span(after) == 25 * HOUR
        # 23:30 EST: at the old offset it would be tomorrow already; today's override still counts.
        late = observe(tx, NEW_YORK_WINTER, utc("2026-11-02T04:30:00"))
        assert late["local_date"] == date(2026, 11, 1)
        assert overrides_today(tx, NEW_YORK_WINTER, utc("2026-11-02T04:30:00")) == 1

        tomorrow = observe(tx, NEW_YORK_WINTER, utc("2026-11-02T05:00:00"))
        assert (tomorrow["local_date"], tomorrow["utc_offset_minutes"]) == (
            date(2026, 11, 2),
            NEW_YORK_WINTER,
        )
        assert (tomorrow["day_start"], span(tomorrow)) == (utc("2026-11-02T05:00:00"), 24 * HOUR)
        assert overrides_today(tx, NEW_YORK_WINTER, utc("2026-11-02T05:00:00")) == 0
        assert clock_of(tx)["pending_offset_minutes"] is None


def test_dst_spring_forward_gives_one_23_hour_day(db, users):
    """New York, Sunday 2026-03-08: at 02:00 EST the clocks jump to 03:00 EDT."""
    user = users.create()
    an_override(db, user, datetime(2026, 3, 8, 1, 0), NEW_YORK_WINTER)
    with db.as_user(user.claims) as tx:
        observe(tx, NEW_YORK_WINTER, utc("2026-03-07T17:00:00"))

        after = observe(tx, NEW_YORK_SUMMER, utc("2026-03-08T07:30:00"))  # 03:30 EDT

        assert after["local_date"] == date(2026, 3, 8)
        assert (after["day_start"], after["day_end"]) == (
            utc("2026-03-08T05:00:00"),
            utc("2026-03-09T04:00:00"),
        )
        assert span(after) == 23 * HOUR
        assert overrides_today(tx, NEW_YORK_SUMMER, utc("2026-03-09T03:59:00")) == 1

        tomorrow = observe(tx, NEW_YORK_SUMMER, utc("2026-03-09T04:00:00"))
        assert (tomorrow["local_date"], tomorrow["utc_offset_minutes"]) == (date(2026, 3, 9), NEW_YORK_SUMMER)
        assert span(tomorrow) == 24 * HOUR
        assert overrides_today(tx, NEW_YORK_SUMMER, utc("2026-03-09T04:00:00")) == 0


def test_beijing_to_new_york_is_one_long_travel_day_then_new_york_days(db, users):
    """Leave Beijing at 13:00 on 2026-11-20, land in New York at 14:30 the same calendar day.
    Beijing's midnight passes in the air; just after it, still on Beijing time, the user
    overrides over the in-flight wifi."""
    user = users.create()
    an_override(db, user, datetime(2026, 11, 21, 1, 0), BEIJING)
    with db.as_user(user.claims) as tx:
        home = observe(tx, BEIJING, utc("2026-11-20T02:00:00"))  # 10:00 in Beijing
        assert (home["local_date"], home["day_start"]) == (date(2026, 11, 20), utc("2026-11-19T16:00:00"))
        aloft = observe(tx, BEIJING, utc("2026-11-20T17:00:00"))  # 01:00 on Beijing time
        assert (aloft["local_date"], aloft["day_start"]) == (date(2026, 11, 21), utc("2026-11-20T16:00:00"))

        landed = observe(tx, NEW_YORK_WINTER, utc("2026-11-20T19:30:00"))  # 14:30 in New York

        # Today (begun at Beijing's midnight) runs on to New York's first midnight that leaves
        # it at least 23 hours: one 37-hour travel day.
        assert landed["local_date"] == date(2026, 11, 21)
        assert landed["day_start"] == utc("2026-11-20T16:00:00")
        assert landed["day_end"] == utc("2026-11-22T05:00:00")
        assert span(landed) == 37 * HOUR
        # The override in the air still counts on arrival and through both midnights that a
        # change taking effect at once would have used to reset it.
        for moment in (
            "2026-11-20T19:30:00",
            "2026-11-21T05:00:00",
            "2026-11-21T16:00:00",
            "2026-11-22T04:59:00",
        ):
            assert observe(tx, NEW_YORK_WINTER, utc(moment))["day_start"] == landed["day_start"], moment
            assert overrides_today(tx, NEW_YORK_WINTER, utc(moment)) == 1, moment
        # From tomorrow the days are New York's.
        days = [observe(tx, NEW_YORK_WINTER, utc("2026-11-22T05:00:00") + n * 24 * HOUR) for n in range(3)]
        assert [day["local_date"] for day in days] == [
            date(2026, 11, 22),
            date(2026, 11, 23),
            date(2026, 11, 24),
        ]
        assert all(day["day_start"].astimezone(UTC).hour == 5 and span(day) == 24 * HOUR for day in days)
        assert all(day["utc_offset_minutes"] == NEW_YORK_WINTER for day in days)
        late_morning = observe(tx, NEW_YORK_WINTER, utc("2026-11-24T16:30:00"))
        assert late_morning["day_start"] == days[2]["day_start"]
        assert overrides_today(tx, NEW_YORK_WINTER, utc("2026-11-22T05:00:00")) == 0


def test_new_york_to_beijing_waits_for_a_beijing_midnight_at_least_23_hours_on(db, users):
    """Leave New York at 13:00 on 2026-11-20, land in Beijing at 17:00 on the 21st."""
    user = users.create()
    with db.as_user(user.claims) as tx:
        observe(tx, NEW_YORK_WINTER, utc("2026-11-20T06:00:00"))

        landed = observe(tx, BEIJING, utc("2026-11-21T09:00:00"))

        # New York's 2026-11-21 had begun in the air; it runs to the first Beijing midnight that
        # leaves it 23 hours, never to the one six hours away (which would reset today).
        assert landed["local_date"] == date(2026, 11, 21)
        assert landed["day_start"] == utc("2026-11-21T05:00:00")
        assert landed["day_end"] == utc("2026-11-22T16:00:00")
        assert span(landed) >= 23 * HOUR
        first = observe(tx, BEIJING, utc("2026-11-22T16:00:00"))
        assert (first["local_date"], first["utc_offset_minutes"]) == (date(2026, 11, 23), BEIJING)
        assert (first["day_start"], span(first)) == (utc("2026-11-22T16:00:00"), 24 * HOUR)


def test_going_back_to_the_old_offset_cancels_the_pending_change(db, users):
    user = users.create()
    with db.as_user(user.claims) as tx:
        observe(tx, NEW_YORK_SUMMER, utc("2026-11-01T05:30:00"))
        pending = observe(tx, NEW_YORK_WINTER, utc("2026-11-01T07:00:00"))
        assert span(pending) == 25 * HOUR
        assert clock_of(tx)["pending_offset_minutes"] == NEW_YORK_WINTER

        back = observe(tx, NEW_YORK_SUMMER, utc("2026-11-01T08:00:00"))

        assert (back["day_start"], back["day_end"]) == (
            utc("2026-11-01T04:00:00"),
            utc("2026-11-02T04:00:00"),
        )
        clock = clock_of(tx)
        assert clock["utc_offset_minutes"] == NEW_YORK_SUMMER
        assert (
            clock["pending_offset_minutes"],
            clock["pending_effective_at"],
            clock["pending_day_start"],
        ) == (
            None,
            None,
            None,
        )


def test_reading_the_day_with_another_offset_records_nothing(db, users):
    user = users.create()
    with db.as_user(user.claims) as tx:
        observe(tx, BEIJING, utc("2026-11-20T04:00:00"))
        read = local_day(tx, NEW_YORK_WINTER, utc("2026-11-20T05:00:00"))
        assert (read["utc_offset_minutes"], read["local_date"]) == (BEIJING, date(2026, 11, 20))
        assert clock_of(tx)["pending_offset_minutes"] is None


@pytest.mark.parametrize(
    "offsets",
    [
        pytest.param([NEW_YORK_SUMMER, NEW_YORK_WINTER], id="dst-flip-flop"),
        pytest.param([BEIJING, NEW_YORK_WINTER], id="beijing-new-york-shuttle"),
        pytest.param([-720, 840], id="the-widest-jump"),
        pytest.param([-720, -300, -240, 0, 330, 345, 480, 540, 765, 840], id="anywhere"),
    ],
)
def test_no_sequence_of_offsets_makes_a_day_shorter_than_23_hours(db, users, offsets):
    """Whatever a phone (or an attacker) reports, and whenever: the days tile time, each is at
    least 23 hours long, and the local date never goes backwards."""
    chance = random.Random(f"local-day-{offsets}")
    user = users.create()
    now = utc("2026-11-20T00:00:00")
    # Each day's start, and every end it was announced with (a later report may move it).
    announced: dict[datetime, set[datetime]] = {}
    dates: dict[datetime, set[date]] = {}
    with db.as_user(user.claims) as tx:
        for _ in range(300):
            now += timedelta(minutes=chance.randint(1, 9 * 60))
            day = observe(tx, chance.choice(offsets), now)
            assert day["day_start"] <= now < day["day_end"]
            assert span(day) >= 23 * HOUR
            announced.setdefault(day["day_start"], set()).add(day["day_end"])
            dates.setdefault(day["day_start"], set()).add(day["local_date"])
    starts = sorted(announced)
    assert len(starts) > 20
    for earlier, later in itertools.pairwise(starts):
        assert later - earlier >= 23 * HOUR
        # A day ends when it said it would, or at one of its own midnights when a change was
        # called off (one that a report at the old offset found already past).
        assert later in announced[earlier] or (later - earlier) % (24 * HOUR) == timedelta(0)
        (earlier_date,), (later_date,) = dates[earlier], dates[later]
        assert later_date >= earlier_date


def test_the_client_cannot_write_its_clock(db, users):
    user = users.create()
    with db.as_user(user.claims) as tx:
        observe(tx, BEIJING, utc("2026-11-20T04:00:00"))
    for statement in (
        "UPDATE public.intercept_user_clock SET utc_offset_minutes = -720",
        "INSERT INTO public.intercept_user_clock (utc_offset_minutes) VALUES (-720)",
        "DELETE FROM public.intercept_user_clock",
    ):
        with pytest.raises(DbError) as refused, db.transaction("authenticated", user.claims) as tx:
            tx.execute(statement)
        assert refused.value.sqlstate == "42501", statement


def test_an_offset_claiming_a_new_day_does_not_reset_todays_overrides(api, users, db):
    """Through the API: three overrides this morning, then a start whose timestamp says it is
    half past midnight somewhere. The day, its overrides and its verdicts are unchanged."""
    user = users.create()
    rule = users.rule(user)
    earlier = [override(api, db, user, rule)["session_id"] for _ in range(3)]
    home = session_row(db, user, earlier[0])
    assert home["utc_offset_minutes"] == MORNING
    midnight_elsewhere = offset_at_local(0, 30)

    started = new_dialog(api, user, rule, timestamp=stamp(midnight_elsewhere), override_count_today=0)

    assert started["counts"]["overrides_today"] == 3
    assert started["counts"]["opens_today"] == 4
    stored = session_row(db, user, started["session_id"])
    assert (stored["local_date"], stored["utc_offset_minutes"]) == (home["local_date"], MORNING)
    # The evaluator sees the three overrides too: an allow is downgraded.
    assert reason(api, user, started["session_id"], SPECIFIC_WORK).body["ai_verdict"] == "delay"
    with db.as_owner() as tx:
        clock = tx.one(
            "SELECT * FROM public.intercept_user_clock WHERE user_id = CAST(:u AS uuid)", u=user.id
        )
    # The new offset waits for its first midnight at least 23 hours after today began.
    assert clock["utc_offset_minutes"] == MORNING
    assert clock["pending_offset_minutes"] == midnight_elsewhere
    assert clock["pending_effective_at"] - clock["pending_day_start"] >= 23 * HOUR
    local = clock["pending_effective_at"] + timedelta(minutes=midnight_elsewhere)
    assert (local.hour, local.minute, local.second) == (0, 0, 0)


def test_a_first_start_sets_the_day_at_its_offset(api, users, db):
    user = users.create()
    rule = users.rule(user)
    offset = offset_at_local(23, 0)
    sid = new_dialog(api, user, rule, timestamp=stamp(offset))["session_id"]
    stored = session_row(db, user, sid)
    expected = (stored["created_at"] + timedelta(minutes=offset)).date()
    assert (stored["utc_offset_minutes"], stored["local_date"]) == (offset, expected)
