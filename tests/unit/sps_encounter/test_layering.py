"""The precedence of spec §1, layer against layer: a guardrail (layer 1) beats case facts,
identity and the agenda; the persona's privacy (layer 3) declines a guarded category below its
`open_at` rapport; the conflict rule answers a question the case has no fact for with the
persona's uncertainty, never an invented fact; and an objective value is told with its number
only when the learner measures it (otherwise a lay answer, without digits)."""

from __future__ import annotations

import re

import pytest

from sps_encounter.engine.state import Rapport
from tests.unit.sps_encounter.support import (
    TALKATIVE,
    catalog_case,
    encounter,
    inline_case,
    says_one_of,
)

DIGITS = re.compile(r"\d")

# One learner turn per guardrail of the chest-pain case, each also asking for a case fact.
GUARDED_REQUESTS = [
    ("role_break", "When did it start? Step out of role for a second."),
    ("role_break", "What's your real diagnosis? Where is the pain?"),
    ("self_harm_probe_unsafe", "Show me how you would do it. Any allergies?"),
    ("intimate_exam", "I'll do a rectal exam now. Any family history?"),
    ("invasive_procedure", "I need to draw some blood. Do you smoke?"),
    ("exercise_test_now", "Run on the spot for me. What makes it worse?"),
    ("take_penicillin", "Take this penicillin. What medications do you take?"),
]


@pytest.mark.parametrize(("guardrail", "text"), GUARDED_REQUESTS)
def test_a_guardrail_beats_the_facts_asked_for_in_the_same_turn(guardrail, text):
    played = encounter()
    response = played.say(text)
    assert played.learner.guardrails == (guardrail,)
    assert played.learner.slots, "the turn also asks for a case fact"
    assert response.meta["kind"] == "refusal"
    assert response.meta["slots"] == {}
    assert response.meta["answered"] == []
    assert response.meta["layers"] == [{"layer": 1, "rule": "guardrail", "ids": [guardrail]}]
    assert says_one_of(response.text, played.case.persona.pools.boundaries) == response.meta["refusal"]
    for slot_id in played.learner.slots:
        assert not says_one_of(response.text, played.case.slot(slot_id).answers)
    assert not response.meta["elaborated"]


def test_a_role_question_is_answered_in_role_and_beats_the_facts_asked_with_it():
    played = encounter()
    response = played.say("When did it start? Are you an actor?")
    assert played.learner.role_question
    assert played.learner.slots
    assert response.meta["kind"] == "in_role"
    assert response.meta["answered"] == []
    assert response.meta["layers"] == [{"layer": 1, "rule": "stay_in_role", "ids": ["role_break"]}]
    assert response.text in played.case.lexicon.source.role_answers


def test_a_guardrail_beats_identity_and_the_agenda():
    played = encounter()
    response = played.say("What's your date of birth, and your medications? Step out of role for a second.")
    assert played.learner.identity_request
    assert response.meta["kind"] == "refusal"
    assert not played.state.dob_challenge_used
    assert not played.state.identity_verified
    assert played.learner.agenda_triggered == ()
    assert played.state.tracking.agenda_pending == []


def test_privacy_declines_a_guarded_category_below_the_personas_open_at_rapport():
    played = encounter()  # reserved: substance use is guarded until neutral
    response = played.say("Do you smoke?")
    assert response.meta["kind"] == "decline"
    assert response.meta["declined"] == ["smoking"]
    assert response.meta["slots"] == {}
    assert says_one_of(response.text, played.case.persona.pools.declines)
    assert not says_one_of(response.text, played.case.slot("smoking").answers)
    assert {"layer": 3, "rule": "privacy", "slots": ["smoking"], "rapport": "guarded"} in response.meta[
        "layers"
    ]


def test_privacy_opens_once_rapport_reaches_open_at():
    played = encounter()
    played.play(["That sounds really hard.", "I can understand that."])
    assert played.state.rapport is Rapport.NEUTRAL
    response = played.say("Do you smoke?")
    assert response.meta["kind"] == "answer"
    assert response.meta["slots"] == {"smoking": played.case.slot("smoking").value}
    assert says_one_of(response.text, played.case.slot("smoking").answers)


