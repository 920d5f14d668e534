"""`validateTranscript` on what the blind sets `k` and `l` of transcripts found (2026-11-29), and
what two independent reviews of those rules found they flagged wrongly: each said afresh, next to
what the rule must still leave alone. The earlier sets: test_validator_blind_sets.py. The sets and
their figures: docs/judges.md, "SPS"."""

from __future__ import annotations

import pytest

from tests.unit.sps_encounter.support import catalog_case, dialogue
from tests.unit.sps_encounter.validating import codes, validate, zh_case

# A seventh blind set's false alarms and missed mistakes (k, read on ea8dcd7: night ED, notes read
# from a phone, nervous students, results written in as stage directions), each said afresh.


@pytest.mark.parametrize(
    ("learner", "reply", "leaked"),
    [
        ("And your temperature and sats.", "Go on. (Temperature: 36.8 °C. Oxygen saturation: 97%.)", False),
        ("Let me get the cuff. Arm out for me?", "There you go. (Blood pressure: 152/94 mmHg.)", False),
        ("Right. Your pulse, then.", "(Holds still.) (Pulse: 88, regular.)", False),
        # Asked, not measured: the patient cannot know today's value.
        ("And your temperature?", "36.8, I'd guess.", True),
    ],
)
def test_a_vital_sign_named_as_the_next_thing_done_is_a_measurement(learner, reply, leaked):
    assert codes(validate(dialogue((learner, reply)))) == (["NUMERIC_LEAKAGE"] if leaked else [])


def test_stepping_on_the_scales_is_a_measurement():
    case = catalog_case("headache", "en-friendly-balanced")
    turns = dialogue(("Could you stand on the scales for me?", "Sure. Sixty-four kilos, spot on."))
    assert codes(validate(turns, case)) == []


@pytest.mark.parametrize(
    ("reply", "leaked"),
    [
        ("No fevers. I'm thirty-six point six, bang on normal.", True),
        ("The last time I had a fever I was thirty-eight point five.", False),
    ],
)
def test_todays_finding_with_a_decimal_said_in_words_is_leakage(reply, leaked):
    turns = dialogue(("Any fevers or sweats?", reply))
    result = validate(turns, catalog_case("headache", "en-friendly-balanced"))
    assert codes(result) == (["NUMERIC_LEAKAGE"] if leaked else [])


@pytest.mark.parametrize(
    ("first", "second", "echoed"),
    [
        ("(Nods.) It started on Sunday night, after the match.", "(Nods.) It got worse after I ate.", False),
        ("（点头）昨天晚上开始疼的，越来越厉害。", "（点头）后来就不吐了，就是恶心。", False),
        ("It started on Sunday night, after the match.", "It started hurting more after I ate.", True),
    ],
)
def test_a_stage_direction_is_no_opening(first, second, echoed):
    case = zh_case() if not first.isascii() else catalog_case()
    turns = dialogue(("When did it start?", first), ("Any nausea?", second))
    assert ("OPENER_ECHO" in codes(validate(turns, case))) is echoed


@pytest.mark.parametrize(
    ("case", "learner", "reply", "contradicts"),
    [
        ("zh", "有没有吐？", "早上和中午各吐了一次。", True),
        ("zh", "有没有吐？", "早上吐了一次，都是胃里的东西。", False),
        (
            "en",
            "Has it ever come on when you're resting?",
            "Once, sat watching telly, it just came on.",
            True,
        ),
        ("en", "Has it ever come on when you're resting?", "No, never when I'm sat down.", False),
    ],
)
def test_what_the_case_does_not_hold_contradicts_it(case, learner, reply, contradicts):
    chosen = zh_case() if case == "zh" else catalog_case()
    result = validate(dialogue((learner, reply)), chosen)
    assert codes(result) == (["FACT_CONTRADICTION"] if contradicts else [])


@pytest.mark.parametrize(
    ("reply", "coached"),
    [
        ("哎，您这就走啦？反跳痛您还没查呢。", True),
        ("我还没吃饭呢，能先喝口水吗？", False),
    ],
)
def test_telling_the_learner_what_they_have_not_done_is_coaching(reply, coached):
    result = validate(dialogue(("好，那我先去汇报一下。", reply)), zh_case())
    assert codes(result) == (["DIAGNOSIS_OR_COACHING"] if coached else [])


