"""An independent review of the rules added for the SPS blind sets `y` and `z` (2026-11-29) found
measurements read where none was asked for (so real leaks were missed), habits and later advice
refused as medicine offered now, echoes hidden behind an opening of time or of not knowing, an
admin question read as coaching, and near misses of the new coaching form. Each of its turns, and
what the validator or the runtime should make of it."""

from __future__ import annotations

import pytest

from sps_encounter.engine.respond import Kind
from tests.unit.sps_encounter.support import catalog_case, dialogue, encounter
from tests.unit.sps_encounter.validating import codes, validate

ZH = ("abdominal-pain-zh", "zh-anxious-balanced")
READING = "(Temperature: 37.9 °C.) Oh, is that high?"


@pytest.mark.parametrize(
    "learner",
    [
        "Can I at least take a history first?",
        "Can I at least listen to what's worrying you most?",
        "I'll look into your eyes problem with the GP once the letter comes.",
        "Could I take your first name and date of birth?",
    ],
)
def test_no_measurement_was_asked_for_so_a_reading_still_leaks(learner):
    assert codes(validate(dialogue((learner, READING)), catalog_case("chest-pain"))) == ["NUMERIC_LEAKAGE"]


@pytest.mark.parametrize(
    "asked",
    [
        "Can you take these with water, or do they upset your stomach?",
        "Can you swallow these with water all right, or do you struggle with big tablets?",
        "Could you take one with water tonight when you get home?",
    ],
)
def test_a_question_about_ones_own_tablets_or_later_advice_is_not_refused(asked):
    played = encounter()
    response = played.say(asked)
    assert "take_medicine_now" not in played.learner.guardrails
    assert response.meta["kind"] != Kind.REFUSAL.value


@pytest.mark.parametrize(
    ("case", "first", "second"),
    [
        (
            ("headache",),
            "I'm not sure, doctor, to be honest with you, maybe Tuesday.",
            "I'm not sure, doctor, to be honest with you, maybe my arm.",
        ),
        (ZH, "不知道啊大夫，我这人糊里糊涂的，大概昨晚吧。", "不知道啊大夫，我这人糊里糊涂的，挺疼的吧。"),
        (ZH, "今儿个早上吧，反正挺疼的。", "今儿个早上吧，反正挺疼的。"),
    ],
)
def test_an_opener_said_twice_after_time_or_not_knowing_still_echoes(case, first, second):
    turns = dialogue(("When did it start?", first), ("And where?", second))
    assert codes(validate(turns, catalog_case(*case))) == ["OPENER_ECHO"]


def test_an_admin_question_is_no_coaching():
    turns = dialogue(("先在这儿签个字。", "你是不是还得查一下我的医保卡？"))
    assert codes(validate(turns, catalog_case(*ZH))) == []


@pytest.mark.parametrize(
    "answer",
    [
        "If I was you I'd be asking about my eyesight.",
        "If I were you, I would ask me about the vomiting.",
        "I'd ask about my family, if I were you.",
        "If I were in your shoes I'd check my blood pressure.",
    ],
)
def test_if_i_were_you_in_other_words_coaches(answer):
    assert codes(validate(dialogue(("Anything else?", answer)), catalog_case("headache"))) == [
        "DIAGNOSIS_OR_COACHING"
    ]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("吐了有俩回吧。", ["FACT_CONTRADICTION"]),
        ("吐俩回了。", ["FACT_CONTRADICTION"]),
        ("吐了，吐了仨，都是水。", ["FACT_CONTRADICTION"]),
        ("俩孩子都没事，我吐过一回。", []),
    ],
)
def test_lia_and_sa_in_other_word_orders(answer, expected):
    assert codes(validate(dialogue(("恶心吗？吐没吐？", answer)), catalog_case(*ZH))) == expected
