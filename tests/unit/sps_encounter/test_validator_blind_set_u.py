"""`validateTranscript` on the kinds of speech the blind set `u` (2026-11-29, read on 44607aa: a
printed list of questions, a learner who keeps apologising, regional dialect, a patient who
answers before being asked, a learner who checks understanding, symptoms looked up online, a fire
alarm test, lunar-calendar dates) found misread, each said afresh next to what the rule must
still flag or leave alone. The earlier sets: test_validator_blind_set*.py. The sets and their
figures: docs/judges.md, "SPS"."""

from __future__ import annotations

import pytest

from tests.unit.sps_encounter.support import catalog_case, dialogue
from tests.unit.sps_encounter.validating import codes, validate

ZH = catalog_case("abdominal-pain-zh", "zh-anxious-balanced")


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        # A reading of the web taken as the patient's own in the next sentence.
        (
            "My neighbour reckons it's rebound headaches. That's what it is, isn't it?",
            ["DIAGNOSIS_OR_COACHING"],
        ),
        ("My neighbour reckons it's rebound headaches. That's what he's like, always has an answer.", []),
    ],
)
def test_a_reported_diagnosis_taken_as_ones_own_in_the_next_sentence(reply, expected):
    turns = dialogue(("Is there anything you've been wondering about?", reply))
    assert codes(validate(turns, catalog_case("headache"))) == expected


@pytest.mark.parametrize(
    ("case", "reply", "expected"),
    [
        ("chest-pain", "You haven't asked if I drink yet, mind.", ["DIAGNOSIS_OR_COACHING"]),
        ("chest-pain", "My wife says I haven't asked if I can drive home yet.", []),
        ("zh", "您还没问我抽不抽烟呢。", ["DIAGNOSIS_OR_COACHING"]),
        ("zh", "您还没吃饭吧？辛苦了。", []),
    ],
)
def test_what_the_learner_has_not_asked_yet_is_coaching(case, reply, expected):
    the_case = ZH if case == "zh" else catalog_case(case)
    learner = "嗯，好的。" if case == "zh" else "Right, okay."
    assert codes(validate(dialogue((learner, reply)), the_case)) == expected


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("I'd never had a headache before this year, not a proper one.", ["FACT_CONTRADICTION"]),
        ("I never had headaches in my life till the migraines started at uni.", ["FACT_CONTRADICTION"]),
        ("My sister had never had a headache before her pregnancy.", []),
    ],
)
def test_never_having_had_a_headache_before_contradicts_the_case(reply, expected):
    turns = dialogue(("Any headaches in the past?", reply))
    assert codes(validate(turns, catalog_case("headache"))) == expected


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("六七分吧。对了，早上还吐了三回，都是水。", ["FACT_CONTRADICTION"]),
        ("六七分吧，走路的时候更疼。", []),
    ],
)
def test_a_conflict_brought_up_unasked_counts(reply, expected):
    turns = dialogue(("现在疼得厉害吗？", reply))
    assert codes(validate(turns, ZH)) == expected


def test_a_conflict_brought_up_unasked_counts_in_english():
    turns = dialogue(("How bad is it now?", "Bad. Oh, and by the way, the bad ones are on the right side."))
    plain = dialogue(
        ("How bad is it now?", "Bad, about a seven. The bad ones are on the right side, if that matters.")
    )
    assert "FACT_CONTRADICTION" in codes(validate(turns, catalog_case("headache")))
    assert "FACT_CONTRADICTION" not in codes(validate(plain, catalog_case("headache")))


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("我记农历的，初五那天来的，今天是二十。", []),
        ("呼吸有点快，二十了吧我觉得。", ["NUMERIC_LEAKAGE"]),
    ],
)
def test_a_day_of_the_month_is_no_reading(reply, expected):
    turns = dialogue(("月经最后一次是什么时候？", reply))
    assert codes(validate(turns, ZH)) == expected


@pytest.mark.parametrize(
    ("case", "learner", "patient", "expected"),
    [
        # An independent review's misreadings of the s and u forms.
        (
            "chest-pain",
            "(puts the chest X-ray back on the desk) Any family history?",
            "(Blood pressure: 152/94 mmHg.)",
            ["NUMERIC_LEAKAGE"],
        ),
        ("zh", "（先不测量，继续问病史）哪里疼？", "血压是152/94。", ["NUMERIC_LEAKAGE"]),
        (
            "headache",
            "Where is the pain?",
            "Left side. The tablets I take are on the right in the cupboard by the eye drops.",
            [],
        ),
        (
            "headache",
            "Any headaches in the past?",
            "Honestly I'd never had headaches before my teens, then the migraines started.",
            [],
        ),
        ("chest-pain", "Right.", "You haven't asked if I minded you being a student, but I don't.", []),
        ("zh", "嗯。", "你还没听说吧，我女儿下个月要结婚了。", []),
        ("zh", "好。", "您还没查完吧？我可以起来了吗", []),
    ],
)
def test_the_reviews_misreadings(case, learner, patient, expected):
    the_case = ZH if case == "zh" else catalog_case(case)
    assert codes(validate(dialogue((learner, patient)), the_case)) == expected


def test_an_ordinary_question_with_broken_in_it_keeps_the_echo():
    turns = dialogue(
        ("最开始是哪里疼？", "肚子一圈都闷闷的，后来才跑到右下边。"),
        ("以前骨头断了没有？", "肚子一圈都没事，骨头没断过。"),
    )
    assert codes(validate(turns, ZH)) == ["OPENER_ECHO"]
