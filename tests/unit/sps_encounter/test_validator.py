"""`validateTranscript` (spec §10–12): for every rule, a small hand-written transcript that
triggers exactly that rule, with its code, severity bucket and turnIndex (read from the text
alone, and where the rule reads meta, from meta too); a clean hand-written transcript without
meta that triggers nothing; and the metrics of §12 computed by hand. Meta and the shape checks of
§11: test_validator_meta_and_shape.py; realistic near-misses: test_validator_near_misses.py.

All transcripts are played against the chest-pain case with the reserved persona
(`answer_sentences` 2, `narrative_max_sentences` 5).
"""

from __future__ import annotations

import pytest

from tests.unit.sps_encounter.support import (
    dialogue,
    transcript,
)
from tests.unit.sps_encounter.validating import issues, runtime, validate

CLEAN = dialogue(
    ("What brings you in today?", "My chest gets tight when I climb the stairs."),
    ("When did it start?", "About three weeks ago."),
    ("Does it go anywhere?", "Sometimes down my left arm."),
    ("Anything else?", "Sorry, what do you mean?"),
    (
        "Do you take any medications?",
        "Amlodipine, every morning. I should say I quit the cholesterol pills, they gave me aches.",
    ),
    ("I'll check your blood pressure now.", "(Blood pressure: 152/94 mmHg.)"),
    ("Can you run on the spot for me?", "I'd rather not do that."),
    ("What's your date of birth?", "Why do you need that? I gave it at the front desk."),
    ("What's your date of birth?", "It's Daniel Hughes, date of birth the fourteenth of March, 1968."),
    ("Tell me about the pain.", "It's heavy. Like something pressing on it."),
)


def test_a_clean_hand_written_transcript_without_meta_triggers_nothing():
    result = validate(CLEAN)
    assert issues(result) == []
    metrics = result["summaryMetrics"]
    assert metrics["totalPatientTurns"] == 10
    assert metrics["refusalCount"] == 1
    assert metrics["unsafeRequests"] == 1
    assert metrics["agendaRevealCount"] == 1


def test_an_empty_transcript_has_zero_metrics():
    assert validate([]) == {
        "errors": [],
        "warnings": [],
        "info": [],
        "summaryMetrics": {
            "issueCounts": {"errors": 0, "warnings": 0, "info": 0},
            "totalPatientTurns": 0,
            "avgSentencesPerTurn": 0.0,
            "elaborationRate": 0.0,
            "clarificationRate": 0.0,
            "refusalCount": 0,
            "unsafeRequests": 0,
            "agendaRevealCount": 0,
            "duplicationScores": {"openers": 0.0, "clarifications": 0.0},
        },
    }


# One transcript per rule: ERROR


@pytest.mark.parametrize(
    "leak",
    [
        "The nurse said 152 over 94.",  # the case's objective values
        "I weigh about 90 kg.",  # any number with a unit of measurement
    ],
)
def test_numeric_leakage_without_a_measurement_request(leak):
    turns = dialogue(("When did it start?", "About three weeks ago."), ("How have you been otherwise?", leak))
    assert issues(validate(turns)) == [("ERROR", "NUMERIC_LEAKAGE", 3)]


def test_a_measured_number_after_the_learner_measures_is_no_leakage():
    turns = dialogue(
        ("When did it start?", "About three weeks ago."),
        ("I'll check your blood pressure now.", "The cuff says 152 over 94."),
        ("And the next one?", "It says 152 over 94 again."),
    )
    # Only the turn answering the measuring turn may hold the number.
    assert issues(validate(turns)) == [("ERROR", "NUMERIC_LEAKAGE", 5)]


def test_an_agenda_item_revealed_twice_read_from_the_stored_variants():
    clause = "I should say I quit the cholesterol pills, they gave me aches."
    turns = dialogue(
        ("Do you take any medications?", f"Amlodipine, every morning. {clause}"),
        ("Any medical problems?", f"High blood pressure. {clause}"),
    )
    result = validate(turns)
    assert issues(result) == [("ERROR", "AGENDA_REVEALED_TWICE", 3)]
    assert result["errors"][0]["details"] == {"id": "stopped_statin"}
    assert result["summaryMetrics"]["agendaRevealCount"] == 2


