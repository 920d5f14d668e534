"""`validateTranscript` on the kinds of speech the blind set `q` (2026-11-29, read on 4fff9a2: a
nurse who does the observations aloud, a patient reading times from a symptom diary, a patient who
is a retired doctor, yes-no answers in a row) found misread, each said afresh next to what the rule
must still flag. The earlier sets: test_validator_blind_set*.py. The sets and their figures:
docs/judges.md, "SPS"."""

from __future__ import annotations

import pytest

from sps_encounter.engine.validator import asks_for_measurement
from tests.unit.sps_encounter.support import catalog_case, dialogue
from tests.unit.sps_encounter.validating import codes, validate, zh_case

LEAK = ["NUMERIC_LEAKAGE"]
LATER = (
    ("Do you smoke at all?", "Twenty a day, I'm afraid."),
    ("And is there anything in the family?", "Dad had a heart attack."),
)
REPEATED = (
    "Anything else on your mind?",
    "That blood pressure, one fifty-two over ninety-four, she said. Is that bad?",
)


def test_a_reading_said_aloud_in_the_room_may_be_repeated_any_time_after():
    nurse = (
        "Nurse: Just your obs, Mr Hughes. Blood pressure's one fifty-two over ninety-four, pulse 88.",
        "Right.",
    )
    assert "NUMERIC_LEAKAGE" not in codes(
        validate(dialogue(nurse, *LATER, REPEATED), catalog_case("chest-pain"))
    )


def test_a_weight_read_out_before_lets_no_pulse_through():
    # The headache case's pulse is 72: a weight of 72 kilos read out is no pulse read out.
    turns = dialogue(
        ("You were 72 kilos at your last visit, is that still about right?", "Roughly, yes."),
        (
            "And how often are the headaches?",
            "Most days. My heart rate's 72 at the moment, I've been watching it.",
        ),
    )
    assert codes(validate(turns, catalog_case("headache"))) == LEAK


def test_a_reading_nobody_said_is_still_a_leak():
    greeting = ("Morning, I'm one of the students.", "Morning.")
    assert codes(validate(dialogue(greeting, *LATER, REPEATED), catalog_case("chest-pain"))) == LEAK


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        # The case's breathing rate is 20 a minute: the minutes of a clock time are no reading.
        ("我记在本子上了：晚上八点二十开始疼的。", []),
        ("本子上写着二十点二十，就开始疼了。", []),
        ("呼吸二十。", LEAK),
    ],
)
def test_the_minutes_of_a_clock_time_are_no_reading(reply, expected):
    assert codes(validate(dialogue(("什么时候开始的？", reply)), zh_case())) == expected


@pytest.mark.parametrize(
    ("first", "second", "echo"),
    [
        ("No, nothing with my chest.", "No, nothing like that at all.", False),
        ("Yesterday it was worse, I think.", "Yesterday it was in my arm too.", False),
        ("Yeah, a bit, when I climb.", "Yeah, a bit, at night too.", False),
        ("Well, it's hard to say, really.", "Well, it's been a while, really.", True),
    ],
)
def test_two_yes_no_answers_in_a_row_echo_no_opener(first, second, echo):
    turns = dialogue(("Any pain anywhere else?", first), ("Any palpitations?", second))
    assert ("OPENER_ECHO" in codes(validate(turns, catalog_case("chest-pain")))) is echo


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (
            "You'll want to ask if it wakes me at night, doctors always do, don't they?",
            ["DIAGNOSIS_OR_COACHING"],
        ),
        ("You'd need to check whether it's worse lying down.", ["DIAGNOSIS_OR_COACHING"]),
        ("I asked if it could be my glasses, but the optician said no.", []),
    ],
)
def test_telling_the_learner_what_to_ask_is_coaching(reply, expected):
    turns = dialogue(("Sorry, where was I?", reply))
    assert codes(validate(turns, catalog_case("headache"))) == expected


@pytest.mark.parametrize(
    ("learner", "measures"),
    [
        ("I take now your pulse, yes?", True),
        ("I check first the blood pressure.", True),
        ("I take now the bus home, it's late.", False),
    ],
)
def test_a_broken_word_order_measurement_is_still_one(learner, measures):
    assert asks_for_measurement(catalog_case("chest-pain"), learner) is measures
