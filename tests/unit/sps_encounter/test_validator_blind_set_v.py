"""`validateTranscript` on the kinds of speech the blind set `v` (2026-11-29, read on 2c89161: a
relative who answers for the patient, a learner's jargon, a patient who is a nurse, a learner who
keeps summarising, a patient in a rush, a phone interpreter, Traditional characters, answers as
counter-questions) found misread, each said afresh next to what the rule must still flag or
leave alone. The earlier sets: test_validator_blind_set*.py. The sets and their figures:
docs/judges.md, "SPS"."""

from __future__ import annotations

import pytest

from tests.unit.sps_encounter.support import catalog_case, dialogue
from tests.unit.sps_encounter.validating import codes, validate


@pytest.mark.parametrize(
    ("learner", "expected"),
    [
        # 'I do / really / still need to', 'I'll need to': a measurement asked for, so the patient
        # turn may show today's reading.
        ("I really need to take your pulse before you dash off.", []),
        ("We'll need to check your blood pressure, it won't take long.", []),
        ("Have you ever had your blood pressure taken?", ["NUMERIC_LEAKAGE"]),
        # An independent review: the tablets, or another day, ask for no reading now.
        ("I'll need to check your blood pressure tablets, can you read me the label?", ["NUMERIC_LEAKAGE"]),
        ("We will need to check your sugar next time, not today.", ["NUMERIC_LEAKAGE"]),
    ],
)
def test_a_measurement_asked_for_with_need_to(learner, expected):
    turns = dialogue((learner, "Fine, go on. (Blood pressure: 152/94 mmHg. Pulse: 88.)"))
    assert codes(validate(turns, catalog_case("chest-pain"))) == expected


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("It stops when I sit down. So you can probably tick that one off.", ["DIAGNOSIS_OR_COACHING"]),
        ("Goes in a few minutes. You can already check that box off, love.", ["DIAGNOSIS_OR_COACHING"]),
        ("There's a form at the desk, you can tick that box with the pen.", []),
        # An independent review: a box on a form is no coaching; nearer phrasings are.
        ("Goes when I rest. So, you can tick that box on the parking permit form, the nurse said.", []),
        ("You can tick that box off now, doctor.", ["DIAGNOSIS_OR_COACHING"]),
        ("So you can tick off the exertion question.", ["DIAGNOSIS_OR_COACHING"]),
    ],
)
def test_telling_the_learner_to_tick_a_box_is_coaching(reply, expected):
    turns = dialogue(("What makes it better?", reply))
    assert codes(validate(turns, catalog_case("chest-pain"))) == expected


def test_an_interpreters_frame_is_no_opening():
    turns = dialogue(
        ("Can you ask him whether the pain is there now?", "(Interpreter:) He says yes, only a little."),
        ("And does it go anywhere?", "(Interpreter:) He says no, it stays in the middle."),
        ("Ask him if he's had it before.", "She says never, not like this."),
    )
    assert codes(validate(turns, catalog_case("chest-pain"))) == []


def test_the_words_after_the_frame_still_echo():
    turns = dialogue(
        ("Can you tell him his pulse is normal?", "(Interpreter:) He says thank you, that's good."),
        ("And the oxygen level is fine too.", "(Interpreter:) He said thank you, that's a relief."),
    )
    assert codes(validate(turns, catalog_case("chest-pain"))) == ["OPENER_ECHO"]


@pytest.mark.parametrize(
    ("turns", "expected"),
    [
        # An independent review: without a speaker's label a frame is the patient's own opener
        # (quoting the GP and the wife) or hearsay that does repeat ("They say…" twice).
        (
            (
                ("What did your GP say?", "He said it was probably indigestion and gave me tablets."),
                ("And your wife?", "She said it was probably stress, the usual."),
            ),
            [],
        ),
        (
            (
                ("Any family history?", "They say my dad had a bad heart, but I never knew him."),
                ("Anything else in the family?", "They say my uncle had it too."),
            ),
            ["OPENER_ECHO"],
        ),
    ],
)
def test_a_frame_without_a_label_is_the_patients_own(turns, expected):
    assert codes(validate(dialogue(*turns), catalog_case("chest-pain"))) == expected


def test_a_chinese_frame_with_a_label_is_no_opening():
    turns = dialogue(
        ("疼了几天了？", "翻译：她说三天了，一直疼。"), ("那之前吃了什么？", "翻译：她说三天前吃了火锅。")
    )
    assert codes(validate(turns, catalog_case("abdominal-pain-zh", "zh-anxious-balanced"))) == ["OPENER_ECHO"]