def test_an_agenda_item_revealed_twice_read_from_meta():
    turns = transcript(
        ("learner", "Do you take any medications?"),
        ("patient", "Amlodipine.", runtime({"agendaRevealed": ["stopped_statin"]})),
        ("learner", "When did it start?"),
        ("patient", "About three weeks ago.", runtime({"agendaRevealed": ["fear_like_father"]})),
        ("learner", "Any medical problems?"),
        ("patient", "High blood pressure.", runtime({"agendaRevealed": ["stopped_statin"]})),
    )
    assert issues(validate(turns)) == [("ERROR", "AGENDA_REVEALED_TWICE", 5)]


def test_a_clarification_repeated_within_the_last_three():
    turns = dialogue(
        ("Anything else?", "Sorry, what do you mean?"),
        ("When did it start?", "About three weeks ago."),
        ("Go on?", "Sorry, what do you mean?"),
    )
    assert issues(validate(turns)) == [("ERROR", "CLARIFICATION_REPEATED", 5)]


def test_a_clarification_reused_after_three_others_is_allowed():
    turns = dialogue(
        ("Anything else?", "Sorry, what do you mean?"),
        ("Go on?", "Could you say that another way?"),
        ("So?", "I'm not sure what you're asking."),
        ("Okay?", "What exactly are you asking?"),
        ("And?", "Sorry, what do you mean?"),
    )
    result = validate(turns)
    assert issues(result) == []
    assert result["summaryMetrics"]["clarificationRate"] == 1.0


def test_a_clarification_repeated_read_from_meta():
    turns = transcript(
        ("learner", "Anything else?"),
        ("patient", "Hm?", runtime({"clarification": "Could you say that another way?"})),
        ("learner", "Go on?"),
        ("patient", "Pardon?", runtime({"clarification": "Could you say that another way?"})),
    )
    assert issues(validate(turns)) == [("ERROR", "CLARIFICATION_REPEATED", 3)]


@pytest.mark.parametrize(
    "reply",
    [
        "It's probably angina, isn't it?",
        "You should ask about my family.",
        "Good question, doctor.",
        "Sounds like coronary artery disease to me.",
    ],
)
def test_diagnosis_or_coaching(reply):
    turns = dialogue(("When did it start?", "About three weeks ago."), ("What do you think it is?", reply))
    assert issues(validate(turns)) == [("ERROR", "DIAGNOSIS_OR_COACHING", 3)]


def test_the_dob_challenge_used_twice():
    turns = dialogue(
        ("What's your date of birth?", "Why do you need that? I gave it at the front desk."),
        ("What's your date of birth?", "Didn't I already tell the receptionist?"),
    )
    assert issues(validate(turns)) == [("ERROR", "DOB_CHALLENGE_REPEATED", 3)]


def test_the_dob_challenge_used_twice_read_from_meta():
    turns = transcript(
        ("learner", "What's your date of birth?"),
        ("patient", "Do I have to?", runtime({"dobChallenge": True})),
        ("learner", "What's your date of birth?"),
        ("patient", "It's Daniel Hughes, the fourteenth of March, 1968.", runtime({"dobChallenge": False})),
        ("learner", "Your date of birth again?"),
        ("patient", "Why though?", runtime({"dobChallenge": True})),
    )
    assert issues(validate(turns)) == [("ERROR", "DOB_CHALLENGE_REPEATED", 5)]


def test_a_fact_contradiction_read_from_the_text():
    turns = dialogue(("When did it start?", "It started two days ago."))
    result = validate(turns)
    assert issues(result) == [("ERROR", "FACT_CONTRADICTION", 1)]
    assert result["errors"][0]["details"]["slot"] == "onset"


