"""`factcheck.violations`, the check an LLM phrasing must pass (§1's conflict rule): a wording
matching a fact's `conflicts`, a number the planned core does not hold, diagnosis or coaching,
a hesitation token, more sentences than the persona's narrative maximum; a faithful rephrasing
passes. Each violation is produced alone, against the plan of a real learner turn."""

from __future__ import annotations

import pytest

from sps_encounter.engine.factcheck import violations
from sps_encounter.engine.learner import apply_learner_turn
from sps_encounter.engine.respond import plan_response
from tests.unit.sps_encounter.support import catalog_case, fresh_state


def plan_for(learner_text: str, case=None):
    case = case or catalog_case()
    state = fresh_state(case)
    learner = apply_learner_turn(case, state, learner_text)
    return case, plan_response(case, state, learner)


def test_a_faithful_rephrasing_passes():
    case, plan = plan_for("When did it start?")
    assert plan.answered == ("onset",)
    assert violations(case, plan, "About three weeks ago, I think.") == []
    assert violations(case, plan, plan.core) == []


@pytest.mark.parametrize(
    ("question", "reply", "slot"),
    [
        ("When did it start?", "It started two days ago.", "onset"),
        ("Where is the pain?", "It's on the left side of my chest.", "location"),
        ("Do you smoke?", "I quit smoking years ago.", "smoking"),
        ("Any allergies?", "No known allergies.", "allergies"),
        ("Any family history?", "My dad is still alive and well.", "family_history"),
    ],
)
def test_a_reply_contradicting_a_slot_is_refused(question, reply, slot):
    case, plan = plan_for(question)
    # The contradiction comes first; a reply inventing a fact may also add what the case lacks.
    assert violations(case, plan, reply)[0] == f"contradicts:{slot}"


def test_a_contradiction_of_another_slot_than_the_one_asked_is_caught_too():
    case, plan = plan_for("When did it start?")
    assert violations(case, plan, "About three weeks ago. I don't smoke, mind.") == ["contradicts:smoking"]


def test_a_number_the_core_does_not_hold_is_unsupported():
    case, plan = plan_for("When did it start?")
    assert violations(case, plan, "About three weeks ago, so 21 days.") == ["unsupported_number:21"]


def test_the_numbers_of_a_measured_finding_are_supported():
    case, plan = plan_for("I'll check your blood pressure now.")
    assert "152/94" in plan.core
    assert violations(case, plan, "It reads 152 over 94.") == []
    assert violations(case, plan, "It reads 152 over 95.") == ["unsupported_number:95"]


@pytest.mark.parametrize(
    "reply",
    [
        "Three weeks. Could it be angina?",
        "Three weeks ago. Good question.",
        "Three weeks. You should ask about my family.",
        "About three weeks. I'm a standardized patient, by the way.",
    ],
)
def test_diagnosis_or_coaching_is_refused(reply):
    case, plan = plan_for("When did it start?")
    assert violations(case, plan, reply) == ["diagnosis_or_coaching"]


def test_a_hesitation_is_refused_because_style_is_added_separately():
    case, plan = plan_for("When did it start?")
    assert violations(case, plan, "Um, about three weeks ago.") == ["disfluency"]
    # A disfluency token inside a word is no hesitation.
    assert violations(case, plan, "About three weeks ago, under an umbrella.") == []


def test_a_reply_longer_than_the_narrative_maximum_is_refused():
    case, plan = plan_for("When did it start?")
    limit = case.persona.narrative_max_sentences
    at_limit = " ".join(["About three weeks ago."] * limit)
    assert violations(case, plan, at_limit) == []
    assert violations(case, plan, at_limit + " It was a Monday.") == ["too_long"]


def test_several_problems_are_all_reported_once_each():
    case, plan = plan_for("When did it start?")
    reply = "Um, it started two days ago, on the 3rd. Maybe angina. Maybe angina."
    assert violations(case, plan, reply) == [
        "contradicts:onset",
        "unsupported_number:3",
        "diagnosis_or_coaching",
        "disfluency",
        "missing_fact:onset",
        "unsupported_number:two",
    ]


@pytest.mark.parametrize(
    ("question", "reply", "slot"),
    [
        # Each drops the fact it was asked for; none matches a `conflicts` pattern of the slot.
        ("When did it start?", "It began a couple of days ago.", "onset"),
        ("When did it start?", "Three months ago, roughly.", "onset"),
        ("Any allergies?", "I'm not allergic to anything.", "allergies"),
        ("Any allergies?", "None that I know of.", "allergies"),
        ("What medications are you taking?", "Nothing at all.", "medications"),
        ("Where is the pain?", "In my stomach, really.", "location"),
        ("Does the pain go anywhere?", "No, it stays in my chest.", "radiation"),
    ],
)
def test_a_reply_leaving_out_the_fact_it_was_asked_to_phrase_is_refused(question, reply, slot):
    case, plan = plan_for(question)
    assert slot in plan.answered
    assert f"missing_fact:{slot}" in violations(case, plan, reply, question)


@pytest.mark.parametrize(
    ("reply", "added"),
    [
        ("Amlodipine, every morning, and I have diabetes.", ["diabetes"]),
        ("Amlodipine every morning. I also have diabetes and asthma.", ["diabetes", "asthma"]),
        ("Amlodipine, and aspirin when I remember.", ["aspirin"]),
    ],
)
def test_a_reply_adding_a_condition_or_medicine_the_case_does_not_hold_is_refused(reply, added):
    case, plan = plan_for("What medications are you taking?")
    found = violations(case, plan, reply)
    assert [v.split(":", 1)[1] for v in found if v.startswith("unsupported_condition:")] == added


def test_a_condition_the_answer_itself_holds_is_no_addition():
    case, plan = plan_for("Any medical problems?")
    assert "medical_history" in plan.answered
    assert not [
        v
        for v in violations(case, plan, "High blood pressure, ten years or so, and cholesterol.")
        if "condition" in v
    ]
