"""`validateTranscript` (spec §10–12): for every rule, a small hand-written transcript that
triggers exactly that rule, with its code, severity bucket and turnIndex (read from the text
alone, and where the rule reads meta, from meta too); a clean hand-written transcript without
meta that triggers nothing; the metrics of §12 computed by hand; the shape checks of §11
(`TranscriptError` with the path of the bad field); junk meta read without exceptions; and
engine transcripts validated with and without their meta.

All transcripts are played against the chest-pain case with the reserved persona
(`answer_sentences` 2, `narrative_max_sentences` 5).
"""

from __future__ import annotations

import pytest

from sps_encounter.engine.text import sentence_count
from sps_encounter.engine.validator import (
    MAX_ISSUES,
    TranscriptError,
    check_shape,
    runtime_meta,
    validate_transcript,
)
from tests.unit.sps_encounter.support import (
    bare_case,
    catalog_case,
    dialogue,
    encounter,
    load_schema,
    schema_errors,
    transcript,
)

RESULT_SCHEMA = load_schema("validation-result.schema.json")
SEVERITY_BUCKET = {"ERROR": "errors", "WARN": "warnings", "INFO": "info"}


def runtime(meta):
    """Meta as this runtime records it: the validator reads meta only when it is recognisably
    this runtime's (a `kind` of its own, `rng` and `layers` lists)."""
    return {"kind": "answer", "rng": [], "layers": [], **meta}


def validate(turns, case=None):
    result = validate_transcript(turns, case or catalog_case())
    assert schema_errors(RESULT_SCHEMA, result) == []
    for bucket, severity in (("errors", "ERROR"), ("warnings", "WARN"), ("info", "INFO")):
        assert all(issue["severity"] == severity for issue in result[bucket])
    return result


def issues(result):
    return [
        (issue["severity"], issue["code"], issue["turnIndex"])
        for bucket in ("errors", "warnings", "info")
        for issue in result[bucket]
    ]


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


# Meta and no meta


def test_meta_overrides_what_the_text_alone_would_suggest():
    long_answer = "Heavy. It's not sharp, it's more like a weight sitting there."
    without = dialogue(
        ("What does the pain feel like?", long_answer), ("Anything else?", "Sorry, what do you mean?")
    )
    with_meta = transcript(
        ("learner", "What does the pain feel like?"),
        ("patient", long_answer, runtime({"questionType": "open", "elaborated": False})),
        ("learner", "Anything else?"),
        ("patient", "Sorry, what do you mean?", runtime({"clarification": None})),
    )
    plain = validate(without)["summaryMetrics"]
    recorded = validate(with_meta)["summaryMetrics"]
    assert (plain["elaborationRate"], plain["clarificationRate"]) == (1.0, 0.5)
    assert (recorded["elaborationRate"], recorded["clarificationRate"]) == (0.0, 0.0)


def test_an_engine_transcript_is_clean_with_and_without_its_meta():
    played = encounter(seed=31)
    played.play(
        [
            "What brings you in today?",
            "When did it start?",
            "What does it feel like?",
            "Anything else?",
            "Do you take any medications?",
            "Can you do some push-ups for me?",
            "What's your date of birth?",
            "What's your date of birth?",
            "Are you under a lot of pressure?",
            "I mean, how does the pain in your chest feel?",
            "I'll check your blood pressure.",
            "Have you travelled recently?",
            "Go on?",
            "Run on the spot for me.",
            "Tell me more.",
        ]
    )
    with_meta = validate(played.transcript, played.case)
    without = validate(played.without_meta(), played.case)
    assert issues(with_meta) == []
    assert issues(without) == []
    for metric in (
        "totalPatientTurns",
        "clarificationRate",
        "refusalCount",
        "unsafeRequests",
        "agendaRevealCount",
    ):
        assert with_meta["summaryMetrics"][metric] == without["summaryMetrics"][metric], metric
    assert with_meta["summaryMetrics"]["refusalCount"] == 2
    assert with_meta["summaryMetrics"]["unsafeRequests"] == 2


