"""`validateTranscript` on the kinds of speech the blind set `o` (2026-11-29, read on 3fdb10c: a
learner with a translation app, a patient hard of hearing, a stoic patient, a bad video line)
found misread, each said afresh next to what the rule must still leave alone, with the cases an
independent review of the first fix found. The earlier sets: test_validator_blind_sets*.py. The
sets and their figures: docs/judges.md, "SPS"."""

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
        "Right. Now I take your temperature, and then your pulse.",
        "Next I measure your temperature, okay?",
        "Good. Also I check your temperature.",
        "Now I examine your ears and your temperature.",
        # Vital signs named and put first.
        "Thank you. Temperature first.",
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
        "Now I listen to the heart of the problem: any fevers?",
    ],
)
def test_no_measurement_still_leaves_todays_temperature_a_leak(learner):
    assert codes(validate(dialogue((learner, MEASURED_TEMPERATURE)), catalog_case("headache"))) == [
        "NUMERIC_LEAKAGE"
    ]


@pytest.mark.parametrize(
    ("learner", "measures"),
    [
        ("Is it sore if I push just here, below the ribs?", True),
        ("If I press on your breastbone, does that hurt?", True),
        ("Can you feel for your own pulse at the wrist while I time it?", True),
        ("If I press on this a little, how much do you drink in a week?", False),
        ("Sorry, if I press here my phone translates for you.", False),
        ("Do you ever count your pulse at home when it races?", False),
    ],
)
def test_pressing_and_counting_a_pulse_are_examinations(learner, measures):
    case = catalog_case()
    assert asks_for_measurement(case, case.lexicon.fold(learner)) is measures


@pytest.mark.parametrize(
    ("learner", "measures"),
    [
        ("我轻轻地按一下这边，疼就告诉我。", True),
        ("我压一压这边，您说哪儿疼。", True),
        ("您先平躺，然后侧躺。", True),
        ("左腿抬起来一下，伸直。", True),
        ("把舌头伸出来给我看看。", True),
        # A look at the phone or a translation, shown where it hurts, a position asked about.
        ("不好意思，我查一下手机，这个词我不会说。", False),
        ("我看一下翻译，您稍等。", False),
        ("哪儿最疼？您指给我看看。", False),
        ("您晚上躺下以后会更疼吗？", False),
        ("侧躺的时候疼不疼？", False),
        ("吃了药以后，烧压下去了吗？", False),
    ],
)
def test_chinese_examinations_and_what_is_not_one(learner, measures):
    case = zh_case()
    assert asks_for_measurement(case, case.lexicon.fold(learner)) is measures


@pytest.mark.parametrize(
    ("reply", "contradicts"),
    [
        # The case: vomited once.
        ("吐过，一早上吐了四五回，吐完才舒服点。", True),
        ("呕了三遍，都是黄水。", True),
        ("吐了十一次。", True),
        ("一直吐，吐个不停。", True),
        ("吐过一回，吐的是早饭。", False),
    ],
)
def test_vomiting_more_than_once_contradicts_the_case(reply, contradicts):
    turns = dialogue(("有没有吐过？", reply))
    assert codes(validate(turns, zh_case())) == (["FACT_CONTRADICTION"] if contradicts else [])


@pytest.mark.parametrize(
    ("reply", "clarifies"),
    [
        ("Pardon, was that Friday, did you say? You'll need to speak up, love, my ears are shot.", True),
        ("Could you talk louder, love? This hearing aid whistles.", True),
        ("I never speak up about pain, doctor, I just get on with it.", False),
        ("My wife says I need to speak up for myself more.", False),
        ("You have to speak up for yourself with these doctors.", False),
        # A bad line, as the review found it said.
        ("What'd you say? The picture froze.", True),
        ("Come again, pet?", True),
        ("You're breaking up, doctor, say that once more?", True),
        ("Will the pain come again, do you think?", False),
        ("My son and his wife are breaking up, it's been a strain.", False),
    ],
)
def test_asking_the_learner_to_speak_up_is_a_clarification(reply, clarifies):
    assert reads_as_clarification(catalog_case(), reply) is clarifies


@pytest.mark.parametrize(
    ("reply", "refuses"),
    [
        ("这个就不谈了吧。", True),
        ("那个就别提了吧。", True),
        ("这个问题就不回答了吧。", True),
        ("我之前还以为是胃病……这个不说了，反正是昨天晚上开始疼的。", False),
        ("那个不谈了，早就分了。", False),
    ],
)
def test_leaving_a_subject_alone_is_a_chinese_refusal(reply, refuses):
    assert reads_as_refusal(zh_case(), reply) is refuses
