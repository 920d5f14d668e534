"""`validateTranscript` on the kinds of speech the blind set `ab` (2026-11-29, read on 6d14fe5: a
telephone consultation with readings taken at home, a retired nurse, a terse Yorkshire farmer, a
teenager whose parent answers, two questions at once, pain as scores and percentages, Dongbei
speech, a patient who answers the wrong question first) found misjudged, each said afresh next to
what the rule must leave alone. The sets and their figures: docs/judges.md, "SPS"."""

from __future__ import annotations

import pytest

from tests.unit.sps_encounter.support import catalog_case, dialogue
from tests.unit.sps_encounter.validating import codes, validate

ZH = ("abdominal-pain-zh", "zh-anxious-balanced")


@pytest.mark.parametrize(
    ("request_", "expected"),
    [
        # On the phone the learner asks the patient to take the reading: a measurement asked for.
        ("Could you stick it under your arm and tell me what it reads?", []),
        ("Have you got the thermometer there? Tell me what the thermometer says.", []),
        ("Tell me what it says about diet, that leaflet.", ["NUMERIC_LEAKAGE"]),
    ],
)
def test_a_reading_taken_at_home_when_asked(request_, expected):
    turns = dialogue((request_, "Right, it's done. Thirty-six point six."))
    assert codes(validate(turns, catalog_case("headache"))) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # Without "a" or "one", as a terse patient says it: still today's reading.
        ("Hundred and forty over ninety, years back at the chemist.", []),
        ("Hundred and fifty-two over ninety-four this morning, on my own.", ["NUMERIC_LEAKAGE"]),
        ("Three hundred and twenty yards to the gate, that's all I can walk.", []),
    ],
)
def test_a_blood_pressure_said_without_its_count(answer, expected):
    turns = dialogue(("Anything you've noticed yourself?", answer))
    assert codes(validate(turns, catalog_case("chest-pain"))) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # A change told in percent is no reading, though 20 is today's breathing rate.
        ("热敷一下能好个百分之二十，过会儿又疼。", []),
        ("吃了药减轻了百分之二十左右吧。", []),
        # Without a change neither: today's 20 is breaths a minute, and only a percentage read
        # today (the saturation, 98 %) leaks as one (test_validator_blind_set_ad.py).
        ("大概百分之二十吧。", []),
        ("血氧大概百分之九十八吧。", ["NUMERIC_LEAKAGE"]),
    ],
)
def test_a_change_told_in_percent(answer, expected):
    turns = dialogue(("怎么样能舒服点？", answer))
    assert codes(validate(turns, catalog_case(*ZH))) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "Yeah. I suppose next you'll want to ask about my vision and any weakness?",
            ["DIAGNOSIS_OR_COACHING"],
        ),
        ("Yeah. Then you'll want to check my neck, I expect.", ["DIAGNOSIS_OR_COACHING"]),
        ("Yeah. Next week I'll want to ask my boss about time off.", []),
    ],
)
def test_the_learners_next_question_said_for_them(answer, expected):
    turns = dialogue(("Do they wake you at night?", answer))
    assert codes(validate(turns, catalog_case("headache"))) == expected
