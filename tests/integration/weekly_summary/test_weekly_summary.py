"""WeeklySummaryFunction against the embedded Postgres: weeks in local time, reruns, failures, RLS.

Each test works in a week of its own (or filters by user), because the database is shared by
the whole session.
"""

import json
from datetime import UTC, date, datetime, timedelta

import pytest

from persona_rails.db import DbError
from persona_rails_dev.lambda_runtime import LambdaContext, load_handler
from persona_rails_dev.template import functions
from tests.support.api import load_event
from tests.support.history import add_session, at, summary_of
from weekly_summary.schemas import RunRequest
from weekly_summary.service import run_weekly
from weekly_summary.settings import WeeklySettings

PLUS_14, MINUS_10 = 14 * 60, -10 * 60


def run(db, *, week=None, user=None, now=None, batch_size=2000, progress=None, page_workers=None):
    knobs = {"PERSONA_RAILS_WEEKLY_BATCH_SIZE": batch_size}
    if page_workers is not None:
        knobs["PERSONA_RAILS_WEEKLY_PAGE_WORKERS"] = page_workers
    settings = WeeklySettings.from_env(**knobs)
    request = RunRequest(week=week, user_id=user, scheduled_time=now)
    return run_weekly(db, settings, request, datetime.now(UTC), progress)


def log_lines(buffer):
    return [json.loads(line) for line in buffer.getvalue().splitlines() if line.startswith("{")]


@pytest.mark.parametrize("offset", [PLUS_14, MINUS_10])
def test_weeks_follow_the_users_local_calendar(db, users, offset):
    user = users.create().id
    sunday, monday = date(2026, 3, 22), date(2026, 3, 23)
    add_session(db, user, local_start=at(sunday, 23, 30), offset_minutes=offset, category="work")
    # Starts before midnight on Sunday, decided after it: it belongs to the week it started in.
    add_session(
        db,
        user,
        local_start=at(sunday, 23, 59),
        offset_minutes=offset,
        category="study",
        response_seconds=180,
    )
    add_session(db, user, local_start=at(monday, 0, 30), offset_minutes=offset, category="other")
    run(db, week="2026-W12", user=user)
    run(db, week="2026-W13", user=user)
    first, second = summary_of(db, user, date(2026, 3, 16)), summary_of(db, user, monday)
    assert first["sessions"] == 2
    assert first["category_counts"] == {"work": 1, "study": 1, "mental_break": 0, "emergency": 0, "other": 0}
    assert first["response_latency_p90_ms"] >= 150_000
    assert first["utc_offset_minutes"] == offset
    assert second["sessions"] == 1
    assert second["top_category"] == "other"
    assert second["trend"]["previous_sessions"] == 2
    assert second["trend"]["previous_top_category"] == "work"


def test_the_scheduled_run_waits_for_monday_morning_in_each_time_zone(db, users):
    east, west = users.create().id, users.create().id
    wednesday = date(2025, 3, 5)  # 2025-W10
    add_session(db, east, local_start=at(wednesday, 12), offset_minutes=PLUS_14)
    add_session(db, west, local_start=at(wednesday, 12), offset_minutes=MINUS_10)
    week = date(2025, 3, 3)
    # Sunday 16:30 UTC: Monday 06:30 in UTC+14, Sunday 06:30 in UTC-10.
    report = run(db, now=datetime(2025, 3, 9, 16, 30, tzinfo=UTC))
    assert "2025-W10" in report.weeks
    assert summary_of(db, east, week) is not None
    assert summary_of(db, west, week) is None
    # Monday 16:30 UTC: now it is Monday morning in UTC-10 too; the east is not redone.
    report = run(db, now=datetime(2025, 3, 10, 16, 30, tzinfo=UTC))
    assert report.processed == 1
    assert summary_of(db, west, week) is not None


def test_a_summary_written_before_the_week_ended_is_redone_by_the_schedule(db, users):
    user = users.create().id
    wednesday = date(2025, 3, 19)  # 2025-W12
    add_session(db, user, local_start=at(wednesday, 12))
    run(db, week="2025-W12", user=user)
    with db.as_owner() as tx:  # as if the backfill had run on that Wednesday
        tx.execute(
            "UPDATE public.weekly_summaries SET generated_at = '2025-03-19T12:00:00Z'"
            " WHERE user_id = CAST(:u AS uuid)",
            u=user,
        )
    add_session(db, user, local_start=at(date(2025, 3, 23), 20))  # Sunday evening, after it
    report = run(db, now=datetime(2025, 3, 24, 12, 0, tzinfo=UTC))
    assert report.processed >= 1
    assert summary_of(db, user, date(2025, 3, 17))["sessions"] == 2
    # Now it is final: the next tick leaves it alone.
    assert run(db, now=datetime(2025, 3, 24, 13, 0, tzinfo=UTC)).processed == 0


