"""`validateTranscript` on realistic transcripts from other SPS systems (an acceptance review):
each rule's trigger next to the near-miss it must let pass, in English and Chinese."""

from __future__ import annotations

import pytest

from sps_encounter.engine.text import sentence_count
from sps_encounter.engine.validator import validate_transcript
from tests.unit.sps_encounter.support import (
    bare_case,
    catalog_case,
    dialogue,
    encounter,
)
from tests.unit.sps_encounter.validating import ZH, codes, issues, validate, zh_case


@pytest.mark.parametrize(
    ("reply", "leaks"),
    [
        # 88 is the heart rate: a bare objective number is someone's age here, not a vital sign.
        ("He was 88 when he died.", False),
        ("My granddad died at 88.", False),
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
        # One in each of two sentences is how people talk; two in one sentence are still two,
        # and an ellipsis ends no sentence.
        ("Um. It's, it's silly. They've got, um, worse.", 0),
        ("The bad ones, um, a few times a week. This week it was Monday, and, uh, Wednesday.", 0),
        ("Um, it hurts. It's, uh, worse at night, um, really.", 2),
        ("Uh... I don't, um, know.", 2),
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
