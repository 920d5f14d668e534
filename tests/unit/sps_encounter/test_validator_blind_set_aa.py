"""`validateTranscript` on the kinds of speech the blind set `aa` (2026-11-29, read on ed04ac8: a
chef who describes pain by food and heat, a learner who mixes up the patient's name, a symptom
diary read aloud, Irish English, a learner who says "okay, right" before every question, a
whistling hearing aid, Cantonese particles in Mandarin, a patient who corrects an earlier answer)
found missed, each said afresh next to what the rule must leave alone. The sets and their
figures: docs/judges.md, "SPS"."""

from __future__ import annotations

import pytest

from tests.unit.sps_encounter.support import catalog_case, dialogue
from tests.unit.sps_encounter.validating import codes, validate

ZH = ("abdominal-pain-zh", "zh-anxious-balanced")


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # An examination suggested as a question, uncontracted or in Irish English.
        ("Are you not going to look in the back of me eyes, doctor?", ["DIAGNOSIS_OR_COACHING"]),
        ("Should you not be checking my neck for stiffness?", ["DIAGNOSIS_OR_COACHING"]),
        ("Are you not going to have your lunch at all today?", []),
    ],
)
def test_an_examination_suggested_as_a_question(answer, expected):
    turns = dialogue(("Anything else you want to tell me?", answer))
    assert codes(validate(turns, catalog_case("headache"))) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("医生，您不是还要按一下右下边看看疼不疼吗？", ["DIAGNOSIS_OR_COACHING"]),
        ("医生，您不是还要去开会吗？我等一下没事。", []),
    ],
)
def test_a_manoeuvre_suggested_with_bu_shi_hai_yao(answer, expected):
    turns = dialogue(("还有别的不舒服吗？", answer))
    assert codes(validate(turns, catalog_case(*ZH))) == expected