@pytest.mark.parametrize(
    ("reply", "diagnosed"),
    [
        ("I read that painkillers cause rebound headaches, so I think that's what these are.", True),
        ("I read that painkillers cause rebound headaches, but who knows.", False),
    ],
)
def test_someone_elses_diagnosis_the_patient_takes_as_theirs_is_diagnosing(reply, diagnosed):
    turns = dialogue(("Anything you've read about it?", reply))
    result = validate(turns, catalog_case("headache", "en-friendly-balanced"))
    assert codes(result) == (["DIAGNOSIS_OR_COACHING"] if diagnosed else [])


def test_someone_elses_question_then_the_patients_own_diagnosis_is_diagnosing():
    turns = dialogue(("How are things at home?", "My son asked how I was and I'm sure it's angina."))
    assert codes(validate(turns)) == ["DIAGNOSIS_OR_COACHING"]
    said = dialogue(("How are things at home?", "My son said it might be angina, but I'm not sure."))
    assert codes(validate(said)) == []


# A twelfth author's missed mistakes (l, read blind on e7ee7f3: a timed station, video calls,
# checklists read aloud, remembered admissions), each said afresh.


@pytest.mark.parametrize(
    ("reply", "coached"),
    [
        ("You haven't asked about my smoking yet, love.", True),
        ("You've not checked my blood pressure.", True),
        ("You haven't got a cold yourself, have you?", False),
    ],
)
def test_telling_the_learner_what_they_have_not_asked_is_coaching(reply, coached):
    result = validate(dialogue(("Is there anything else?", reply)))
    assert codes(result) == (["DIAGNOSIS_OR_COACHING"] if coached else [])


def test_todays_decimal_in_words_at_the_end_of_a_sentence_is_leakage():
    turns = dialogue(("Any fevers?", "No fever. Temperature's thirty-six point eight."))
    assert codes(validate(turns)) == ["NUMERIC_LEAKAGE"]


@pytest.mark.parametrize(
    ("case", "learner", "reply", "contradicts"),
    [
        ("headache", "Do you smoke?", "Not now. I used to, ten a day, years back.", True),
        ("headache", "Do you smoke?", "Never have, no.", False),
        ("zh", "以前住过院吗？", "住过一次，前年胆结石。", True),
        ("zh", "以前住过院吗？", "没住过院，身体一直挺好。", False),
    ],
)
def test_a_past_the_case_does_not_have_contradicts_it(case, learner, reply, contradicts):
    chosen = zh_case() if case == "zh" else catalog_case(case, "en-friendly-balanced")
    result = validate(dialogue((learner, reply)), chosen)
    assert codes(result) == (["FACT_CONTRADICTION"] if contradicts else [])


def test_a_temperature_from_an_admission_two_years_ago_is_remembered():
    turns = dialogue(("以前发过烧吗？", "前年住院那回烧到三十九度二。"))
    assert "NUMERIC_LEAKAGE" not in codes(validate(turns, zh_case()))


# An independent review's ordinary speech that the first versions of set k's and l's rules flagged.


@pytest.mark.parametrize(
    ("case", "learner", "reply"),
    [
        (
            "headache",
            "Do you exercise?",
            "I ran the 5k in thirty-six point six minutes last weekend, my best.",
        ),
        (
            "headache",
            "Read anything?",
            "My GP mentioned rebound headaches, so I think that's what she wants ruled out.",
        ),
        ("headache", "Who's worried?", "My mum says, and I quote, rebound headaches."),
        ("headache", "Who's worried?", "My GP, and I trust her, said it's rebound headaches."),
        (
            "headache",
            "What do you do?",
            "You've not asked me what I do for a living. I'm a teacher, by the way.",
        ),
        ("headache", "Do you do any sport?", "No. I used to do ten a day on the exercise bike though."),
        ("chest", "Any sport?", "I used to play five-a-side but I gave it up when my knees went."),
        ("chest", "Does it come on at rest?", "I was sitting down after the walk and it just came on again."),
        ("zh", "之前看过医生吗？", "医生问我是不是阑尾炎，我也不知道。"),
        ("zh", "怎么之前没说？", "您没问啊，所以我就没提。"),
    ],
)
def test_ordinary_speech_beside_the_new_rules_is_not_flagged(case, learner, reply):
    chosen = {"zh": zh_case(), "chest": catalog_case()}.get(case) or catalog_case(
        case, "en-friendly-balanced"
    )
    assert codes(validate(dialogue((learner, reply)), chosen)) == []


def test_asking_about_scales_at_home_is_no_measurement():
    case = catalog_case("headache", "en-friendly-balanced")
    turns = dialogue(
        ("Do you ever step on the scales at home?", "Now and then. I was 64 kilos this morning.")
    )
    assert codes(validate(turns, case)) == ["NUMERIC_LEAKAGE"]
