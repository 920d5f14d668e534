"""`validateTranscript` on what the blind sets `m` (2026-11-29: a relative in the room, an
interpreter, a handwritten list, a learner summing up with numbers) and `n` (a formal learner, a
patient who is a nurse, symptoms read online) of transcripts found, each said afresh next to what
the rule must still leave alone. The earlier sets: test_validator_blind_sets.py and
test_validator_blind_sets_k_l.py. The sets and their figures: docs/judges.md, "SPS"."""

from __future__ import annotations

import pytest

from tests.unit.sps_encounter.support import catalog_case, dialogue
from tests.unit.sps_encounter.validating import codes, validate, zh_case


@pytest.mark.parametrize(
    ("reply", "leaked"),
    [
        # The case's pulse is 88: today's value, told before anyone took it.
        ("No racing. Pulse is about eighty-eight, nice and regular.", True),
        ("Heart rate eighty-eight, I reckon.", True),
        # Usual, someone else's, or no vital sign at all.
        ("My pulse is usually about eighty-eight at home.", False),
        ("My wife's pulse is eighty-eight, mine's lower.", False),
        ("I counted eighty-eight steps to the car park.", False),
        # Not today's value.
        ("Pulse is about seventy, I think.", False),
    ],
)
def test_todays_vital_sign_said_in_words_is_leakage(reply, leaked):
    turns = dialogue(("Any palpitations?", reply))
    assert codes(validate(turns)) == (["NUMERIC_LEAKAGE"] if leaked else [])


@pytest.mark.parametrize(
    ("reply", "too_long"),
    [
        # Four sentences of the patient's, three of his wife's.
        (
            "Just the one tablet, amlodipine. Wife: And the cholesterol ones. Go on, tell him. "
            "The GP said so. ...I stopped them. Couple of months back. They gave me aches in my legs.",
            False,
        ),
        # Four sentences of telling, two questions handed back.
        (
            "Amlodipine, every morning. I stopped the cholesterol ones two months ago. They gave me "
            "aches in my legs. My wife was cross about it. Was that stupid of me? Has that made it "
            "worse, do you think?",
            False,
        ),
        # Six of the patient's own: over the persona's five.
        (
            "Amlodipine, every morning. I stopped the cholesterol ones two months ago. They gave me "
            "aches in my legs. My wife was cross about it. She told the pharmacist all about it. "
            "The pharmacist said to see the GP about it.",
            True,
        ),
        # The wife speaks, then he goes on without a pause: all of it is hers by the text.
        (
            "Amlodipine. Wife: And the cholesterol ones, which he stopped. They gave him aches. He "
            "never told the GP. I kept telling him. He's stubborn like that.",
            False,
        ),
    ],
)
def test_the_narrative_length_counts_the_patients_own_telling(reply, too_long):
    case = catalog_case("chest-pain", "en-reserved-brief")
    turns = dialogue(("And what medicines are you on?", reply))
    assert codes(validate(turns, case)) == (["NARRATIVE_TOO_LONG"] if too_long else [])


def test_a_relatives_words_in_chinese_are_not_the_patients_narrative():
    reply = (
        "就吃过一次止痛药。女儿：她晚上疼得睡不着觉。一直在床上翻来翻去。我叫她早点来医院她不听。"
        "她就是怕麻烦别人。……我是怕花钱。"
    )
    turns = dialogue(("平时吃什么药吗？", reply))
    assert codes(validate(turns, zh_case())) == []


@pytest.mark.parametrize(
    ("reply", "diagnosed"),
    [
        # Read online and then taken as the patient's own, as a tag question.
        (
            "I read online that painkillers every day give you rebound headaches, that's what this "
            "is, isn't it?",
            True,
        ),
        ("I read online that painkillers every day give you rebound headaches. Is that possible?", False),
        # A sister's or a neighbour's words are theirs, as a GP's are.
        ("My sister says it's rebound headaches.", False),
        ("My neighbour reckons it's rebound headaches, she's a nurse.", False),
    ],
)
def test_a_diagnosis_read_elsewhere_is_the_patients_only_when_taken_as_theirs(reply, diagnosed):
    case = catalog_case("headache", "en-friendly-balanced")
    turns = dialogue(("How often do you take the painkillers?", reply))
    assert codes(validate(turns, case)) == (["DIAGNOSIS_OR_COACHING"] if diagnosed else [])


@pytest.mark.parametrize(
    ("learner", "reply", "contradicts", "zh"),
    [
        ("And on the really bad days, out of ten?", "Honestly, the bad ones are more of a six.", True, False),
        (
            "And on the really bad days, out of ten?",
            "The bad ones aren't a six, they're an eight.",
            False,
            False,
        ),
        ("以前有没有这样疼过？", "有过一次，去年差不多这时候。", True, True),
        ("以前有没有这样疼过？", "有过一次吗？我想想……没有，没有过。", False, True),
    ],
)
def test_a_severity_or_a_first_episode_told_otherwise_contradicts_the_case(learner, reply, contradicts, zh):
    case = zh_case() if zh else catalog_case("headache", "en-friendly-balanced")
    assert codes(validate(dialogue((learner, reply)), case)) == (
        ["FACT_CONTRADICTION"] if contradicts else []
    )


