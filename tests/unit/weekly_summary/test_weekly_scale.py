"""The pure parts of the weekly run at scale: the v2 counts, partitions, events and settings."""

from datetime import UTC, date, datetime

import pytest
from pydantic import ValidationError

from tests.unit.weekly_summary.test_weekly_engine import aggregate, summarize
from weekly_summary.engine.summary import Insight, MalformedAggregate
from weekly_summary.fanout import partitions
from weekly_summary.insight_pool import InsightPool
from weekly_summary.personas import insight_persona_config
from weekly_summary.schemas import PartitionRequest, sqs_records
from weekly_summary.settings import WeeklySettings

W47 = date(2026, 11, 16)
A, B = "00000000-0000-4000-8000-00000000000a", "00000000-0000-4000-8000-00000000000b"


def test_the_summary_carries_abandoned_dialogs_and_emergency_unlocks():
    summary, _ = summarize(aggregate(abandoned_sessions=2, emergency_unlocks=5, emergency_excess=2))
    assert (summary["abandoned_sessions"], summary["emergency_unlocks"], summary["emergency_excess"]) == (
        2,
        5,
        2,
    )


@pytest.mark.parametrize("key", ["abandoned_sessions", "emergency_unlocks", "emergency_excess"])
def test_a_negative_or_missing_v2_count_is_malformed(key):
    with pytest.raises(MalformedAggregate, match=key):
        summarize(aggregate(**{key: -1}))
    row = aggregate()
    del row[key]
    with pytest.raises(MalformedAggregate):
        summarize(row)


def test_the_week_may_arrive_as_json_text():
    summary, _ = summarize(aggregate(week_start="2026-11-16"))
    assert (summary["week_start"], summary["iso_week"]) == ("2026-11-16", "2026-W47")
    with pytest.raises(MalformedAggregate):
        summarize(aggregate(week_start="last monday"))


def test_partitions_cover_the_week_in_contiguous_ranges():
    due = datetime(2026, 11, 23, 6, 15, tzinfo=UTC)
    ranges = partitions(W47, due, [A, B])
    assert [(str(p.after), p.until and str(p.until), p.index, p.count) for p in ranges] == [
        ("00000000-0000-0000-0000-000000000000", A, 0, 3),
        (A, B, 1, 3),
        (B, None, 2, 3),
    ]
    assert {p.week for p in ranges} == {"2026-W47"}
    assert all(p.due_at == due for p in ranges)
    (whole,) = partitions(W47, None, [])
    assert (whole.until, whole.due_at, whole.count) == (None, None, 1)


def test_a_partition_message_is_strict():
    body = partitions(W47, None, [A])[0].model_dump(mode="json")
    assert PartitionRequest.model_validate(body).week_start == W47
    for broken in (
        {**body, "extra": 1},
        {**body, "week": "2026-W99"},
        {**body, "count": 0},
        {"week": "2026-W47"},
    ):
        with pytest.raises(ValidationError):
            PartitionRequest.model_validate(broken)


def test_only_an_sqs_event_is_taken_for_partitions():
    assert sqs_records({"scheduled_time": "2026-11-23T06:15:00Z"}) is None
    assert sqs_records({"Records": []}) == []
    record = {"eventSource": "aws:sqs", "body": "{}"}
    assert sqs_records({"Records": [record]}) == [record]
    with pytest.raises(ValueError, match="SQS"):
        sqs_records({"Records": [record, {"eventSource": "aws:s3"}]})


def test_an_invocation_takes_fewer_users_when_each_needs_an_llm_call():
    plain = WeeklySettings.from_env()
    assert plain.users_per_invocation == plain.partition_users
    llm = WeeklySettings.from_env(
        PERSONA_RAILS_WEEKLY_LLM_INSIGHTS=True, OPENAI_API_KEY="k", PERSONA_RAILS_LLM_MODEL="m"
    )
    assert llm.insights_by_llm
    assert llm.users_per_invocation == llm.llm_partition_users < llm.partition_users
    # Asked for, but no LLM configured: templates, and the template's partition size.
    unconfigured = WeeklySettings.from_env(PERSONA_RAILS_WEEKLY_LLM_INSIGHTS=True)
    assert not unconfigured.insights_by_llm
    assert unconfigured.users_per_invocation == unconfigured.partition_users


def test_short_of_time_no_call_starts():
    settings = WeeklySettings.from_env(
        PERSONA_RAILS_WEEKLY_LLM_INSIGHTS=True,
        OPENAI_API_KEY="k",
        PERSONA_RAILS_LLM_MODEL="m",
        # Nothing listens there: a call that started would be a fault, not a deadline.
        OPENAI_BASE_URL="http://127.0.0.1:9/v1",
        PERSONA_RAILS_WEEKLY_LLM_RESERVE_SECONDS=120,
    )
    personas = insight_persona_config().value
    fallback = Insight("模板", "strict-father", "template")
    pool = InsightPool(settings, personas, remaining=lambda: 119.0)
    try:
        outcomes = pool.write([({"user_id": A}, fallback), ({"user_id": B}, fallback)])
    finally:
        pool.close()
    assert [(o.insight, o.fallback) for o in outcomes] == [(fallback, "deadline")] * 2


def test_without_an_llm_the_pool_hands_back_the_templates():
    pool = InsightPool(WeeklySettings.from_env(), insight_persona_config().value)
    fallback = Insight("模板", "humor-coach", "template")
    assert [(o.insight, o.fallback) for o in pool.write([({}, fallback)])] == [(fallback, None)]
    pool.close()
