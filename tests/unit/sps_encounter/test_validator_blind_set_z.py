"""`validateTranscript` on the kinds of speech the blind set `z` (2026-11-29, read on c33d417: a
driver worried about the licence, the ICE frame said aloud, times told by TV programmes and meals,
texts read off a phone, a learner who interrupts, a Scottish voice written as spoken, Sichuanese
words, a patient who says "I don't know" before each fact) found misread, each said afresh next to
what the rule must still flag or leave alone. The sets and their figures: docs/judges.md, "SPS"."""

from __future__ import annotations

import pytest

from tests.unit.sps_encounter.support import catalog_case, dialogue
from tests.unit.sps_encounter.validating import codes, validate

ZH = ("abdominal-pain-zh", "zh-anxious-balanced")


@pytest.mark.parametrize(
    ("answers", "expected"),
    [
        # Unsure of one fact after another, the patient hesitates; that is no opener.
        (("I don't know, a month? About a month.", "I don't know really, most mornings."), []),
        (("I'm not sure… the spring, I think.", "I'm not sure, twice a week maybe."), []),
        # Any other opening said twice in a row is still the spec's echo.
        (("I think it was a month ago, roughly.", "I think twice a week, maybe more."), ["OPENER_ECHO"]),
    ],
)
def test_an_unsure_opening_echoes_nothing(answers, expected):
    turns = dialogue(("When did it start?", answers[0]), ("How often?", answers[1]))
    assert codes(validate(turns, catalog_case("headache"))) == expected


def test_an_unsure_opening_in_chinese_echoes_nothing():
    turns = dialogue(
        ("疼了多久了？", "不知道算不算……从昨晚上开始的吧。"),
        ("吃东西了吗？", "不知道你问的是哪顿……昨天晚饭吃了点。"),
    )
    assert codes(validate(turns, catalog_case(*ZH))) == []


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("On Sunday it came on when I was sitting in the armchair reading.", ["FACT_CONTRADICTION"]),
        ("It came on when I was carrying the shopping up the stairs.", []),
    ],
)
def test_pain_that_came_on_at_rest_contradicts_the_case(answer, expected):
    turns = dialogue(("What brings it on?", answer))
    assert codes(validate(turns, catalog_case("chest-pain"))) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("My mum gets migraines. And my dad gets them too, bad ones.", ["FACT_CONTRADICTION"]),
        ("My mum gets migraines. My dad gets the odd cold, that's all.", []),
    ],
)
def test_a_father_who_gets_them_too(answer, expected):
    turns = dialogue(("Anyone in the family with headaches?", answer))
    assert codes(validate(turns, catalog_case("headache"))) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "If I were you I'd be checking my blood pressure, that's what my GP does.",
            ["DIAGNOSIS_OR_COACHING"],
        ),
        ("If I were you I'd take the bus, parking here is a nightmare.", []),
    ],
)
def test_if_i_were_you_coaches(answer, expected):
    turns = dialogue(("Anything else?", answer))
    assert codes(validate(turns, catalog_case("headache"))) == expected
