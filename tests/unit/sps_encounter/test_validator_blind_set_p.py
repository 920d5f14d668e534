"""`validateTranscript` on the kinds of speech the blind set `p` (2026-11-29, read on 27fad63: a
patient who is a nurse, an adult child who answers for the patient, a checklist learner, a patient
who read up online, relatives' illnesses) found misread, each said afresh next to what the rule
must still leave alone. The earlier sets: test_validator_blind_set*.py. The sets and their
figures: docs/judges.md, "SPS"."""

from __future__ import annotations

import pytest

from tests.unit.sps_encounter.support import catalog_case, dialogue
from tests.unit.sps_encounter.validating import codes, validate, zh_case

CONTRADICTION = ["FACT_CONTRADICTION"]
COACHING = ["DIAGNOSIS_OR_COACHING"]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        # The case: never in hospital. An in-law's stay is theirs.
        ("我没住过。我公公去年在县医院住了半个月。", []),
        ("没有。我嫂子生孩子在妇幼医院住了五天。", []),
        ("在市医院住了一个礼拜。", CONTRADICTION),
    ],
)
def test_an_in_laws_hospital_stay_is_theirs(reply, expected):
    assert codes(validate(dialogue(("以前住过院吗？", reply)), zh_case())) == expected


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        # Someone else's opinion excuses what it says, not the patient's advice after it.
        (
            "Most days. My flatmate says it's the tablets themselves, so you could probably skip the MRI.",
            COACHING,
        ),
        ("You can skip the bloods, honestly, I had them done in May.", COACHING),
        ("Most days. My flatmate says it's the tablets themselves.", []),
        ("I skipped the blood tests last year, I hate needles.", []),
    ],
)
def test_telling_the_learner_to_skip_a_test_is_coaching(reply, expected):
    turns = dialogue(("How often do you take painkillers?", reply))
    assert codes(validate(turns, catalog_case("headache"))) == expected


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("您不再试试按下去快点松开吗？", COACHING),
        ("还有上面也按一下，看下面疼不疼。", COACHING),
        ("我自己在家也按一下看看疼不疼，一按就疼。", []),
        ("嗯，按的时候疼。", []),
    ],
)
def test_telling_the_learner_how_to_examine_is_coaching(reply, expected):
    assert codes(validate(dialogue(("好，肚子按完了。", reply)), zh_case())) == expected


@pytest.mark.parametrize(
    ("case", "learner", "reply", "expected"),
    [
        # Chest pain: the statin was stopped two months ago.
        ("chest-pain", "What tablets are you on?", "Amlodipine, and I take the statin too.", CONTRADICTION),
        (
            "chest-pain",
            "What tablets are you on?",
            "Amlodipine, plus the cholesterol tablet every night.",
            CONTRADICTION,
        ),
        ("chest-pain", "What tablets are you on?", "I used to take the statin, stopped it a while back.", []),
        # Headache: no stroke in the family, grandparents included.
        (
            "headache",
            "Any strokes in the family?",
            "My grandad, Mum's dad, he had a stroke at seventy.",
            CONTRADICTION,
        ),
        ("headache", "Any strokes in the family?", "My grandad had a heart attack, that's all.", []),
    ],
)
def test_a_current_statin_and_a_grandparents_stroke_contradict_the_case(case, learner, reply, expected):
    assert codes(validate(dialogue((learner, reply)), catalog_case(case))) == expected


def test_two_answers_that_open_on_when_echo_nothing():
    turns = dialogue(
        ("什么时候开始疼的？", "昨天晚上睡觉前开始疼的，一直没好。"),
        ("最后一次吃东西是什么时候？", "昨天晚上吃了碗面条，之后就没吃了。"),
    )
    assert "OPENER_ECHO" not in codes(validate(turns, zh_case()))


def test_a_named_companion_is_not_the_patients_telling():
    companion = (
        "(Anna:) It's worse in the mornings. (Tom:) She's been up at night with it for weeks now. "
        "She never complains about anything. She won't tell you how bad it gets. She just takes tablets. "
        "(Anna:) Thanks, Tom. That's true."
    )
    alone = (
        "(Anna:) It's worse in the mornings. I've been up at night with it for weeks now. "
        "I never complain about anything. I won't say how bad it gets. I just take tablets. "
        "I sit in the dark. That's true."
    )
    learner = "Can you tell me about the headaches?"
    assert codes(validate(dialogue((learner, companion)), catalog_case("headache"))) == []
    assert codes(validate(dialogue((learner, alone)), catalog_case("headache"))) == ["NARRATIVE_TOO_LONG"]