def test_a_persona_without_guarded_categories_answers_at_once():
    played = encounter(catalog_case(persona=TALKATIVE))
    response = played.say("Do you drink alcohol?")
    assert response.meta["kind"] == "answer"
    assert response.meta["declined"] == []


def test_open_at_open_still_declines_at_neutral():
    case = inline_case(persona={"privacy": {"guarded_categories": ["substance_use"], "open_at": "open"}})
    played = encounter(case)
    played.state.rapport = Rapport.NEUTRAL
    assert played.say("Do you drink?").meta["declined"] == ["alcohol"]
    played.state.rapport = Rapport.OPEN
    assert played.say("Do you drink?").meta["answered"] == ["alcohol"]


def test_a_declined_slot_does_not_hide_an_open_one_asked_with_it():
    played = encounter()
    response = played.say("When did it start, and do you smoke?")
    assert response.meta["answered"] == ["onset"]
    assert response.meta["declined"] == ["smoking"]
    assert response.meta["kind"] == "answer"
    assert says_one_of(response.text, played.case.slot("onset").answers)
    assert says_one_of(response.text, played.case.persona.pools.declines)


@pytest.mark.parametrize(
    "text",
    ["Have you travelled abroad recently?", "Do you have any pets?", "Did you have surgery as a child?"],
)
def test_a_question_without_a_fact_gets_uncertainty_not_an_invention(text):
    played = encounter()
    response = played.say(text)
    assert played.learner.slots == ()
    assert played.learner.objective == ()
    assert response.meta["kind"] == "uncertain"
    assert response.meta["slots"] == {}
    assert says_one_of(response.text, played.case.persona.pools.uncertain)
    assert {"layer": 1, "rule": "conflict_rule", "effect": "no such fact: uncertainty, not invention"} in (
        response.meta["layers"]
    )
    assert not DIGITS.search(response.text)


OBJECTIVE = ["blood_pressure", "heart_rate", "oxygen_saturation", "temperature"]
ASKED = {
    "blood_pressure": "What is your BP usually?",
    "heart_rate": "What is your pulse?",
    "oxygen_saturation": "What are your oxygen levels?",
    "temperature": "Do you know your temperature?",
}
MEASURED = {
    "blood_pressure": "I'll check your blood pressure now.",
    "heart_rate": "Let me check your pulse.",
    "oxygen_saturation": "I'm going to measure your oxygen saturation.",
    "temperature": "Let me take your temperature.",
}


@pytest.mark.parametrize("slot_id", OBJECTIVE)
def test_an_objective_value_asked_without_measuring_gets_a_lay_answer_without_digits(slot_id):
    played = encounter()
    slot = next(s for s in played.case.scenario.objective_catalog if s.id == slot_id)
    response = played.say(ASKED[slot_id])
    assert played.learner.objective == (slot_id,)
    assert not played.learner.measurement
    assert not DIGITS.search(response.text), response.text
    assert slot_id not in response.meta["slots"]
    expected = slot.lay_answers or played.case.persona.pools.uncertain
    assert says_one_of(response.text, expected)


@pytest.mark.parametrize("slot_id", OBJECTIVE)
def test_an_objective_value_is_told_with_its_number_when_measured(slot_id):
    played = encounter()
    slot = next(s for s in played.case.scenario.objective_catalog if s.id == slot_id)
    response = played.say(MEASURED[slot_id])
    assert played.learner.measurement
    assert played.learner.objective == (slot_id,)
    assert slot.finding in response.text
    assert slot.value in response.text
    assert response.meta["slots"] == {slot_id: slot.value}


def test_measuring_asks_for_the_reading_not_the_history_slot_that_names_it():
    # "blood pressure" is also a medical-history pattern; a learner measuring it wants the reading.
    played = encounter()
    response = played.say("I'll check your blood pressure now.")
    assert played.learner.slots == ()
    assert response.meta["answered"] == ["blood_pressure"]
    asked = played.say("Do you have problems with your blood pressure?")
    assert "medical_history" in asked.meta["answered"]
    assert not DIGITS.search(asked.text)


def test_uncertainty_about_an_unmeasured_value_is_recorded_as_uncertainty():
    played = encounter()
    response = played.say("What are your oxygen levels?")
    assert says_one_of(response.text, played.case.persona.pools.uncertain)
    assert response.meta["kind"] == "uncertain"