def test_a_fact_contradiction_read_from_meta_slots():
    turns = transcript(
        ("learner", "When did it start?"),
        ("patient", "A while back.", runtime({"slots": {"onset": "three weeks ago"}})),
        ("learner", "And when exactly?"),
        ("patient", "Recently.", runtime({"slots": {"onset": "two days ago"}})),
    )
    result = validate(turns)
    assert issues(result) == [("ERROR", "FACT_CONTRADICTION", 3)]
    assert result["errors"][0]["details"] == {
        "slot": "onset",
        "before": "three weeks ago",
        "now": "two days ago",
    }


def test_a_slot_the_case_does_not_hold_must_keep_its_first_stated_value():
    turns = transcript(
        ("learner", "Any pets?"),
        ("patient", "A dog.", runtime({"slots": {"pets": "a dog"}})),
        ("learner", "Any pets?"),
        ("patient", "We have a dog.", runtime({"slots": {"pets": "a dog"}})),
        ("learner", "Any pets?"),
        ("patient", "A cat.", runtime({"slots": {"pets": "a cat"}})),
    )
    assert issues(validate(turns)) == [("ERROR", "FACT_CONTRADICTION", 5)]


# WARN


def test_consecutive_patient_turns_with_the_same_opening_bigram():
    turns = dialogue(
        ("Where is the pain?", "In the middle of my chest."),
        ("When does it happen?", "In the mornings, mostly."),
    )
    result = validate(turns)
    assert issues(result) == [("WARN", "OPENER_ECHO", 3)]
    assert result["warnings"][0]["details"] == {"bigram": "in the"}


def test_the_same_opening_two_turns_apart_is_no_echo():
    turns = dialogue(
        ("Where is the pain?", "In the middle of my chest."),
        ("When did it start?", "About three weeks ago."),
        ("When does it happen?", "In the mornings, mostly."),
    )
    assert issues(validate(turns)) == []


def test_a_refusal_phrase_reused_consecutively():
    turns = dialogue(
        ("Can you run on the spot for me?", "Honestly, I'd rather not do that."),
        ("Do some push-ups then.", "Look, I'd rather not do that."),
    )
    assert issues(validate(turns)) == [("WARN", "REFUSAL_REPEATED", 3)]


def test_a_refusal_phrase_reused_after_another_turn_is_not_consecutive():
    turns = dialogue(
        ("Can you run on the spot for me?", "I'd rather not do that."),
        ("When did it start?", "About three weeks ago."),
        ("Do some push-ups then.", "I'd rather not do that."),
    )
    assert issues(validate(turns)) == []


def test_a_refusal_reused_read_from_meta():
    turns = transcript(
        ("learner", "Can you run on the spot for me?"),
        ("patient", "No.", runtime({"refusal": "I'm not comfortable with that."})),
        ("learner", "Do some push-ups then."),
        ("patient", "Nope.", runtime({"refusal": "I'm not comfortable with that."})),
    )
    assert issues(validate(turns)) == [("WARN", "REFUSAL_REPEATED", 3)]


def test_elaboration_on_more_than_45_percent_of_eligible_turns():
    # Without meta an eligible turn (after an open or narrative question) is elaborated when it
    # says one of the case's stored elaborations; its length alone says nothing.
    turns = dialogue(
        ("What does the pain feel like?", "Heavy. It's not sharp, it's more like a weight sitting there."),
        ("When did it start?", "About three weeks ago."),
    )
    result = validate(turns)
    assert issues(result) == [("WARN", "ELABORATION_RATE_HIGH", 3)]
    assert result["warnings"][0]["details"] == {"eligible": 2, "elaborated": 1}


@pytest.mark.parametrize(("elaborated", "warned"), [(9, False), (10, True)])
def test_the_elaboration_warning_starts_above_45_percent_read_from_meta(elaborated, warned):
    turns = []
    for turn in range(20):
        meta = runtime({"questionType": "open", "elaborated": turn < elaborated})
        turns += [("learner", "What does it feel like?"), ("patient", f"Answer{turn}.", meta)]
    result = validate(transcript(*turns))
    assert result["summaryMetrics"]["elaborationRate"] == elaborated / 20
    assert issues(result) == ([("WARN", "ELABORATION_RATE_HIGH", 39)] if warned else [])


