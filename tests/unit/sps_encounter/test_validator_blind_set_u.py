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
        ("我记农历的，初三来的，今天都二十了。", []),
        ("呼吸有点快，二十了吧我觉得。", ["NUMERIC_LEAKAGE"]),
    ],
)
def test_a_day_of_the_month_is_no_reading(reply, expected):
    turns = dialogue(("月经最后一次是什么时候？", reply))
    assert codes(validate(turns, ZH)) == expected
