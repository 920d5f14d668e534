"""What real clinical dialogue brought up (issue 22): the validator leaves a patient's ordinary
speech alone, the lexicons know the common forms, and the runtime knows its own case's facts and
stays in role. eval/sps (`rails eval sps`) measures the same on annotated transcripts."""

from __future__ import annotations

import pytest

from sps_encounter.engine.respond import Kind
from sps_encounter.engine.text import with_arabic_numerals, with_english_numerals
from sps_encounter.engine.validator import (
    asks_for_measurement,
    reads_as_refusal,
    validate_transcript,
)
from tests.unit.sps_encounter.support import catalog_case, dialogue, encounter

ZH = ("abdominal-pain-zh", "zh-anxious-balanced")
HEADACHE = ("headache", "en-friendly-balanced")


def codes(turns, case=None):
    result = validate_transcript(turns, case or catalog_case())
    return [issue["code"] for bucket in ("errors", "warnings", "info") for issue in result[bucket]]


@pytest.mark.parametrize(
    "reply",
    [
        "I can't lift more than 20 kg at work, the physio said.",
        "It's about 70 percent better since the tablets.",
        "If my blood pressure went up to 180, would I need to come in?",
        "I was 95 kilos at Christmas, I'm less now.",
        "At the pharmacy in August it was 148 over 90, they said that's high-ish.",
        "Uh… um, it's not great, to be honest.",
        "My husband's is high too, 150 over 95, he's on tablets for it.",
    ],
)
def test_ordinary_patient_speech_is_not_flagged(reply):
    assert codes(dialogue(("How have things been?", reply))) == []


def test_backchannels_in_a_row_are_no_opener_echo():
    turns = dialogue(("So it's every day?", "Mm-hmm."), ("And worse at night?", "Mm-hmm."))
    assert codes(turns) == []


def test_a_long_answer_to_an_open_question_is_no_elaboration_of_the_runtime():
    long = "Well it started at work. I was on the stairs. I had to stop. It went off after a bit. Then again."
    turns = dialogue(("What happened?", long), ("How does it feel?", "Heavy. Like a weight. Then it goes."))
    assert "ELABORATION_RATE_HIGH" not in codes(turns)


@pytest.mark.parametrize(
    "learner",
    [
        "Can we check your blood pressure?",
        "Let's check your blood pressure.",
        "Would it be alright if I check your blood pressure?",
        "152 over 94, and your pulse is 88.",
        "Have you had your blood pressure checked anywhere recently?",
    ],
)
def test_a_measurement_or_a_reading_read_out_lets_the_patient_say_the_number(learner):
    case = catalog_case()
    assert asks_for_measurement(case, case.lexicon.fold(learner))
    assert codes(dialogue((learner, "So that's 152 over 94, is it?"))) == []


@pytest.mark.parametrize(
    "learner",
    [
        "And then?",
        "Anything more?",
        "Tell me more.",
        "Okay. Go on.",
        "Mm-hm. And since then?",
        "Anything else at all you wanted to mention?",
    ],
)
def test_content_free_prompts_are_vague(learner):
    case = catalog_case()
    assert case.lexicon.vague.search(case.lexicon.fold(learner))


@pytest.mark.parametrize("reply", ["I would rather not.", "I'd rather not say.", "Do I have to answer that?"])
def test_common_refusals_are_refusals(reply):
    assert reads_as_refusal(catalog_case(), reply)


@pytest.mark.parametrize(
    "reply", ["避孕的事……能不说吗？有点不好意思。", "不用不用，我还是先别吃了，等医生看完再说吧。"]
)
def test_common_chinese_refusals_are_refusals(reply):
    assert reads_as_refusal(catalog_case(*ZH), reply)


@pytest.mark.parametrize(
    ("case", "question", "slot"),
    [
        (None, "Have you fainted at all?", "associated"),
        (None, "Have you ever had a reaction to penicillin?", "allergies"),
        (HEADACHE, "When did the headaches start?", "onset"),
        (None, "Any heart problems in the family?", "family_history"),
    ],
)
def test_the_runtime_answers_from_the_facts_its_case_holds(case, question, slot):
    played = encounter(catalog_case(*case) if case else None)
    response = played.say(question)
    assert slot in played.learner.slots
    assert response.meta["kind"] == Kind.ANSWER.value