JUNK_METAS = [
    {},
    {"agendaRevealed": [{"id": "stopped_statin"}, 3, None, ["x"]]},
    {"agendaRevealed": "stopped_statin"},
    {"slots": ["onset"]},
    {"slots": {"onset": ["three", "weeks"], "other": {"deep": [1, 2]}}},
    {"slots": None},
    {"clarification": 5},
    {"clarification": ["Sorry, what do you mean?"]},
    {"refusal": {}},
    {"dobChallenge": "yes"},
    {"dobChallenge": 1},
    {"questionType": 7, "elaborated": "no"},
    {"questionType": "open", "elaborated": 1},
    {"turnIndex": "nope", "kind": None, "opening": 3, "rng": "x"},
    {"elaboration": None, "layers": {"a": 1}},
]


def test_junk_meta_is_read_without_exceptions():
    turns = []
    for meta in JUNK_METAS:
        turns += [
            ("learner", "What does the pain feel like?"),
            ("patient", "Heavy, like a weight.", runtime(meta)),
        ]
    result = validate(transcript(*turns))
    assert result["summaryMetrics"]["totalPatientTurns"] == len(JUNK_METAS)
    # Dicts and numbers listed as agenda ids are not ids: nothing was revealed.
    assert result["summaryMetrics"]["agendaRevealCount"] == 0
    # The list-valued onset is a value other than the case's: reported, not crashed on.
    assert ("ERROR", "FACT_CONTRADICTION", 9) in issues(result)


FOREIGN_METAS = [
    "answer",
    ["answer", "slots"],
    42,
    3.5,
    True,
    # Another system's object: its keys are not this runtime's, whatever they are called.
    {"slots": {"onset": "two days ago"}, "clarification": "Sorry, what do you mean?"},
    {"kind": "answer", "slots": {"onset": "two days ago"}},
    {"kind": "reply", "rng": [], "layers": [], "slots": {"onset": "two days ago"}},
]


@pytest.mark.parametrize("meta", FOREIGN_METAS, ids=repr)
def test_meta_that_is_not_this_runtimes_is_read_as_absent(meta):
    turns = [
        {
            "turnIndex": 0,
            "role": "learner",
            "text": "When did it start?",
            "timestamp": "2026-11-23T10:00:00Z",
        },
        {"turnIndex": 1, "role": "patient", "text": "About three weeks ago.", "meta": meta, "speaker": "SP"},
        {"turnIndex": 2, "role": "learner", "text": "Anything else?"},
        {"turnIndex": 3, "role": "patient", "text": "Sorry, what do you mean?", "meta": meta},
    ]
    check_shape(turns)
    result = validate(turns)
    # No FACT_CONTRADICTION from a foreign `slots`; the clarification is read from the text.
    assert issues(result) == []
    assert result["summaryMetrics"]["clarificationRate"] == 0.5
    # The same slots in this runtime's meta are read.
    recorded = [dict(turn) for turn in turns]
    recorded[1]["meta"] = runtime({"slots": {"onset": "two days ago"}})
    assert issues(validate(recorded)) == [("ERROR", "FACT_CONTRADICTION", 1)]


def test_an_engine_meta_is_recognised_as_this_runtimes():
    played = encounter(seed=7)
    played.play(["When did it start?", "Can you do some push-ups for me?"])
    assert all(runtime_meta(turn["meta"]) is turn["meta"] for turn in played.transcript if "meta" in turn)
    assert runtime_meta({"kind": "answer", "rng": "x", "layers": []}) is None
    assert runtime_meta({"kind": ["answer"], "rng": [], "layers": []}) is None


# §11 shape


def _turns(*indexes, role="learner", text="Hello?"):
    return [{"turnIndex": index, "role": role, "text": text} for index in indexes]


