"""`validateTranscript` on what the blind set `o` (2026-11-29, read on 3fdb10c: a learner with a
translation app, a patient hard of hearing, a stoic patient, a bad video line) of transcripts
found, each said afresh next to what the rule must still leave alone. The earlier sets:
test_validator_blind_sets*.py. The sets and their figures: docs/judges.md, "SPS"."""

from __future__ import annotations

import pytest

from sps_encounter.engine.validator import asks_for_measurement, reads_as_clarification, reads_as_refusal
from tests.unit.sps_encounter.support import catalog_case, dialogue
from tests.unit.sps_encounter.validating import codes, validate, zh_case

MEASURED_TEMPERATURE = "Go ahead. (Temperature: 36.8 °C.)"


@pytest.mark.parametrize(
    "learner",
    [
        # Plain present tense, as a learner reading from a translation app says it.
        "Okay. Now I take your temperature and I listen to the heart, okay?",
        "Sorry, yes, of course. Now I measure your temperature.",
        "It is normal. Also I check your temperature.",
        # Vital signs named and put first.
        "Thanks. Temperature first.",
    ],
)
def test_a_plain_request_to_measure_lets_the_patient_give_the_value(learner):
    assert codes(validate(dialogue((learner, MEASURED_TEMPERATURE)), catalog_case("headache"))) == []


@pytest.mark.parametrize(
    "learner",
    [
        "I take your point. Any fevers?",
        "Now I know your history. Any fevers?",
        "Thanks. Any fevers at all?",
    ],
)
def test_no_measurement_still_leaves_todays_temperature_a_leak(learner):
    assert codes(validate(dialogue((learner, MEASURED_TEMPERATURE)), catalog_case("headache"))) == [
        "NUMERIC_LEAKAGE"
    ]


@pytest.mark.parametrize(
    ("learner", "measures"),
    [
        ("Does it hurt if I press here on your chest?", True),
        ("Could you find the pulse on your wrist and count it for thirty seconds?", True),
        ("If I press you on that, would you say it's worse at night?", False),
    ],
)
def test_pressing_and_counting_a_pulse_are_examinations(learner, measures):
    case = catalog_case()
    assert asks_for_measurement(case, case.lexicon.fold(learner)) is measures


@pytest.mark.parametrize(
    ("learner", "measures"),
    [
        ("我慢慢按下去，再突然松手，您看怎么样。", True),
        ("您侧躺，右腿往后伸一下。", True),
        # A look at the phone, or shown where it hurts, is no measurement.
        ("我中文不太好，有时候要查一下手机，不好意思。", False),
        ("具体哪里疼？指给我看看。", False),
    ],
)
def test_chinese_examinations_and_what_is_not_one(learner, measures):
    case = zh_case()
    assert asks_for_measurement(case, case.lexicon.fold(learner)) is measures


@pytest.mark.parametrize(
    ("reply", "contradicts"),
    [
        # The case: vomited once.
        ("吐了，今天早上吐了三四次，吐的都是胃里的东西。", True),
        ("吐过两三回。", True),
        ("吐了一次，吐的都是胃里的东西。", False),
    ],
)
def test_vomiting_a_few_times_contradicts_the_case(reply, contradicts):
    turns = dialogue(("有没有吐过？", reply))
    assert codes(validate(turns, zh_case())) == (["FACT_CONTRADICTION"] if contradicts else [])


@pytest.mark.parametrize(
    ("reply", "clarifies"),
    [
        ("Sorry, Tom, did you say? You'll have to speak up, my hearing's not what it was.", True),
        ("Could you talk louder, love? This hearing aid whistles.", True),
        ("I always say what I think, doctor.", False),
        ("My dad had to speak at the funeral.", False),
    ],
)
def test_asking_the_learner_to_speak_up_is_a_clarification(reply, clarifies):
    assert reads_as_clarification(catalog_case(), reply) is clarifies


@pytest.mark.parametrize(
    ("reply", "refuses"),
    [
        ("这个就不谈了吧。", True),
        ("那个别问了。", True),
        ("这个谈过了，上次门诊说过。", False),
    ],
)
def test_leaving_a_subject_alone_is_a_chinese_refusal(reply, refuses):
    assert reads_as_refusal(zh_case(), reply) is refuses