def test_an_empty_week_writes_nothing(db):
    report = run(db, week="2024-W01")
    assert (report.weeks, report.processed, report.skipped, report.failed) == (["2024-W01"], 0, 0, 0)
    with db.as_owner() as tx:
        assert (
            tx.one("SELECT count(*) AS n FROM public.weekly_summaries WHERE week_start = '2024-01-01'")["n"]
            == 0
        )


def test_ties_and_reruns_are_deterministic_and_never_duplicate(db, users):
    user = users.create().id
    day = date(2025, 4, 9)  # 2025-W15
    for category in ("study", "work", "study", "work", "mental_break"):
        add_session(db, user, local_start=at(day, 10), category=category)
    run(db, week="2025-W15", user=user)
    first = summary_of(db, user, date(2025, 4, 7))
    run(db, week="2025-W15", user=user)
    again = summary_of(db, user, date(2025, 4, 7))
    assert first["top_category"] == "work"
    assert {k: v for k, v in first.items() if k != "generated_at"} == {
        k: v for k, v in again.items() if k != "generated_at"
    }
    add_session(db, user, local_start=at(day, 11), category="study")
    run(db, week="2025-W15", user=user)
    with db.as_owner() as tx:
        rows = tx.rows(
            "SELECT sessions, top_category FROM public.weekly_summaries WHERE user_id = CAST(:u AS uuid)",
            u=user,
        )
    assert rows == [{"sessions": 6, "top_category": "study"}]


def test_the_summary_holds_the_week_in_numbers(db, users):
    user = users.create().id
    day = date(2025, 5, 14)  # 2025-W20
    add_session(
        db,
        user,
        local_start=at(day, 9),
        persona="humor-coach",
        category="work",
        verdict="allow",
        decision="override",
        response_seconds=10,
    )
    add_session(
        db,
        user,
        local_start=at(day, 10),
        persona="humor-coach",
        category="mental_break",
        verdict="delay",
        decision="comply",
        appeal=True,
        response_seconds=20,
    )
    add_session(
        db,
        user,
        local_start=at(day, 11),
        persona="strict-father",
        category="emergency",
        verdict="allow",
        decision="emergency",
        response_seconds=30,
    )
    # Left open with no reason: long past its countdown and grace, it counts as abandoned (an
    # auto-dismissed comply), as the interception's housekeeping closes it.
    add_session(db, user, local_start=at(day, 12), persona="humor-coach", category=None, decision=None)
    run(db, week="2025-W20", user=user)
    summary = summary_of(db, user, date(2025, 5, 12))
    assert summary["sessions"] == 4
    assert (summary["unfinished_sessions"], summary["abandoned_sessions"]) == (0, 1)
    assert (summary["overrides"], summary["emergencies"], summary["appeals"]) == (1, 1, 1)
    assert float(summary["appeal_rate"]) == pytest.approx(1 / 3, abs=1e-4)
    assert summary["verdict_counts"] == {"deny": 0, "delay": 2, "allow": 2}
    assert float(summary["compliance_rate"]) == pytest.approx(2 / 4, abs=1e-4)
    assert summary["persona_compliance"]["humor-coach"]["compliance_rate"] == pytest.approx(2 / 3, abs=1e-4)
    assert summary["persona_compliance"]["strict-father"]["compliance_rate"] == 0.0
    assert summary["response_latency_p50_ms"] == 20_000
    assert summary["response_latency_p90_ms"] == 28_000
    assert summary["insight_persona_key"] == "humor-coach"
    assert len(summary["insight"]) <= 60
    assert summary["insight_source"] == "template"


def test_users_read_only_their_own_summaries_and_never_write_them(db, users):
    alice, bob = users.create(), users.create()
    add_session(db, alice.id, local_start=at(date(2025, 6, 4), 9))
    run(db, week="2025-W23", user=alice.id)
    with db.as_user(alice.claims) as tx:
        assert len(tx.rows("SELECT * FROM public.weekly_summaries")) == 1
    with db.as_user(bob.claims) as tx:
        assert (
            tx.rows("SELECT * FROM public.weekly_summaries WHERE user_id = CAST(:u AS uuid)", u=alice.id)
            == []
        )
    update = "UPDATE public.weekly_summaries SET insight = 'hacked'"
    insert = (
        "INSERT INTO public.weekly_summaries (user_id, week_start) VALUES ((SELECT auth.uid()), '2025-06-02')"
    )
    delete = "DELETE FROM public.weekly_summaries"
    # The app's own JWT (PostgREST's `authenticated`) writes nothing; the functions acting for the
    # user write no summary either (deleting one's history is the data-rights route's business).
    for role, statement in [
        ("authenticated", update),
        ("authenticated", insert),
        ("authenticated", delete),
        ("persona_rails_function", update),
        ("persona_rails_function", insert),
    ]:
        with pytest.raises(DbError, match="permission denied"), db.transaction(role, alice.claims) as tx:
            tx.execute(statement)


