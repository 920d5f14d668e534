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
        ("没有。我闺蜜在市医院住了半个月。", []),
        # An independent review: a relative who came with the patient leaves the stay the
        # patient's own.
        ("我婆婆陪我去的，在市医院住了一个礼拜。", CONTRADICTION),
        ("有，那次是我嫂子送我去的，在县医院住了五天。", CONTRADICTION),
        # A second review: "told me" is no company, and "she" is always someone else.
        ("没有。我妈跟我说过，她年轻时在县医院住了一个月。", []),
        ("我没住过。我婆婆陪我来的，她去年在人民医院住了半个月。", []),
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
        # The review: a reporter the rule knows, "so you could" after it; two adverbs; a general
        # "you"; a flatmate's words.
        ("My GP says it's the tablets themselves, so you could probably skip the MRI.", COACHING),
        ("Most days. Honestly, you could probably just skip the MRI.", COACHING),
        ("At my old surgery you could forget about a referral, it took eight months.", []),
        ("My flatmate says you can skip the scan, but I'm not so sure.", []),
        ("Honestly, you can probably forget about the scan, I had one in March.", COACHING),
        ("You could just skip the referral, I'll see the cardiologist privately.", COACHING),
        ("My wife's in the car park. You'll need to ask if she can come in, she has my glasses.", []),
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
        ("您再按按右下边，看疼不疼。", COACHING),
        ("您怎么不按一下右下边呢？", COACHING),
        # The review: asking for a test out of worry, a complaint about another doctor, and how
        # the patient pressed herself are no coaching.
        ("医生，你不查一下B超吗？我有点担心。", []),
        ("上次那个医生你不查一下就让我回家，你说这像话吗？", []),
        ("昨晚我自己摸了摸，再按一下，看看疼不疼，一按就疼得厉害。", []),
        ("我昨天晚上自己试了，右下按一下，看看疼不疼，一按就疼得不行。", []),
        ("哎呀，你不按一下我还真不知道这儿这么疼呢！", []),
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
        ("chest-pain", "What tablets are you on?", "Amlodipine, and I'm still on the statin.", CONTRADICTION),
        ("chest-pain", "What tablets are you on?", "Amlodipine and atorvastatin.", CONTRADICTION),
        (
            "chest-pain",
            "What tablets are you on?",
            "Amlodipine. I still take my cholesterol tablets too.",
            CONTRADICTION,
        ),
        ("chest-pain", "What tablets are you on?", "Should I take the statin again, do you think?", []),
        (
            "chest-pain",
            "What tablets are you on?",
            "I take the statin? No, I stopped that two months ago.",
            [],
        ),
        # Headache: no stroke in the family, grandparents included.
        (
            "headache",
            "Any strokes in the family?",
            "My grandad, Mum's dad, he had a stroke at seventy.",
            CONTRADICTION,
        ),
        ("headache", "Any strokes in the family?", "My grandad had a heart attack, that's all.", []),
        (
            "headache",
            "Any strokes in the family?",
            "My grandma on my dad's side had a stroke.",
            CONTRADICTION,
        ),
        ("headache", "Any strokes in the family?", "My nan's had two strokes.", CONTRADICTION),
        ("headache", "Any strokes in the family?", "My uncle had a stroke of luck once, won the pools.", []),
        (
            "headache",
            "Any strokes in the family?",
            "My boyfriend's grandad had a stroke last year, but not mine.",
            [],
        ),
        (
            "headache",
            "Any strokes in the family?",
            "My aunt never had a stroke, she lived to ninety-eight.",
            [],
        ),
        (
            "headache",
            "Any strokes in the family?",
            "No, I don't think my grandad had a stroke, it was his heart.",
            [],
        ),
    ],
)
def test_a_current_statin_and_a_grandparents_stroke_contradict_the_case(case, learner, reply, expected):
    assert codes(validate(dialogue((learner, reply)), catalog_case(case))) == expected


@pytest.mark.parametrize(
    ("case", "first", "second", "echo"),
    [
        ("zh", "昨天晚上睡觉前开始疼的，一直没好。", "昨天晚上吃了碗面条，之后就没吃了。", False),
        ("zh", "从昨天晚上就开始疼，一直没好。", "从昨天晚上到现在什么都没吃。", False),
        ("headache", "Last night it started behind my eye.", "Last night I took two paracetamol.", False),
        ("headache", "Three weeks ago I noticed them more.", "Three weeks ago I started a new job.", False),
        # A tic is still one: "Today I want to…" twice, "Okay, so…" twice.
        ("headache", "Okay, so they start behind my left eye.", "Okay, so screens are the big one.", True),
        ("headache", "Today I want to get to the bottom of it.", "Today I want to be honest about it.", True),
    ],
)
def test_two_answers_that_open_on_when_echo_nothing(case, first, second, echo):
    scenario = zh_case() if case == "zh" else catalog_case(case)
    learner = ("什么时候开始的？", "还有呢？") if case == "zh" else ("When did it start?", "Anything else?")
    turns = dialogue((learner[0], first), (learner[1], second))
    assert ("OPENER_ECHO" in codes(validate(turns, scenario))) is echo


def test_a_named_companion_is_not_the_patients_telling():
    # The headache case's patient is Emma: Tom's words are his, whoever speaks first.
    companion = (
        "(Emma:) It's worse in the mornings. (Tom:) She's been up at night with it for weeks now. "
        "She never complains about anything. She won't tell you how bad it gets. She just takes tablets. "
        "(Emma:) Thanks, Tom. That's true."
    )
    tom_first = (
        "(Tom:) She's been up at night with it for weeks now. She never complains about anything. "
        "She won't tell you how bad it gets. She just takes tablets. She cancels plans. (Emma:) That's true."
    )
    # "Patient" and a short form of the name are the patient.
    labelled = (
        "(Patient:) It's my head. (Tom:) She's been up every night with it. She cancels plans. "
        "She won't tell you how bad it gets. She just takes tablets. I made her come in today. (Em:) Yeah."
    )
    assert (
        codes(
            validate(dialogue(("Can you tell me about the headaches?", labelled)), catalog_case("headache"))
        )
        == []
    )
    # Labels that do not name the patient say nothing of who speaks.
    alone = (
        "(Note:) It's worse in the mornings. I've been up at night with it for weeks now. "
        "I never complain about anything. I won't say how bad it gets. I just take tablets. "
        "I sit in the dark. That's true."
    )
    learner = "Can you tell me about the headaches?"
    assert codes(validate(dialogue((learner, companion)), catalog_case("headache"))) == []
    assert codes(validate(dialogue((learner, tom_first)), catalog_case("headache"))) == []
    assert codes(validate(dialogue((learner, alone)), catalog_case("headache"))) == ["NARRATIVE_TOO_LONG"]
