"""`validateTranscript` on the kinds of speech the blind set `w` (2026-11-29, read on 8fb2ac0: a
consultation transcribed by speech recognition, a rapid review of systems, a stoic patient, long
wandering stories, teach-back and safety-netting, misheard words, Cantonese words, readings read
off a phone) found misread, each said afresh next to what the rule must still flag or leave
alone. The earlier sets: test_validator_blind_set*.py. The sets and their figures:
docs/judges.md, "SPS"."""

from __future__ import annotations

import pytest

from tests.unit.sps_encounter.support import catalog_case, dialogue
from tests.unit.sps_encounter.validating import codes, validate

READING = "(Blood pressure: 152/94 mmHg.) (Pulse: 88 beats per minute.) Cold, that cuff."


@pytest.mark.parametrize(
    ("learner", "expected"),
    [
        # The readings asked for in a few words, at the start of a sentence.
        ("Right. Next your pulse and your sats, please.", []),
        # An independent review: a history question or a time of day asks for no reading.
        ("And your family history of blood pressure, please.", ["NUMERIC_LEAKAGE"]),
        ("The worst time for your blood pressure, quickly.", ["NUMERIC_LEAKAGE"]),
        ("Okay, the BP next.", []),
        ("And the pulse, how fast does it feel when it starts?", ["NUMERIC_LEAKAGE"]),
    ],
)
def test_readings_asked_for_in_a_few_words(learner, expected):
    turns = dialogue((learner, READING))
    assert codes(validate(turns, catalog_case("chest-pain"))) == expected


def test_no_one_is_no_answer_and_still_echoes():
    turns = dialogue(
        ("anyone in the family with heart trouble", "no one in my family had heart trouble as far as i know"),
        ("has anyone at work noticed", "no one at work has said anything to me"),
    )
    assert codes(validate(turns, catalog_case("chest-pain"))) == ["OPENER_ECHO"]


def test_no_set_apart_by_speech_recognition_opens_nothing():
    turns = dialogue(
        ("any chest pain at rest", "no not at rest only on the stairs"),
        ("any swelling in your ankles", "no not that i've noticed"),
    )
    assert codes(validate(turns, catalog_case("chest-pain"))) == []


def test_an_opener_without_commas_still_echoes():
    turns = dialogue(
        ("what brings you in", "to tell you the truth it's the chest"),
        ("and when did it start", "to tell you the truth about a month ago"),
    )
    assert codes(validate(turns, catalog_case("chest-pain"))) == ["OPENER_ECHO"]
