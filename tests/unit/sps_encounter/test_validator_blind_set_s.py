"""`validateTranscript` on the kinds of speech the blind set `s` (2026-11-29, read on b807408: a
patient hard of hearing, a call taken mid-consultation, a fitness watch, a learner who narrates
each step in brackets, a poor video line, a mother who answers for her daughter) found misread,
each said afresh next to what the rule must still flag. The earlier sets:
test_validator_blind_set*.py. The sets and their figures: docs/judges.md, "SPS"."""

from __future__ import annotations

import pytest

from sps_encounter.engine.validator import asks_for_measurement
from tests.unit.sps_encounter.support import catalog_case, dialogue
from tests.unit.sps_encounter.validating import codes, validate

ZH = catalog_case("abdominal-pain-zh", "zh-anxious-balanced")


@pytest.mark.parametrize(
    ("case", "learner", "measures"),
    [
        # The learner's own stage direction says what the hands do.
        ("chest-pain", "(wraps the cuff round the left arm) Nice and still.", True),
        ("chest-pain", "[puts the thermometer under the tongue]", True),
        ("headache", "(places two fingers on the wrist and counts the pulse)", True),
        ("headache", "(writes in the notes) And how's work been?", False),
        ("headache", "(takes a sip of water) Sorry, dry throat.", False),
        ("zh", "（给患者量体温）好，夹紧。", True),
        ("zh", "（低头看病历）您今年多大？", False),
    ],
)
def test_a_stage_direction_of_measuring_asks_to_measure(case, learner, measures):
    assert asks_for_measurement(ZH if case == "zh" else catalog_case(case), learner) is measures


def test_a_reading_shown_after_a_measuring_stage_direction_is_no_leak():
    measured = dialogue(
        ("(puts the sats probe on her finger)", "Cold, that. (Oxygen saturation: 97% on room air.)")
    )
    unmeasured = dialogue(("(writes in the notes)", "Cold, that. (Oxygen saturation: 97% on room air.)"))
    assert codes(validate(measured, catalog_case("chest-pain"))) == []
    assert codes(validate(unmeasured, catalog_case("chest-pain"))) == ["NUMERIC_LEAKAGE"]


@pytest.mark.parametrize(
    ("asked_again", "expected"),
    [
        ("Sorry, the line broke up. Could you repeat that?", []),
        ("I didn't catch that, what did you say?", []),
        ("And does anything make them better?", ["OPENER_ECHO"]),
    ],
)
def test_an_answer_said_again_when_asked_again_is_no_echo(asked_again, expected):
    turns = dialogue(
        ("How do they come on?", "They creep up on me over an hour or so, never all at once."),
        (asked_again, "They creep up on me over an hour or so. Never suddenly."),
    )
    assert codes(validate(turns, catalog_case("headache"))) == expected


@pytest.mark.parametrize(
    ("asked_again", "expected"),
    [
        ("不好意思，信号不好，您再说一遍？", []),
        ("那吃东西以后呢？", ["OPENER_ECHO"]),
    ],
)
def test_an_answer_said_again_when_asked_again_is_no_echo_in_chinese(asked_again, expected):
    turns = dialogue(
        ("最开始是哪里疼？", "肚子一圈都闷闷的，后来才跑到右下边。"),
        (asked_again, "肚子一圈都闷闷的，后来跑到右下边了。"),
    )
    assert codes(validate(turns, ZH)) == expected


def test_two_answers_opening_on_now_answer_two_questions_of_now():
    turns = dialogue(
        ("现在最疼的是哪里？", "现在就是右下边这块，按着更疼。"),
        ("现在疼到几分？", "现在差不多六七分吧。"),
    )
    assert codes(validate(turns, ZH)) == []


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (
            "The bad ones sit behind my right eye, and the daily one's across the front.",
            ["FACT_CONTRADICTION"],
        ),
        ("Mostly on the right, by the temple, when they're bad.", ["FACT_CONTRADICTION"]),
        ("The bad ones are on the left, round the temple. I'm on the right tablets now, I hope.", []),
    ],
)
def test_a_headache_on_the_right_contradicts_the_case(reply, expected):
    turns = dialogue(("Where in your head do you feel them?", reply))
    assert codes(validate(turns, catalog_case("headache"))) == expected