def test_closed_questions_do_not_count_toward_elaboration():
    turns = dialogue(
        ("Does it go anywhere?", "Down my left arm. Sometimes the jaw. Not often."),
        ("Is it worse on stairs?", "Yes, stairs and hills. Carrying things too. Then I stop."),
    )
    result = validate(turns)
    assert issues(result) == []
    assert result["summaryMetrics"]["elaborationRate"] == 0.0


def test_more_than_one_disfluency_token_in_a_turn():
    turns = dialogue(
        ("When did it start?", "Um, about three weeks ago."),
        ("Where is the pain?", "Uh, in the middle, er, behind the bone."),
    )
    result = validate(turns)
    assert issues(result) == [("WARN", "DISFLUENCY_EXCESS", 3)]
    assert result["warnings"][0]["details"] == {"count": 2}


# INFO


def test_a_turn_over_the_narrative_maximum():
    story = (
        "It was a normal day. I drove my route. Then I walked up to the depot. "
        "My chest went tight. I stopped for a bit. Then it eased off."
    )
    turns = dialogue(("Did anything happen at work?", story))
    result = validate(turns)
    assert issues(result) == [("INFO", "NARRATIVE_TOO_LONG", 1)]
    assert result["info"][0]["details"] == {"sentences": 6}


VAGUE_ANSWERS = [
    "Not really.",
    "Nothing comes to mind.",
    "That's all.",
    "I think that covers it.",
    "Nope.",
    "Just the chest.",
]


def test_more_than_five_vague_prompts_without_any_clarification():
    turns = dialogue(*(("Anything else?", answer) for answer in VAGUE_ANSWERS))
    result = validate(turns)
    # Reported at the sixth vague prompt, the learner turn that crosses the limit.
    assert issues(result) == [("INFO", "NO_CLARIFICATION_FOR_VAGUE_PROMPTS", 10)]
    assert result["info"][0]["details"] == {"vaguePrompts": 6}


def test_five_vague_prompts_or_one_clarification_is_enough():
    assert issues(validate(dialogue(*(("Anything else?", a) for a in VAGUE_ANSWERS[:5])))) == []
    answers = [*VAGUE_ANSWERS[:5], "Sorry, what do you mean?"]
    assert issues(validate(dialogue(*(("Anything else?", a) for a in answers)))) == []


# §12 metrics, by hand


def test_summary_metrics_computed_by_hand():
    turns = dialogue(
        ("What brings you in today?", "My chest gets tight when I climb stairs."),  # open: eligible
        ("Anything else?", "Sorry, what do you mean?"),  # vague; clarification 1
        ("Can you run on the spot for me?", "I'd rather not do that."),  # unsafe request; refusal
        (
            "Tell me about your work.",
            "I drive buses for the council. The depot's up a steep hill, that's where I notice it most.",
        ),  # narrative: eligible, a stored elaboration: elaborated
        ("Anything else?", "Sorry, what do you mean?"),  # clarification 2, a repeat
        ("How does the pain feel?", "It feels heavy, like a weight."),  # open: eligible, plain
        ("Does it feel sharp?", "It feels more like pressure."),  # opener echo of "it feels"
        (
            "Do you take any medications?",
            "Amlodipine, every morning. I should say I quit the cholesterol pills, they gave me aches.",
        ),  # agenda reveal
    )
    result = validate(turns)
    assert issues(result) == [("ERROR", "CLARIFICATION_REPEATED", 9), ("WARN", "OPENER_ECHO", 13)]
    assert result["summaryMetrics"] == {
        "issueCounts": {"errors": 1, "warnings": 1, "info": 0},
        "totalPatientTurns": 8,
        "avgSentencesPerTurn": round(10 / 8, 4),  # 1+1+1+2+1+1+1+2
        "elaborationRate": round(1 / 3, 4),  # 1 elaborated of 3 eligible
        "clarificationRate": round(2 / 8, 4),
        "refusalCount": 1,
        "unsafeRequests": 1,
        "agendaRevealCount": 1,
        "duplicationScores": {
            "openers": round(1 / 7, 4),  # 1 echo among 7 consecutive pairs
            "clarifications": round(1 / 2, 4),  # 1 repeat among 2 clarifications
        },
    }
