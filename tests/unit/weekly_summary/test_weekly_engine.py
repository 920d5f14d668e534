"""Weekly summary logic without a database: ISO weeks, due times, ties, rates, trend, insight."""

from datetime import UTC, date, datetime

import pytest

from weekly_summary.engine.summary import MalformedAggregate, build_summary, top_category
from weekly_summary.engine.weeks import candidate_weeks, is_due, iso_week, parse_week
from weekly_summary.personas import insight_persona_config

W47 = date(2026, 11, 16)
PERSONAS = insight_persona_config().value


def summarize(row):
    """The engine reads no files: the function's personas are passed in, as the service does."""
    return build_summary(row, PERSONAS)


@pytest.mark.parametrize(
    ("text", "monday"),
    [
        ("2026-W47", W47),
        ("2026-11-16", W47),
        ("2026-11-22", W47),
        ("2026-11-23", date(2026, 11, 23)),
        ("2021-W01", date(2021, 1, 4)),
    ],
)
def test_weeks_parse_to_their_monday(text, monday):
    assert parse_week(text) == monday


@pytest.mark.parametrize("text", ["2026-W54", "last week", "2026-13-01", ""])
def test_bad_weeks_are_rejected(text):
    with pytest.raises(ValueError, match="week"):
        parse_week(text)


def test_iso_week_labels_use_the_iso_year():
    assert iso_week(W47) == "2026-W47"
    assert iso_week(date(2020, 12, 28)) == "2020-W53"


def test_a_week_is_due_on_monday_0600_local_in_every_time_zone():
    week = W47  # Monday 16 .. Sunday 22 November 2026
    # Sunday 16:00 UTC is Monday 06:00 in UTC+14 but Sunday 06:00 in UTC-10.
    sunday_16_utc = datetime(2026, 11, 22, 16, 0, tzinfo=UTC)
    assert is_due(week, 14 * 60, sunday_16_utc)
    assert not is_due(week, -10 * 60, sunday_16_utc)
    assert not is_due(week, 14 * 60, datetime(2026, 11, 22, 15, 59, tzinfo=UTC))
    # Monday 16:00 UTC is Monday 06:00 in UTC-10.
    assert is_due(week, -10 * 60, datetime(2026, 11, 23, 16, 0, tzinfo=UTC))


def test_candidate_weeks_cover_both_ends_of_the_offsets():
    # Sunday 16:00 UTC: UTC+14 has finished W47, UTC-12 has only finished W46.
    assert candidate_weeks(datetime(2026, 11, 22, 16, 0, tzinfo=UTC)) == [date(2026, 11, 9), W47]
    # Wednesday: everyone is in W48 and has finished W47.
    assert candidate_weeks(datetime(2026, 11, 25, 12, 0, tzinfo=UTC)) == [W47]


def aggregate(**overrides):
    row = {
        "user_id": "3f1c0d1e-7a51-4d55-9a39-8a3a3f0f0001",
        "week_start": W47,
        "utc_offset_minutes": 480,
        "sessions": 10,
        "unfinished_sessions": 1,
        "overrides": 3,
        "emergencies": 1,
        "appeals": 2,
        "evaluated_sessions": 8,
        "closed_sessions": 9,
        "complied_sessions": 5,
        "abandoned_sessions": 2,
        "emergency_unlocks": 4,
        "emergency_excess": 1,
        "category_counts": {"work": 3, "mental_break": 4, "other": 1},
        "verdict_counts": {"deny": 2, "delay": 5, "allow": 3},
        "persona_stats": {
            "humor-coach": {"sessions": 7, "closed": 6, "complied": 4},
            "strict-father": {"sessions": 3, "closed": 3, "complied": 1},
        },
        "response_latency_p50_ms": 12000,
        "response_latency_p90_ms": 45000,
        "previous_sessions": 4,
        "previous_overrides": 1,
        "previous_closed_sessions": 4,
        "previous_complied_sessions": 3,
        "previous_category_counts": {"work": 2, "study": 2},
    }
    row.update(overrides)
    return row


