"""Weekly summaries after interception v2: abandoned dialogs, emergency unlocks past the allowance,
session ids scoped per user, and a killed dialog counted as abandoned whether or not the
interception's housekeeping has closed it yet.

Each test works in a week of its own (the database is shared by the whole session).
"""

from datetime import UTC, date, datetime, timedelta

import pytest

from persona_rails_dev.lambda_runtime import LambdaContext, load_handler
from persona_rails_dev.template import functions
from tests.support.api import load_event
from tests.support.history import add_session, at, summary_of
from weekly_summary.schemas import RunRequest
from weekly_summary.service import run_weekly
from weekly_summary.settings import WeeklySettings


def backfill(db, week, user):
    return run_weekly(db, WeeklySettings.from_env(), RunRequest(week=week, user_id=user), datetime.now(UTC))


def tick(at_time):
    handler = load_handler(functions()["WeeklySummaryFunction"])
    return handler({"scheduled_time": at_time}, LambdaContext("WeeklySummaryFunction", timeout_seconds=900))


def mark(db, user, session, **columns):
    """Record an unlock on a seeded session (an unlock always has its window)."""
    sets = ", ".join(
        [f"{name} = :{name}" for name in columns] + ["unlocked_until = closed_at + interval '30 minutes'"]
    )
    with db.as_owner() as tx:
        tx.execute(
            f"UPDATE public.intercept_sessions SET {sets} WHERE user_id = CAST(:u AS uuid) AND id = CAST(:s AS uuid)",
            u=user,
            s=session,
            **columns,
        )


def abandoned_week(db, user):
    """Two answered dialogs and one the app killed during its countdown, in 2024-W10."""
    wednesday = date(2024, 3, 6)
    add_session(db, user, local_start=at(wednesday, 9), response_seconds=30)
    add_session(db, user, local_start=at(wednesday, 10), response_seconds=50)
    return add_session(db, user, local_start=at(wednesday, 11), category="study", decision=None)


def stored(db, user, session):
    with db.as_owner() as tx:
        row = tx.one(
            "SELECT state, abandoned, user_decision FROM public.intercept_sessions"
            " WHERE user_id = CAST(:u AS uuid) AND id = CAST(:s AS uuid)",
            u=user,
            s=session,
        )
        events = tx.one(
            "SELECT count(*) AS n FROM public.analytics_events WHERE user_id = CAST(:u AS uuid)"
            " AND subject_id = CAST(:s AS uuid) AND name = 'interception.dialog_completed'",
            u=user,
            s=session,
        )
    return {**row, "events": events["n"]}


def close_abandoned(db):
    """The interception's own hourly housekeeping (InterceptHousekeepingFunction)."""
    handler = load_handler(functions()["InterceptHousekeepingFunction"])
    return handler(
        load_event("intercept-housekeeping/scheduled.json"), LambdaContext("InterceptHousekeepingFunction")
    )


FIGURES = (
    "sessions",
    "abandoned_sessions",
    "unfinished_sessions",
    "compliance_rate",
    "category_counts",
    "verdict_counts",
    "response_latency_p50_ms",
    "response_latency_p90_ms",
    "persona_compliance",
    "overrides",
    "emergencies",
    "trend",
)


def test_the_tick_counts_a_killed_dialog_as_abandoned_and_leaves_closing_it_to_its_own_function(db, users):
    user = users.create().id
    killed = abandoned_week(db, user)

    # Monday 2024-03-11 12:00 UTC: Monday 20:00 in the user's UTC+8, the week is due.
    answer = tick("2024-03-11T12:00:00Z")

    assert "housekeeping" not in answer  # the weekly summary has no chores of its own
    summary = summary_of(db, user, date(2024, 3, 4))
    assert summary["sessions"] == 3
    assert summary["abandoned_sessions"] == 1
    # Past its countdown and grace it counts as the sweep will leave it: closed and complied ...
    assert summary["unfinished_sessions"] == 0
    assert float(summary["compliance_rate"]) == 1.0
    # ... and it was no response: latencies ignore it.
    assert (summary["response_latency_p50_ms"], summary["response_latency_p90_ms"]) == (40_000, 48_000)
    # The summary wrote nothing to the dialog: closing it (and its one event) is the interception's.
    assert stored(db, user, killed) == {
        "state": "awaiting_decision",
        "abandoned": False,
        "user_decision": None,
        "events": 0,
    }


def killed_the_week_before(db, user):
    """A dialog killed in 2024-W09, whose figures reach 2024-W10's trend."""
    return add_session(db, user, local_start=at(date(2024, 2, 28), 9), category="work", decision=None)


def test_the_week_is_the_same_whether_the_housekeeping_ran_before_or_after_it(db, users):
    first, second = users.create().id, users.create().id
    killed_first, killed_second = abandoned_week(db, first), abandoned_week(db, second)
    killed_first_before, killed_second_before = (
        killed_the_week_before(db, first),
        killed_the_week_before(db, second),
    )
    # The sweep closes both; `second`'s is then opened again, as if the sweep had not run yet.
    assert close_abandoned(db)["abandoned_closed"] >= 4
    assert stored(db, first, killed_first)["state"] == "closed"
    assert stored(db, first, killed_first_before)["state"] == "closed"
    backfill(db, "2024-W10", first)
    before = {name: summary_of(db, first, date(2024, 3, 4))[name] for name in FIGURES}

    # A dialog still open when the summary is computed (the sweep has not run yet) ...
    with db.as_owner() as tx:
        tx.execute(
            "UPDATE public.intercept_sessions SET state = 'awaiting_decision', user_decision = NULL,"
            " auto_dismissed = false, abandoned = false, decision_fingerprint = NULL, closed_at = NULL"
            " WHERE id IN (CAST(:s AS uuid), CAST(:before AS uuid))",
            s=killed_second,
            before=killed_second_before,
        )
    backfill(db, "2024-W10", second)
    after = {name: summary_of(db, second, date(2024, 3, 4))[name] for name in FIGURES}

    # ... gives the same figures as one closed first.
    assert after == before
    assert before["abandoned_sessions"] == 1
    # A retried sweep closes nothing twice and emits nothing twice.
    close_abandoned(db)
    close_abandoned(db)
    assert stored(db, first, killed_first)["events"] == 1
    assert stored(db, second, killed_second)["events"] == 1