# The set n (read on 4710edd).


def test_a_formal_request_to_measure_is_a_measurement():
    turns = dialogue(
        (
            "I'm sorry for your loss. Would you permit me to take your pulse and blood pressure?",
            "Sure. (Pulse: 88 beats per minute, regular.) (Blood pressure: 152/94 mmHg.)",
        )
    )
    assert codes(validate(turns)) == []


@pytest.mark.parametrize(
    ("reply", "contradicts"),
    [
        # A checklist's words, and then the patient's own denial: neither says the conflict.
        (
            "Pounding when it's bad. One website had this checklist, throbbing, pressing, stabbing, "
            "and it's definitely not stabbing.",
            False,
        ),
        ("Pounding, and now and then stabbing.", True),
    ],
)
def test_every_match_of_a_conflict_is_read_not_only_the_first(reply, contradicts):
    case = catalog_case("headache", "en-friendly-balanced")
    turns = dialogue(("And what are they like?", reply))
    assert codes(validate(turns, case)) == (["FACT_CONTRADICTION"] if contradicts else [])


@pytest.mark.parametrize(
    ("reply", "contradicts"),
    [
        ("小便正常，没有尿频尿急尿痛。", False),
        ("没有几天又尿痛了。", True),
    ],
)
def test_a_chinese_denial_covers_the_list_it_heads(reply, contradicts):
    turns = dialogue(("小便怎么样？", reply))
    assert codes(validate(turns, zh_case())) == (["FACT_CONTRADICTION"] if contradicts else [])


@pytest.mark.parametrize(
    ("reply", "contradicts"),
    [
        ("Amlodipine. There was a cholesterol one too, but I stopped it, oh, a fortnight ago.", True),
        ("Amlodipine. There was a cholesterol one too, but I stopped it a couple of months back.", False),
    ],
)
def test_the_statin_stopped_weeks_ago_contradicts_the_chest_pain_case(reply, contradicts):
    turns = dialogue(("Do you take any medicines?", reply))
    assert codes(validate(turns)) == (["FACT_CONTRADICTION"] if contradicts else [])


# An independent review of the narrative and words rules (2026-11-29).

SEVEN_OF_HIS = (
    "it started on Monday morning. I was carrying the shopping up the hill. Then it went right down "
    "my left arm. I had to sit on the wall for ages. My chest felt like a band was round it. It came "
    "back again on Wednesday night. I've not been right since."
)


@pytest.mark.parametrize(
    "reply",
    [
        # The patient named again ends the wife's words.
        "Wife: He won't tell you himself, he never does. Patient: Well, " + SEVEN_OF_HIS,
        # A family history read out is no one speaking.
        "I wrote it down for you. Mother: diabetes, she died at seventy. Father: heart attack. So "
        + SEVEN_OF_HIS,
        # Tags and rhetorical questions tell.
        "It started on Monday morning, you know? I was carrying the shopping up that big hill by the "
        "church, you know the one? Then it went right down my left arm, can you believe it? I had to "
        "sit on the wall for ages. And do you know what my neighbour said when she saw me? She said go "
        "to the doctor. So here I am.",
    ],
)
def test_the_patients_own_long_telling_is_still_too_long(reply):
    case = catalog_case("chest-pain", "en-reserved-brief")
    turns = dialogue(("Tell me what happened.", reply))
    assert codes(validate(turns, case)) == ["NARRATIVE_TOO_LONG"]


def test_a_companions_own_pause_does_not_hand_the_turn_back():
    case = catalog_case("chest-pain", "en-reserved-brief")
    reply = (
        "I'm fine. Wife: He's been up all night... he was sick twice in the bathroom. He wouldn't "
        "let me call anyone at all. He said it was just indigestion. He had the same thing last "
        "winter. He always says that. He gets it from his father."
    )
    turns = dialogue(("How have you been?", reply))
    assert codes(validate(turns, case)) == []


@pytest.mark.parametrize(
    ("learner", "reply"),
    [
        # 94 is today's diastolic, not the pulse.
        ("Any palpitations?", "My heart rate's about ninety-four when I'm nervous like this."),
        # Asked for a reading the patient knows, as digits are.
        ("What's your usual pulse?", "Pulse runs about eighty-eight, I think."),
    ],
)
def test_a_vital_sign_in_words_is_read_against_its_own_value_and_the_question(learner, reply):
    assert codes(validate(dialogue((learner, reply)))) == []