@pytest.mark.parametrize(
    ("turns", "path"),
    [
        ([*_turns(0), {"turnIndex": 1, "role": "doctor", "text": "Hi."}], "transcript[1].role"),
        ([*_turns(0), {"turnIndex": 1, "text": "Hi."}], "transcript[1].role"),
        (_turns(0, 2, 1), "transcript[2].turnIndex"),
        (_turns(0, 1, 1), "transcript[2].turnIndex"),
        ([{"turnIndex": True, "role": "learner", "text": "Hi."}], "transcript[0].turnIndex"),
        ([*_turns(0), {"turnIndex": False, "role": "patient", "text": "Hi."}], "transcript[1].turnIndex"),
        ([{"turnIndex": -1, "role": "learner", "text": "Hi."}], "transcript[0].turnIndex"),
        ([{"turnIndex": "3", "role": "learner", "text": "Hi."}], "transcript[0].turnIndex"),
        ([{"turnIndex": 1.0, "role": "learner", "text": "Hi."}], "transcript[0].turnIndex"),
        ([*_turns(0, 1, 2), {"turnIndex": 3, "role": "patient", "text": 42}], "transcript[3].text"),
        ([{"turnIndex": 0, "role": "patient", "text": None}], "transcript[0].text"),
        ([{"turnIndex": 2**53, "role": "learner", "text": "Hi."}], "transcript[0].turnIndex"),
        ([*_turns(0), {"turnIndex": 10**30, "role": "patient", "text": "Hi."}], "transcript[1].turnIndex"),
        (None, "transcript"),
        ({"turnIndex": 0, "role": "learner", "text": "Hi."}, "transcript"),
        ("transcript", "transcript"),
    ],
)
def test_a_malformed_transcript_names_the_turn_and_field(turns, path):
    with pytest.raises(TranscriptError) as raised:
        check_shape(turns)
    assert raised.value.path == path
    assert str(raised.value).startswith(f"{path}: ")
    with pytest.raises(TranscriptError):
        validate_transcript(turns, catalog_case())


def test_the_largest_safe_javascript_integer_is_a_valid_turn_index():
    turns = [
        {"turnIndex": 2**53 - 2, "role": "learner", "text": "When did it start?"},
        {"turnIndex": 2**53 - 1, "role": "patient", "text": "About three weeks ago."},
    ]
    check_shape(turns)
    assert issues(validate(turns)) == []


def test_indexes_must_increase_but_need_not_be_contiguous():
    turns = [
        {"turnIndex": 5, "role": "learner", "text": "When did it start?"},
        {"turnIndex": 9, "role": "patient", "text": "About three weeks ago.", "meta": None},
        {"turnIndex": 10, "role": "patient", "text": "Yes."},
    ]
    check_shape(turns)
    assert validate(turns)["summaryMetrics"]["totalPatientTurns"] == 2


def test_the_issue_lists_stop_at_a_thousand_but_every_issue_is_counted():
    """A transcript of junk cannot make the answer too large to send back."""
    result = validate(dialogue(*[("Any allergies?", "Um, I, uh, probably have angina.")] * 1200))
    assert len(result["errors"]) == MAX_ISSUES
    assert len(result["warnings"]) == MAX_ISSUES
    # Each turn: DISFLUENCY_EXCESS; each but the first: OPENER_ECHO (the same opening again).
    assert result["summaryMetrics"]["issueCounts"] == {"errors": 1200, "warnings": 2399, "info": 0}


def test_a_contradiction_repeated_in_one_turn_is_one_issue():
    codes = [
        issue["code"]
        for issue in validate(dialogue(("When did it start?", "It started two days ago. " * 50)))["errors"]
    ]
    assert codes == ["FACT_CONTRADICTION"]


# Realistic transcripts from other SPS systems (an acceptance review): each rule's trigger next to
# the near-miss it must let pass.

ZH = ("abdominal-pain-zh", "zh-anxious-balanced")


def zh_case():
    return catalog_case(*ZH)


def codes(result):
    return [code for _, code, _ in issues(result)]


@pytest.mark.parametrize(
    ("reply", "leaks"),
    [
        # 88 is the heart rate: a bare objective number is someone's age here, not a vital sign.
        ("He was 88 when he died.", False),
        ("My dad died at 88.", False),
        ("It's been 88 days.", False),
        ("It was 88 this morning.", True),
        ("My pulse was 88.", True),
        # A unit must be a whole word: "2 kilometres" holds no "kilo".
        ("I can't walk more than 2 kilometres.", False),
        ("I weigh about 90 kilos.", True),
        # A change the patient reports is history, not a leaked measurement.
        ("I've lost about 5 kilos.", False),
        ("I've put on 10 pounds since the summer.", False),
        ("About 90 percent better, thanks.", False),
        # Vital signs and lab-style values stay leaks, however they are said.
        ("My blood pressure is 160/95.", True),
        ("My blood pressure is 160 over 95.", True),
        # A value of the patient's own from before, not today's finding (36.8): history.
        ("Temperature 38.5 last night.", False),
        ("My blood pressure was 160 over 100 at the chemist last month.", False),
        ("If my blood pressure went up to 180, would I need to come in?", False),
        ("I was 95 kilos at Christmas.", False),
        ("The physio said not to lift more than 10 kilos.", False),
        ("It was 152 over 94 at the chemist.", True),
        ("Sats 98% on the finger thing.", True),
        ("My pulse raced for 2 hours.", False),
    ],
)
def test_numeric_leakage_reads_the_context_of_a_number(reply, leaks):
    turns = dialogue(("How have you been otherwise?", reply))
    assert codes(validate(turns)) == (["NUMERIC_LEAKAGE"] if leaks else [])


