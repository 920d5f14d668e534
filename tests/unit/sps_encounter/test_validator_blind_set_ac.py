"""`validateTranscript` and the runtime on the kinds of speech the blind set `ac` (2026-11-29,
read on f8b83e8: a pharmacist as the patient, a learner who summarises too often, a stammer, a
Geordie voice, a smartwatch read aloud, a learner who apologises for every question, Shanghainese
words, long stories before the fact) found misjudged, and a second independent review's findings
on the `ab` rules, each said afresh next to what the rule must leave alone. The sets and their
figures: docs/judges.md, "SPS"."""

from __future__ import annotations

import pytest

from sps_encounter.engine.respond import Kind
from tests.unit.sps_encounter.support import catalog_case, dialogue, encounter
from tests.unit.sps_encounter.validating import codes, validate

ZH = ("abdominal-pain-zh", "zh-anxious-balanced")


@pytest.mark.parametrize(
    ("request_", "answer", "expected"),
    [
        # A reading named with "as well" is asked for.
        ("And your pulse as well.", "(Pulse: 88.)", []),
        # Not asked: a log, a lozenge under the tongue, what a letter says, a leaflet.
        ("Can I at least check the blood pressure chart?", "It was 152 over 94.", ["NUMERIC_LEAKAGE"]),
        ("Pop this under your tongue, it's a mint.", "Right. My pulse was 88 just now.", ["NUMERIC_LEAKAGE"]),
        ("Tell me what it says on the appointment card.", "Blood pressure 152 over 94.", ["NUMERIC_LEAKAGE"]),
        (
            "Could I at least have a look at your tablets?",
            "Sure. Pulse is 88, by the way.",
            ["NUMERIC_LEAKAGE"],
        ),
        ("Pop the thermometer under your tongue for me.", "It says 36.8.", []),
    ],
)
def test_what_counts_as_a_reading_asked_for(request_, answer, expected):
    assert codes(validate(dialogue((request_, answer)), catalog_case("chest-pain"))) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # The onset given with "so that'd be…" against three weeks.
        (
            "Let me think. The day after the bank holiday. So that'd be a fortnight ago.",
            ["FACT_CONTRADICTION"],
        ),
        ("Three weeks ago, near enough.", []),
    ],
)
def test_an_onset_reckoned_aloud(answer, expected):
    assert codes(validate(dialogue(("When did it start?", answer)), catalog_case("chest-pain"))) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("No. Then you'll have to check with my wife, she does the tablets.", []),
        ("No. Next week you'll need to check the diary with reception.", []),
        ("No. Next you'll want to check my reflexes, I suppose.", ["DIAGNOSIS_OR_COACHING"]),
    ],
)
def test_the_patients_own_plans_are_no_coaching(answer, expected):
    assert codes(validate(dialogue(("Any weakness?", answer)), catalog_case("headache"))) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("你是不是应该做手术把阑尾切了？", ["DIAGNOSIS_OR_COACHING"]),
        ("您是不是要做手术去了？我不急。", []),
    ],
)
def test_surgery_suggested_is_coaching_going_to_operate_is_not(answer, expected):
    found = codes(validate(dialogue(("还有别的吗？", answer)), catalog_case(*ZH)))
    assert ("DIAGNOSIS_OR_COACHING" in found) == bool(expected)


@pytest.mark.parametrize(
    ("asked", "refused"),
    [
        ("So you take them now and then, when the pain's bad?", False),
        ("Does your husband make you take them now?", False),
        ("Come on, take it now, it'll help.", True),
    ],
)
def test_medicine_offered_now_and_questions_about_ones_own(asked, refused):
    played = encounter()
    response = played.say(asked)
    assert ("take_medicine_now" in played.learner.guardrails) is refused
    assert (response.meta["kind"] == Kind.REFUSAL.value) is refused