def test_a_failure_part_way_keeps_finished_users_and_a_retry_completes(db, users, logs):
    people = sorted(users.create().id for _ in range(3))
    for person in people:
        add_session(db, person, local_start=at(date(2025, 7, 9), 9))  # 2025-W28
    week = date(2025, 7, 7)
    with db.as_owner() as tx:
        tx.execute(f"""
            CREATE FUNCTION public.test_fail_weekly() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'simulated outage'; END $$;
            CREATE TRIGGER test_fail_weekly BEFORE INSERT ON public.weekly_summaries FOR EACH ROW
              WHEN (NEW.user_id = '{people[1]}') EXECUTE FUNCTION public.test_fail_weekly();
        """)
    try:
        with pytest.raises(DbError, match="simulated outage"):
            # One page at a time: the page after the failing one never starts.
            run(db, week="2025-W28", batch_size=1, page_workers=1)
    finally:
        with db.as_owner() as tx:
            tx.execute(
                "DROP TRIGGER test_fail_weekly ON public.weekly_summaries; DROP FUNCTION public.test_fail_weekly()"
            )
    assert summary_of(db, people[0], week) is not None
    assert summary_of(db, people[1], week) is None
    final = [line for line in log_lines(logs) if line["message"] == "weekly summaries finished"][-1]
    assert (final["processed"], final["failed"], final["error"]) == (1, 1, "DbError")
    report = run(db, week="2025-W28", batch_size=1)
    assert report.processed == 3
    assert all(summary_of(db, person, week) for person in people)


def test_with_pages_in_parallel_a_failure_stops_new_pages_and_keeps_the_rest(db, users, logs):
    people = sorted(users.create().id for _ in range(6))
    for person in people:
        add_session(db, person, local_start=at(date(2025, 7, 16), 9))  # 2025-W29
    week = date(2025, 7, 14)
    with db.as_owner() as tx:
        tx.execute(f"""
            CREATE FUNCTION public.test_fail_weekly() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'simulated outage'; END $$;
            CREATE TRIGGER test_fail_weekly BEFORE INSERT ON public.weekly_summaries FOR EACH ROW
              WHEN (NEW.user_id = '{people[1]}') EXECUTE FUNCTION public.test_fail_weekly();
        """)
    try:
        with pytest.raises(DbError, match="simulated outage"):
            run(db, week="2025-W29", batch_size=1, page_workers=2)
    finally:
        with db.as_owner() as tx:
            tx.execute(
                "DROP TRIGGER test_fail_weekly ON public.weekly_summaries; DROP FUNCTION public.test_fail_weekly()"
            )
    written = [person for person in people if summary_of(db, person, week)]
    final = [line for line in log_lines(logs) if line["message"] == "weekly summaries finished"][-1]
    # Two pages in flight: the failing one is counted as failed; a page that had started beside
    # it (the third, if the failure was not seen before it started) is kept and counted; no page
    # starts once the failure is seen.
    assert (final["failed"], final["error"]) == (1, "DbError")
    assert written in ([people[0]], [people[0], people[2]])
    assert final["processed"] == len(written)
    assert run(db, week="2025-W29", batch_size=1, page_workers=2).processed == 6
    assert all(summary_of(db, person, week) for person in people)


@pytest.fixture
def malformed_user(db, users):
    """A user whose history predates a constraint: a persona the product no longer knows."""
    user = users.create().id
    with db.as_owner() as tx:
        tx.execute(
            "ALTER TABLE public.intercept_sessions DROP CONSTRAINT intercept_sessions_persona_key_check"
        )
    add_session(db, user, local_start=at(date(2025, 8, 6), 9), persona="grandpa")
    yield user
    with db.as_owner() as tx:
        tx.execute("DELETE FROM public.intercept_sessions WHERE persona_key = 'grandpa'")
        tx.execute(
            "ALTER TABLE public.intercept_sessions ADD CONSTRAINT intercept_sessions_persona_key_check"
            " CHECK (persona_key IN ('strict-father', 'rational-mentor', 'humor-coach'))"
        )


def test_a_user_with_malformed_data_is_skipped_and_the_rest_complete(db, users, malformed_user, logs):
    healthy = users.create().id
    add_session(db, healthy, local_start=at(date(2025, 8, 6), 10))  # 2025-W32
    report = run(db, week="2025-W32")
    assert (report.processed, report.skipped, report.failed) == (1, 1, 0)
    assert summary_of(db, healthy, date(2025, 8, 4)) is not None
    skipped = [line for line in log_lines(logs) if line["message"] == "user skipped"]
    assert [line["user_id"] for line in skipped] == [malformed_user]
    assert "老板" not in logs.getvalue()
    final = [line for line in log_lines(logs) if line["message"] == "weekly summaries finished"][-1]
    assert (final["processed"], final["skipped"], final["failed"]) == (1, 1, 0)