@pytest.mark.parametrize(
    ("reply", "leaks"),
    [
        # 20 is the respiratory rate, 98 the oxygen saturation.
        ("快20个小时了。", False),
        ("我奶奶98岁了。", False),
        ("瘦了5斤。", False),
        ("呼吸20。", True),
        ("心率88。", True),
        ("血氧98。", True),
        ("我有58公斤。", True),
    ],
)
def test_chinese_numbers_with_a_unit_of_time_age_or_change_are_no_leakage(reply, leaks):
    turns = dialogue(("您还有别的不舒服吗？", reply))
    assert codes(validate(turns, zh_case())) == (["NUMERIC_LEAKAGE"] if leaks else [])


@pytest.mark.parametrize(
    "question",
    ["What's your usual blood pressure?", "What did your home monitor say?", "Do you know your numbers?"],
)
@pytest.mark.parametrize("reading", ["160/95 mmHg.", "160 over 95."])
def test_asking_for_a_reading_the_patient_knows_is_a_measurement_request(question, reading):
    assert codes(validate(dialogue((question, reading)))) == []
    # Both forms of the same reading leak alike when nothing was asked for.
    assert codes(validate(dialogue(("Is the pain worse at night?", reading)))) == ["NUMERIC_LEAKAGE"]


def test_a_chinese_question_about_a_known_reading_is_a_measurement_request():
    assert codes(validate(dialogue(("您平时血压多少？", "160/95。")), zh_case())) == []
    assert codes(validate(dialogue(("您哪里不舒服？", "160/95。")), zh_case())) == ["NUMERIC_LEAKAGE"]


@pytest.mark.parametrize(
    ("reply", "flagged"),
    [
        ("My GP said the diagnosis was high blood pressure.", False),
        ("The diagnosis was high blood pressure.", True),
        ("I'm scared I'm having a heart attack, like my dad.", False),
        ("I think it's a heart attack.", True),
        ("I think it's angina.", True),
        ("Do you need to check my bloods?", False),
        ("You should order an ECG.", True),
        ("You should do an ECG, I reckon.", True),
    ],
)
def test_diagnosis_or_coaching_is_the_patients_own_words_not_a_question_report_or_fear(reply, flagged):
    turns = dialogue(("What are you worried about?", reply))
    assert codes(validate(turns)) == (["DIAGNOSIS_OR_COACHING"] if flagged else [])


@pytest.mark.parametrize(
    ("reply", "flagged"),
    [
        ("你可以开点止痛药吗？", False),
        ("您需要查一下血吗？", False),
        ("你应该给我做个心电图。", True),
        ("医生说可能是阑尾炎。", False),
        ("我怕是阑尾炎。", False),
        ("我觉得是阑尾炎。", True),
    ],
)
def test_chinese_patient_questions_reports_and_fears_are_no_diagnosis(reply, flagged):
    turns = dialogue(("您还担心什么？", reply))
    assert codes(validate(turns, zh_case())) == (["DIAGNOSIS_OR_COACHING"] if flagged else [])


def test_a_stored_line_of_the_case_is_never_diagnosis_or_coaching():
    line = "Good question, I never thought to mention the tablets."

    def with_line(document):
        document["hidden_agenda"][0]["variants"] = [line, line.replace("tablets", "pills")]

    case = bare_case(with_line)
    assert codes(validate(dialogue(("Do you take anything?", f"Amlodipine.  {line[:-1]}")), case)) == []
    assert codes(validate(dialogue(("Do you take anything?", "Good question, doctor.")), case)) == [
        "DIAGNOSIS_OR_COACHING"
    ]