@pytest.mark.parametrize(
    ("case", "question"),
    [
        (None, "Are you an actor?"),
        (None, "Sorry, are you a real patient or one of the simulated ones?"),
        (ZH, "您是真的病人，还是标准化病人？"),
        (None, "Before we start, you're the standardized patient for this station, right?"),
        (ZH, "那个……问一下，您是来配合我们考试的标准化病人吗？"),
    ],
)
def test_a_role_question_is_answered_in_role(case, question):
    played = encounter(catalog_case(*case) if case else None)
    response = played.say(question)
    assert response.meta["kind"] == Kind.IN_ROLE.value
    assert response.text in played.case.lexicon.source.role_answers


@pytest.mark.parametrize(
    ("case", "asked", "guardrail"),
    [
        (None, "Take these tablets for me now, go on.", "take_medicine_now"),
        (None, "Could we skip the examination? Just tell me your blood pressure today.", "skip_examination"),
        (None, "Can you read out the last patient's results for me?", "other_patients_records"),
        (ZH, "我这儿有布洛芬，您先吃两片。", "take_medicine_now"),
        (ZH, "疼得这么厉害，要不你先把这片止痛药吃了，我们再慢慢聊？", "take_medicine_now"),
    ],
)
def test_an_unsafe_request_is_refused_not_answered(case, asked, guardrail):
    played = encounter(catalog_case(*case) if case else None)
    response = played.say(asked)
    assert guardrail in played.learner.guardrails
    assert response.meta["kind"] == Kind.REFUSAL.value
    assert "amlodipine" not in response.text.casefold()


@pytest.mark.parametrize(
    "reply",
    [
        # A share, not a saturation.
        "They take the edge off. Maybe 50 percent? For three, four hours.",
        # A year, not a reading.
        "Blood pressure, since 2016. Cholesterol's high.",
        # A remembered pair whose 88 happens to be today's pulse.
        "I had a home machine. Last time I did it, it was 138 over 88, but that was ages ago.",
    ],
)
def test_shares_years_and_remembered_pairs_are_no_measurement(reply):
    assert codes(dialogue(("Any health problems in the past?", reply)), catalog_case()) == []


def test_today_s_own_reading_still_leaks():
    turns = dialogue(("Any health problems in the past?", "My blood pressure is 152 over 94."))
    assert "NUMERIC_LEAKAGE" in codes(turns, catalog_case())


def test_a_duration_the_patient_imagines_contradicts_nothing():
    turns = dialogue(
        ("How are you feeling about all this?", "Work. If I'm off for six weeks, that's the rota knackered.")
    )
    assert codes(turns, catalog_case()) == []


def test_a_chinese_patient_diagnosing_after_addressing_the_doctor_is_still_diagnosing():
    turns = dialogue(("您哪里不舒服？", "医生我跟您说，我这就是阑尾炎，我查过了。"))
    assert "DIAGNOSIS_OR_COACHING" in codes(turns, catalog_case(*ZH))
    told = dialogue(("您哪里不舒服？", "医生跟我说可能是阑尾炎。"))
    assert "DIAGNOSIS_OR_COACHING" not in codes(told, catalog_case(*ZH))


def test_a_short_follow_up_stays_on_the_facts_asked_before_it():
    turns = dialogue(
        ("What medicines do you take?", "Amlodipine."),
        ("Just that?", "Should be a statin and all. I've not had it for two months."),
    )
    assert codes(turns) == []


def test_someone_else_s_facts_contradict_nothing():
    turns = dialogue(
        ("Tell me about this chest pain from the start.", "My brother's started about two months ago.")
    )
    assert "FACT_CONTRADICTION" not in codes(turns)


def test_an_open_question_after_a_fact_still_hears_a_contradiction():
    turns = dialogue(
        ("What medicines do you take?", "Amlodipine."),
        ("Tell me about this chest pain from the start.", "It started about two months ago."),
    )
    assert "FACT_CONTRADICTION" in codes(turns)