def test_progress_is_reported_page_by_page(db, users):
    people = [users.create().id for _ in range(3)]
    for person in people:
        add_session(db, person, local_start=at(date(2025, 9, 10), 9))  # 2025-W37
    seen = []
    run(
        db, week="2025-W37", batch_size=2, progress=lambda week, done, total: seen.append((week, done, total))
    )
    assert seen == [("2025-W37", 2, 3), ("2025-W37", 3, 3)]


def test_the_handler_runs_on_the_scheduled_event_fixture(db, users):
    user = users.create().id
    add_session(db, user, local_start=at(date(2026, 11, 18), 20), offset_minutes=480)  # 2026-W47
    handler = load_handler(functions()["WeeklySummaryFunction"])
    event = load_event("weekly-summary/scheduled.json")
    report = handler(event, LambdaContext("WeeklySummaryFunction"))
    assert report["weeks"] == ["2026-W46", "2026-W47"]
    assert report["processed"] >= 1
    assert report["failed"] == 0
    assert summary_of(db, user, date(2026, 11, 16)) is not None


def test_the_handler_backfills_a_named_week(db, users):
    user = users.create().id
    add_session(db, user, local_start=at(date(2026, 11, 17), 8))
    handler = load_handler(functions()["WeeklySummaryFunction"])
    report = handler(load_event("weekly-summary/backfill-week.json"), LambdaContext("WeeklySummaryFunction"))
    assert report["weeks"] == ["2026-W47"]
    assert summary_of(db, user, date(2026, 11, 16))["sessions"] == 1


@pytest.mark.parametrize(
    "event",
    [
        {"week": "next week"},
        {"user_id": "nobody"},
        {"detail": {"week": "2026-W99"}},
        {"scheduled_time": "soon"},
    ],
)
def test_a_malformed_event_is_refused_before_any_work(event):
    handler = load_handler(functions()["WeeklySummaryFunction"])
    with pytest.raises(ValueError, match=r"week|user_id|scheduled_time"):
        handler(event, LambdaContext("WeeklySummaryFunction"))


def test_an_eventbridge_envelope_is_understood():
    request = RunRequest.from_event(
        {
            "version": "0",
            "detail-type": "Scheduled Event",
            "source": "aws.scheduler",
            "time": "2026-11-23T06:15:00Z",
            "detail": {"week": "2026-W47"},
        }
    )
    assert request.week_start == date(2026, 11, 16)
    assert request.tick(datetime.now(UTC)) == datetime(2026, 11, 23, 6, 15, tzinfo=UTC)
    assert request.tick(datetime.now(UTC)) - datetime(2026, 11, 23, 6, 15, tzinfo=UTC) == timedelta(0)


def test_an_llm_may_write_the_insight_from_numbers_only(db, users, fake_openai, monkeypatch):
    from tests.support.fake_openai import json_content, server_error

    monkeypatch.setenv("PERSONA_RAILS_WEEKLY_LLM_INSIGHTS", "true")
    # One call at a time, so the script's replies reach the users in order.
    monkeypatch.setenv("PERSONA_RAILS_WEEKLY_LLM_CONCURRENCY", "1")
    first, second, third = sorted(users.create().id for _ in range(3))
    for person in (first, second, third):
        add_session(
            db, person, local_start=at(date(2025, 10, 8), 9), persona="rational-mentor", category="work"
        )
    fake_openai.script(
        json_content({"insight": "本周最常出现的借口类型是工作，建议提前规划。"}),
        server_error(503),
        json_content({"insight": "这周表现不错，继续加油！"}),  # does not answer the spec's question
    )
    report = run_weekly(db, WeeklySettings.from_env(), RunRequest(week="2025-W41"), datetime.now(UTC))
    assert report.processed == 3
    week = date(2025, 10, 6)
    written, failed, evasive = (summary_of(db, person, week) for person in (first, second, third))
    assert (written["insight_source"], written["insight"]) == (
        "llm",
        "本周最常出现的借口类型是工作，建议提前规划。",
    )
    template = "本周最常出现的借口类型是「工作」（1次），遵守率100%。"
    assert (failed["insight_source"], failed["insight"]) == ("template", template)
    assert (evasive["insight_source"], evasive["insight"]) == ("template", template)
    # The prompt carries numbers and labels, never the user's reasons.
    for request in fake_openai.requests:
        assert "老板" not in json.dumps(request.body, ensure_ascii=False)
        assert "本周最常出现的借口类型" in request.message("user")