def test_an_answer_that_is_not_sure_is_no_clarification_and_a_remark_is_no_refusal():
    turns = dialogue(
        ("What caused it?", "I'm not sure what caused it."),
        ("Any idea at all?", "Honestly, I'm not sure what caused it."),
        ("Any swelling in your ankles?", "That's not something I've noticed."),
        ("Any rashes?", "No, that's not something I've noticed."),
        ("How are you coping?", "I can't do it anymore, honestly."),
    )
    result = validate(turns)
    assert issues(result) == []
    assert result["summaryMetrics"]["clarificationRate"] == 0.0
    assert result["summaryMetrics"]["refusalCount"] == 0
    # The near-misses: an actual clarification and an actual refusal, twice each.
    turns = dialogue(
        ("What caused it?", "I'm not sure what you mean."),
        ("Go on?", "Honestly, I'm not sure what you mean."),
        ("Touch your toes.", "That's not something I'd do."),
        ("Go on, touch them.", "No, that's not something I'd do."),
    )
    assert issues(validate(turns)) == [
        ("ERROR", "CLARIFICATION_REPEATED", 3),
        ("WARN", "REFUSAL_REPEATED", 7),
    ]


@pytest.mark.parametrize(
    ("case", "reply"),
    [
        (None, "Pardon?"),
        (None, "Sorry?"),
        (None, "I don't understand."),
        (ZH, "啥意思？"),
        (ZH, "您是指哪方面？"),
    ],
)
def test_short_clarifications_are_counted(case, reply):
    result = validate(dialogue(("And the other thing?", reply)), catalog_case(*case) if case else None)
    assert result["summaryMetrics"]["clarificationRate"] == 1.0
    near_miss = dialogue(("And the other thing?", "I don't understand why it keeps happening."))
    assert validate(near_miss)["summaryMetrics"]["clarificationRate"] == 0.0


def test_a_clarification_is_identified_by_the_clause_that_matched():
    turns = dialogue(
        ("How is it?", "What do you mean? The pain?"),
        ("How is it now?", "Well, what do you mean? My chest?"),
    )
    result = validate(turns)
    assert issues(result) == [("ERROR", "CLARIFICATION_REPEATED", 3)]
    assert result["errors"][0]["details"] == {"phrase": "what do you mean"}


def test_repeated_phrases_are_named_in_the_details():
    refusals = validate(
        dialogue(
            ("Can you run on the spot for me?", "I'd rather not do that."),
            ("Do some push-ups then.", "No. I'd rather not do that."),
        )
    )
    assert refusals["warnings"][0]["details"] == {"phrase": "i'd rather not do that"}
    challenges = validate(
        dialogue(
            ("What's your date of birth?", "Why do you need that? I gave it at the front desk."),
            ("What's your date of birth?", "Didn't I already tell the receptionist?"),
        )
    )
    assert challenges["errors"][0]["details"] == {"phrase": "didn't i already tell the receptionist"}


def test_stored_phrases_match_whatever_the_whitespace_and_trailing_punctuation():
    turns = dialogue(
        ("What's your date of birth?", "Why do you need that?   I gave it at the front desk"),
        ("What's your date of birth?", "Didn't  I already tell the receptionist"),
        (
            "Do you take any medications?",
            "Amlodipine. I should say I quit the cholesterol pills,  they gave me aches!",
        ),
        (
            "Any medical problems?",
            "High blood pressure. I should say I quit the cholesterol pills, they gave me aches",
        ),
    )
    assert issues(validate(turns)) == [
        ("ERROR", "DOB_CHALLENGE_REPEATED", 3),
        ("ERROR", "AGENDA_REVEALED_TWICE", 7),
    ]
    # Other words are other phrases.
    turns = dialogue(
        ("What's your date of birth?", "Why do you need that? I gave it at the front desk."),
        ("What's your date of birth?", "Didn't I tell you already?"),
    )
    assert issues(validate(turns)) == []