def test_a_dialog_inside_its_grace_still_counts_as_unfinished(db, users):
    user = users.create().id
    now = datetime.now(UTC).replace(tzinfo=None) + timedelta(minutes=480)  # the user's UTC+8 clock
    add_session(db, user, local_start=now, decision=None)
    week = now.date() - timedelta(days=now.weekday())
    backfill(db, week.isoformat(), user)
    summary = summary_of(db, user, week)
    assert (summary["unfinished_sessions"], summary["abandoned_sessions"]) == (1, 0)


def test_a_backfill_counts_a_dialog_left_open_past_its_grace_as_abandoned(db, users):
    user = users.create().id
    add_session(db, user, local_start=at(date(2024, 4, 3), 9), decision=None)  # 2024-W14, left open
    handler = load_handler(functions()["WeeklySummaryFunction"])
    answer = handler({"week": "2024-W14", "user_id": user}, LambdaContext("WeeklySummaryFunction"))
    assert answer["processed"] == 1
    summary = summary_of(db, user, date(2024, 4, 1))
    assert (summary["unfinished_sessions"], summary["abandoned_sessions"]) == (0, 1)


def test_emergency_unlocks_and_the_excess_past_the_allowance_are_reported(db, users):
    user = users.create().id
    day = date(2024, 5, 8)  # 2024-W19
    for hour in range(9, 13):
        session = add_session(
            db, user, local_start=at(day, hour), category="emergency", verdict="allow", decision="emergency"
        )
        mark(db, user, session, unlock_kind="emergency", emergency_over_allowance=hour >= 12)
    session = add_session(db, user, local_start=at(day, 14), verdict="allow", decision="override")
    mark(db, user, session, unlock_kind="override")
    backfill(db, "2024-W19", user)
    summary = summary_of(db, user, date(2024, 5, 6))
    assert (summary["emergencies"], summary["emergency_unlocks"], summary["emergency_excess"]) == (4, 4, 1)
    assert summary["overrides"] == 1


def test_the_same_session_id_of_two_users_never_mixes_their_turns(db, users):
    alice, bob = users.create().id, users.create().id
    day = date(2024, 6, 5)  # 2024-W23
    shared = add_session(db, alice, local_start=at(day, 9), category="work", verdict="deny")
    theirs = add_session(db, bob, local_start=at(day, 9), category="study", verdict="allow", appeal=True)
    with db.as_owner() as tx:
        # Session ids are the client's and unique per user only: give Bob's session Alice's id.
        tx.execute(
            """
            WITH renamed AS (
              UPDATE public.intercept_sessions SET id = CAST(:shared AS uuid)
              WHERE user_id = CAST(:bob AS uuid) AND id = CAST(:theirs AS uuid) RETURNING id)
            UPDATE public.intercept_turns SET session_id = CAST(:shared AS uuid)
            WHERE user_id = CAST(:bob AS uuid) AND session_id = CAST(:theirs AS uuid)
            """,
            shared=shared,
            bob=bob,
            theirs=theirs,
        )
    backfill(db, "2024-W23", alice)
    backfill(db, "2024-W23", bob)
    week = date(2024, 6, 3)
    mine, his = summary_of(db, alice, week), summary_of(db, bob, week)
    assert mine["category_counts"] == {"work": 1, "study": 0, "mental_break": 0, "emergency": 0, "other": 0}
    assert mine["verdict_counts"] == {"deny": 1, "delay": 0, "allow": 0}
    assert his["category_counts"] == {"work": 0, "study": 1, "mental_break": 0, "emergency": 0, "other": 0}
    assert his["verdict_counts"] == {"deny": 0, "delay": 0, "allow": 2}
    assert (mine["appeals"], his["appeals"]) == (0, 1)


@pytest.mark.parametrize("what", ["abandoned_sessions", "emergency_unlocks", "emergency_excess"])
def test_the_new_counts_cannot_go_negative(db, users, what):
    from persona_rails.db import DbError

    user = users.create().id
    add_session(db, user, local_start=at(date(2024, 7, 3), 9))  # 2024-W27
    backfill(db, "2024-W27", user)
    with pytest.raises(DbError, match="check"), db.as_owner() as tx:
        tx.execute(f"UPDATE public.weekly_summaries SET {what} = -1 WHERE user_id = CAST(:u AS uuid)", u=user)


def test_the_handler_runs_a_partition_from_the_sqs_event_fixture(db, users):
    user = users.create().id
    add_session(db, user, local_start=at(date(2026, 11, 19), 21), offset_minutes=480)  # 2026-W47
    handler = load_handler(functions()["WeeklySummaryFunction"])
    answer = handler(load_event("weekly-summary/partition.json"), LambdaContext("WeeklySummaryFunction"))
    assert answer == {"batchItemFailures": []}
    assert summary_of(db, user, date(2026, 11, 16))["sessions"] >= 1