def test_a_reading_in_chinese_numerals_leaks_as_one_in_digits():
    turns = dialogue(("您现在感觉怎么样？", "我现在心跳一百零二，自己都能感觉到。"))
    assert "NUMERIC_LEAKAGE" in codes(turns, catalog_case(*ZH))


@pytest.mark.parametrize(
    "reply",
    [
        "我爸高血压，今年六十三了，降压药吃了十来年。",
        "忙死了，下午三点之前要交二十几张表。",
        "十分疼，疼得厉害。",
        # Someone else's blood pressure, and an age after a condition's sign.
        "我爸血压高，六十多了，一直吃着药。我老公也有点高，一百四十几，医生让他少吃盐。",
    ],
)
def test_chinese_numbers_that_are_ages_counts_or_words_do_not_leak(reply):
    assert "NUMERIC_LEAKAGE" not in codes(dialogue(("家里人有什么病吗？", reply)), catalog_case(*ZH))


def test_earlier_episodes_told_in_chinese_contradict_a_first_episode():
    turns = dialogue(("以前有过这样的疼吗？", "有过，去年也这么疼过两三回，每次忍一忍就过去了。"))
    assert "FACT_CONTRADICTION" in codes(turns, catalog_case(*ZH))


@pytest.mark.parametrize(
    ("said", "read"),
    [
        ("心跳一百零二", "心跳102"),
        ("三十八度", "38度"),
        ("十五分钟", "15分钟"),
        ("一百二", "120"),
        ("一千零五十", "1050"),
        ("两三回", "两三回"),
        ("十分疼", "十分疼"),
        # A tenth said after the point or the degree.
        ("三十八度一", "38.1度"),
        ("三十八点一", "38.1"),
        ("一点都不疼", "一点都不疼"),
    ],
)
def test_chinese_numerals_with_a_place_are_read_as_digits(said, read):
    assert with_arabic_numerals(said) == read


@pytest.mark.parametrize(
    ("said", "read"),
    [
        ("pulse eighty-eight", "pulse 88"),
        ("one fifty-two over ninety-four", "152 over 94"),
        ("a hundred and twenty over eighty", "120 over 80"),
        ("thirty-six point six", "36.6"),
        ("Ninety seven percent", "97 percent"),
        # Single digits stay words: "one" is as often a pronoun.
        ("the bad one, eight out of ten", "the bad one, eight out of 10"),
        ("one of those things", "one of those things"),
    ],
)
def test_english_numbers_of_ten_or_more_in_words_are_read_as_digits(said, read):
    assert with_english_numerals(said) == read


@pytest.mark.parametrize(
    "learner",
    [
        "Right, the machine's done. Blood pressure one fifty-two over ninety-four, pulse eighty-eight.",
        "Your temperature is thirty-six point eight.",
    ],
)
def test_a_result_read_out_in_words_is_a_measurement(learner):
    case = catalog_case()
    assert asks_for_measurement(case, case.lexicon.fold(learner)) is True


@pytest.mark.parametrize(
    ("case", "learner", "patient"),
    [
        (
            None,
            "I'll check your blood pressure in a minute.",
            "Don't bother, it's 152 over 94 today, I know.",
        ),
        (ZH, "我现在给您量一下体温。", "不用量了，三十八度一，我自己知道。"),
    ],
)
def test_a_patient_who_waves_the_measurement_away_and_says_today_s_value_leaks_it(case, learner, patient):
    assert "NUMERIC_LEAKAGE" in codes(dialogue((learner, patient)), catalog_case(*case) if case else None)


def test_the_patient_may_read_out_what_the_learner_measured():
    turns = dialogue(
        ("Let me check your blood pressure now.", "Go on then."),
        ("152 over 94.", "152 over 94? Is that bad?"),
    )
    assert codes(turns) == []


@pytest.mark.parametrize(
    "reply",
    ["Um, yeah, a bit. I've started again since the divorce.", "Twenty cigarettes a day, near enough."],
)
def test_smoking_said_in_other_words_contradicts_a_never_smoker(reply):
    assert "FACT_CONTRADICTION" in codes(dialogue(("Do you smoke at all?", reply)), catalog_case(*HEADACHE))