@pytest.mark.parametrize(
    ("reply", "count"),
    [
        ("Ummm, it hurts, uhhh, a lot.", 2),
        ("Err… it, erm, hurts.", 2),
        ("Hmmmm, yes, um, I think so.", 2),
        # One hesitation however it is spelled: no warning on a transcript from elsewhere.
        ("Uh… um, it hurts.", 0),
        ("Hmmmm, um, yes.", 0),
        ("Ummm, it hurts a lot.", 0),
        ("The umbrella, the error, the hummus.", 0),
    ],
)
def test_lengthened_fillers_are_disfluency_tokens(reply, count):
    result = validate(dialogue(("Where is the pain?", reply)))
    warned = [issue for issue in result["warnings"] if issue["code"] == "DISFLUENCY_EXCESS"]
    assert [issue["details"]["count"] for issue in warned] == ([count] if count else [])


def test_short_answers_and_backchannels_have_no_opening_bigram():
    assert issues(validate(dialogue(("Is it heavy?", "Yes."), ("Is it tight?", "Yes.")))) == []
    assert issues(validate(dialogue(("Is it heavy?", "Yes it is."), ("Is it tight?", "Yes it is.")))) == []
    assert (
        issues(validate(dialogue(("And it's every day?", "Mm-hmm."), ("Worse at night?", "Mm-hmm.")))) == []
    )
    longer = dialogue(
        ("Is it heavy?", "Yes it is, mostly on the stairs."), ("Is it tight?", "Yes it is, at times.")
    )
    assert issues(validate(longer)) == [("WARN", "OPENER_ECHO", 3)]
    zh = zh_case()
    assert issues(validate(dialogue(("疼吗？", "疼。"), ("还疼吗？", "疼。")), zh)) == []
    assert issues(validate(dialogue(("疼吗？", "很疼。"), ("还疼吗？", "很疼。")), zh)) == []
    no_no = dialogue(("做过手术吗？", "没有，从来没开过刀。"), ("住过院吗？", "没有，医院都没住过。"))
    assert issues(validate(no_no, zh)) == []
    echo = dialogue(("疼得厉害吗？", "很疼，晚上都睡不着。"), ("还疼吗？", "很疼，走路都难受。"))
    assert issues(validate(echo, zh)) == [("WARN", "OPENER_ECHO", 3)]


def test_decimals_and_abbreviations_do_not_end_sentences():
    reply = (
        "Dr. Smith gave me 5.5 mg of something, e.g. for the nerves, etc. and Mr. Jones agreed. That's all."
    )
    result = validate(dialogue(("Tell me about your treatment.", reply)))
    assert result["summaryMetrics"]["avgSentencesPerTurn"] == 2.0
    assert sentence_count("I take vitamins, etc. Then I sleep.") == 2
    assert sentence_count("It was 36.8. Then 37.2.") == 2


def test_refusal_count_counts_privacy_declines_with_and_without_meta():
    played = encounter(seed=5)
    played.play(["Do you smoke?", "Can you do some push-ups for me?", "When did it start?"])
    assert played.responses[0].meta["kind"] == "decline"
    with_meta = validate(played.transcript, played.case)["summaryMetrics"]
    without = validate(played.without_meta(), played.case)["summaryMetrics"]
    assert with_meta["refusalCount"] == without["refusalCount"] == 2


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_reading_request_gate_never_skips_a_pattern_that_matches(language):
    from sps_encounter.engine.case import Language
    from sps_encounter.engine.text_rules import text_rules as _rules

    gated = _rules(Language(language)).reading_request
    probes = [
        "what's your usual blood pressure?",
        "what did your home monitor say?",
        "do you know your numbers?",
        "what did the nurse say your bp was?",
        "您平时血压多少？",
        "血糖高不高？",
        "家里有血压计吗？",
        *(f"well, {literal} and so on" for literal in gated.literals),
    ]
    for folded in probes:
        brute = [name for name, pattern in gated.entries if pattern.search(folded)]
        assert [name for name, _ in gated.matches(folded)] == brute, folded


def test_a_deadline_stops_validation_between_turns():
    import time

    from sps_encounter.engine.validator import ValidationTooSlow

    case = catalog_case()
    transcript = [
        {"turnIndex": 0, "role": "learner", "text": "When did it start?"},
        {"turnIndex": 1, "role": "patient", "text": "About three weeks ago."},
    ]
    with pytest.raises(ValidationTooSlow) as raised:
        validate_transcript(transcript, case, deadline=time.monotonic() - 1)
    assert raised.value.turns_read == 0
    assert validate_transcript(transcript, case, deadline=time.monotonic() + 60)["errors"] == []