def test_a_summary_has_every_figure():
    summary, insight = summarize(aggregate())
    assert summary["iso_week"] == "2026-W47"
    assert summary["category_counts"] == {
        "work": 3,
        "study": 0,
        "mental_break": 4,
        "emergency": 0,
        "other": 1,
    }
    assert summary["top_category"] == "mental_break"
    assert summary["verdict_counts"] == {"deny": 2, "delay": 5, "allow": 3}
    assert summary["appeal_rate"] == 0.25
    assert summary["compliance_rate"] == round(5 / 9, 4)
    assert summary["persona_compliance"]["humor-coach"] == {
        "sessions": 7,
        "closed": 6,
        "complied": 4,
        "compliance_rate": 0.6667,
    }
    assert summary["trend"] == {
        "previous_sessions": 4,
        "sessions_delta": 6,
        "previous_overrides": 1,
        "overrides_delta": 2,
        "previous_compliance_rate": 0.75,
        "compliance_rate_delta": round(5 / 9 - 0.75, 4),
        "previous_top_category": "work",
    }
    assert insight.persona_key == "humor-coach"
    assert insight.source == "template"
    assert insight.text == "本周最常出现的借口类型：「放松休息」，4次上榜！下周换点新花样？"


@pytest.mark.parametrize(
    ("counts", "top"),
    [
        ({"work": 2, "study": 2}, "work"),
        ({"study": 3, "mental_break": 3, "other": 3}, "study"),
        ({"other": 1, "emergency": 1}, "emergency"),
        ({"other": 5}, "other"),
        ({}, None),
    ],
)
def test_ties_go_to_the_specs_category_order(counts, top):
    full = {
        category: counts.get(category, 0)
        for category in ("work", "study", "mental_break", "emergency", "other")
    }
    assert top_category(full) == top


def test_persona_ties_go_to_the_persona_order():
    stats = {
        "humor-coach": {"sessions": 2, "closed": 2, "complied": 2},
        "rational-mentor": {"sessions": 2, "closed": 2, "complied": 0},
    }
    assert summarize(aggregate(persona_stats=stats))[1].persona_key == "rational-mentor"
    # The order is the config's, not the code's: list humor-coach first and it wins the tie.
    reordered = PERSONAS.model_copy(
        update={"personas": sorted(PERSONAS.personas, key=lambda p: p.key != "humor-coach")}
    )
    assert build_summary(aggregate(persona_stats=stats), reordered)[1].persona_key == "humor-coach"


def test_a_week_without_excuses_uses_the_quiet_insight():
    summary, insight = summarize(aggregate(category_counts={}, verdict_counts={}, evaluated_sessions=0))
    assert summary["top_category"] is None
    assert summary["appeal_rate"] is None
    assert insight.text == "本周最常出现的借口类型：无！10次拦截一个借口都没有，厉害了！"


def test_no_previous_week_means_no_deltas():
    summary, _ = summarize(
        aggregate(
            previous_sessions=0,
            previous_overrides=0,
            previous_closed_sessions=0,
            previous_complied_sessions=0,
            previous_category_counts={},
        )
    )
    assert summary["trend"] == {
        "previous_sessions": 0,
        "sessions_delta": 10,
        "previous_overrides": None,
        "overrides_delta": None,
        "previous_compliance_rate": None,
        "compliance_rate_delta": None,
        "previous_top_category": None,
    }


@pytest.mark.parametrize("persona", ["strict-father", "rational-mentor", "humor-coach"])
def test_insights_stay_within_60_characters_with_huge_numbers(persona):
    row = aggregate(
        sessions=9999,
        closed_sessions=9999,
        complied_sessions=9999,
        category_counts={"mental_break": 9999},
        persona_stats={persona: {"sessions": 9999, "closed": 9999, "complied": 9999}},
    )
    assert len(summarize(row)[1].text) <= 60


@pytest.mark.parametrize(
    "broken",
    [
        {"category_counts": {"gaming": 3}},
        {"verdict_counts": {"maybe": 1}},
        {"persona_stats": {"grandpa": {"sessions": 1, "closed": 1, "complied": 1}}},
        {"persona_stats": {}},
        {"category_counts": {"work": -1}},
        {"category_counts": None},
        {"persona_stats": {"humor-coach": {"sessions": "many"}}},
    ],
)
def test_malformed_aggregates_are_reported_not_crashed_on(broken):
    with pytest.raises(MalformedAggregate):
        summarize(aggregate(**broken))


@pytest.mark.parametrize("persona", ["strict-father", "rational-mentor", "humor-coach"])
@pytest.mark.parametrize("counts", [{"work": 3}, {}])
def test_every_persona_answers_the_specs_question(persona, counts):
    row = aggregate(
        persona_stats={persona: {"sessions": 10, "closed": 9, "complied": 5}}, category_counts=counts
    )
    assert "本周最常出现的借口类型" in summarize(row)[1].text
