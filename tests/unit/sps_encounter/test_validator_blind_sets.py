"""`validateTranscript` on what outside blind sets of transcripts found: each false alarm and
missed mistake said afresh (not the sets' own turns), next to what the rule must still leave
alone. The sets and their figures: docs/judges.md, "SPS"."""

from __future__ import annotations

import pytest

from sps_encounter.engine.validator import asks_for_measurement
from tests.unit.sps_encounter.support import catalog_case, dialogue
from tests.unit.sps_encounter.validating import codes, validate, zh_case

# A blind set's false alarms and missed mistakes (g, read on c72e518), each said afresh.


@pytest.mark.parametrize(
    ("learner", "reply"),
    [
        ("量好了，体温三十八度二。", "三十八度二？是发烧了吗？"),
        ("化验出来了，白细胞十三点二。", "十三点二，这个高不高？"),
    ],
)
def test_a_value_the_learner_just_read_out_is_no_leakage_when_the_patient_repeats_it(learner, reply):
    assert codes(validate(dialogue((learner, reply)), zh_case())) == []
    assert codes(validate(dialogue(("还有哪里不舒服？", reply)), zh_case())) == ["NUMERIC_LEAKAGE"]


@pytest.mark.parametrize(
    ("reply", "contradicts"),
    [
        ("A bit low, I suppose. It's not hopeless or anything.", False),
        ("Honestly it all feels hopeless.", True),
    ],
)
def test_a_conflict_the_patient_denies_is_no_contradiction(reply, contradicts):
    turns = dialogue(("How has your mood been lately?", reply))
    result = validate(turns, catalog_case("headache", "en-friendly-balanced"))
    assert codes(result) == (["FACT_CONTRADICTION"] if contradicts else [])


@pytest.mark.parametrize(
    ("reply", "contradicts"),
    [
        ("My father, yes, his heart. He was seventy-two.", True),
        ("My dad passed at eighty.", True),
        ("My dad, heart attack. He was sixty.", False),
        ("My mate Kev had a stent last year. He was fifty-five.", False),
    ],
)
def test_a_fathers_age_at_death_other_than_the_cases_contradicts_it(reply, contradicts):
    turns = dialogue(("Any heart trouble in the family?", reply))
    assert codes(validate(turns)) == (["FACT_CONTRADICTION"] if contradicts else [])


def test_telling_the_learner_what_to_ask_next_is_coaching():
    coached = dialogue(("Anything else?", "You'll probably want to ask about my tablets next."))
    assert codes(validate(coached)) == ["DIAGNOSIS_OR_COACHING"]
    missed = dialogue(("Anything else?", "Honestly, that's the bit people miss: the tablets."))
    assert codes(validate(missed)) == ["DIAGNOSIS_OR_COACHING"]


@pytest.mark.parametrize(
    ("case", "learner", "measures"),
    [
        ("en", "Can I check your full name and date of birth?", False),
        ("en", "Can I just check, is this the right room for the station?", False),
        ("en", "Can I just check your pulse?", True),
        ("zh", "刚才护士测了：体温三十八度一，心率一百零二。", True),
        ("zh", "您的体温是多少？", True),
    ],
)
def test_checking_who_the_patient_is_measures_nothing_and_results_in_chinese_numerals_do(
    case, learner, measures
):
    chosen = zh_case() if case == "zh" else catalog_case()
    assert asks_for_measurement(chosen, chosen.lexicon.fold(learner)) is measures


# An independent review of the rules above: what each must still catch, and leave alone.


def test_a_number_the_learner_said_in_another_sense_is_no_reading_read_out():
    turns = dialogue(
        ("You mentioned your mum is 88 now?", "She is, bless her. My pulse was 88 too, the nurse said.")
    )
    assert codes(validate(turns)) == ["NUMERIC_LEAKAGE"]
    assert codes(validate(dialogue(("您住的是102床，对吧？", "对，102床。我心率102。")), zh_case())) == [
        "NUMERIC_LEAKAGE"
    ]


@pytest.mark.parametrize(
    ("reply", "contradicts"),
    [
        ("I'm not NOT hopeless, if that makes sense.", True),
        ("Honestly, it's never not hopeless these days.", True),
        ("I don't feel hopeless, just tired.", False),
        ("I wouldn't call it hopeless.", False),
    ],
)
def test_a_double_negative_is_no_denial_and_a_denied_feeling_is_one(reply, contradicts):
    turns = dialogue(("How has your mood been lately?", reply))
    result = validate(turns, catalog_case("headache", "en-friendly-balanced"))
    assert codes(result) == (["FACT_CONTRADICTION"] if contradicts else [])


@pytest.mark.parametrize(
    ("reply", "contradicts"),
    [
        ("My father died of a heart attack at 72.", True),
        ("Lost my dad at 75, his heart.", True),
        ("My dad, yes. He'd smoked since he was 15, and his heart gave out at sixty.", False),
        ("My dad had a heart attack at sixty. He was 28 when I was born.", False),
    ],
)
def test_a_fathers_age_is_read_only_as_his_age_at_death(reply, contradicts):
    turns = dialogue(("Any heart trouble in the family?", reply))
    assert codes(validate(turns)) == (["FACT_CONTRADICTION"] if contradicts else [])


@pytest.mark.parametrize(
    "reply",
    [
        "You'll need to ask my wife, she sorts all my tablets.",
        "You'd want to check with the surgery, I can never remember her name.",
        "That's the thing people forget about retirement, you lose your routine.",
    ],
)
def test_sending_the_learner_to_someone_else_is_no_coaching(reply):
    assert codes(validate(dialogue(("Anything else?", reply)))) == []


@pytest.mark.parametrize(
    ("case", "learner", "measures"),
    [
        ("en", "Can I check your name and date of birth and then take your blood pressure?", True),
        ("en", "Can I check, um, your blood pressure?", True),
        ("zh", "体温三十八度以上才算发烧。还有别的不舒服吗？", False),
        ("zh", "心率一百多的话您会心慌吗？", False),
    ],
)
def test_a_vital_sign_after_the_name_is_measured_and_a_threshold_is_not(case, learner, measures):
    chosen = zh_case() if case == "zh" else catalog_case()
    assert asks_for_measurement(chosen, chosen.lexicon.fold(learner)) is measures


# A blind set's false alarms and missed mistakes (h, read on 0b9d290), each said afresh.


@pytest.mark.parametrize(
    ("asked", "flagged"),
    [
        ("It's early to say, but it could be angina, which we'd want to check for.", False),
        ("What do you think is going on?", True),
    ],
)
def test_a_diagnosis_the_learner_just_offered_said_back_is_not_the_patients(asked, flagged):
    turns = dialogue((asked, "Angina. Is that a heart thing? My neighbour's got that, he carries a spray."))
    assert codes(validate(turns)) == (["DIAGNOSIS_OR_COACHING"] if flagged else [])
    zh = dialogue(
        ("有可能是阑尾炎，我们要查一下。" if not flagged else "您觉得是怎么回事？", "阑尾炎。我邻居也得过。")
    )
    assert codes(validate(zh, zh_case())) == (["DIAGNOSIS_OR_COACHING"] if flagged else [])


@pytest.mark.parametrize(
    ("reply", "contradicts"),
    [
        ("My father has always had bad migraines, like me.", True),
        ("My mum gets migraines, but my dad's fine.", False),
        ("My dad gets headaches after a long shift, nothing like migraines.", False),
    ],
)
def test_a_father_with_migraines_contradicts_the_headache_case(reply, contradicts):
    turns = dialogue(("Any headaches in the family?", reply))
    result = validate(turns, catalog_case("headache", "en-friendly-balanced"))
    assert codes(result) == (["FACT_CONTRADICTION"] if contradicts else [])


# A blind set's false alarms and missed mistakes (i, read on 3e2582c), each said afresh.


@pytest.mark.parametrize(
    ("reply", "leaked"),
    [
        ("Fine, I think. Funnily enough the pharmacist did it today, 130 over 80.", False),
        ("Last time was about 125 over 80, nothing to worry about.", False),
        ("Yes, it's normal, 118 over 74 right now, so it can't be that.", True),
    ],
)
def test_asked_for_a_reading_they_know_the_patient_may_tell_one_but_not_todays(reply, leaked):
    asked = "Have you had your blood pressure checked recently?"
    result = validate(dialogue((asked, reply)), catalog_case("headache", "en-friendly-balanced"))
    assert codes(result) == (["NUMERIC_LEAKAGE"] if leaked else [])
    measured = dialogue(("Let me check your blood pressure now.", reply))
    assert codes(validate(measured, catalog_case("headache", "en-friendly-balanced"))) == []


@pytest.mark.parametrize(
    ("reply", "leaked"),
    [
        ("My Fitbit says my heart rate's up to 81 from about 66. The coffee?", False),
        ("According to my watch my pulse is 90 most afternoons.", False),
        ("My heart rate's 81, and it keeps going up.", True),
    ],
)
def test_a_reading_of_the_patients_own_device_is_no_leakage(reply, leaked):
    result = validate(dialogue(("How much coffee do you get through?", reply)))
    assert codes(result) == (["NUMERIC_LEAKAGE"] if leaked else [])


def test_a_weight_read_out_in_kilograms_may_be_repeated():
    case = catalog_case("headache", "en-friendly-balanced")
    turns = dialogue(("Hop on the scales for me.", "OK."), ("64 kilograms.", "64, yeah, same as always."))
    assert codes(validate(turns, case)) == []
    unread = dialogue(("How's your appetite?", "Fine. I'm 64 kilograms, same as always."))
    assert codes(validate(unread, case)) == ["NUMERIC_LEAKAGE"]


@pytest.mark.parametrize(
    ("case", "reply", "coached"),
    [
        ("en", "Shouldn't you be checking my blood pressure first?", True),
        ("en", "Aren't you going to ask me about my family?", True),
        ("en", "Don't you feel cold in this room?", False),
        ("en", "My wife said, shouldn't you be checking with the doctor?", False),
        ("en", "The doctor before you asked, aren't you going to check my neck?", False),
        ("en", "Aren't you ordering too many tests?", False),
        ("en", "Shouldn't you be ordering a scan?", True),
        ("zh", "医生，你是不是该先摸一下我肚子？", True),
        ("zh", "对了，你也得问问我月经的事。", True),
        ("zh", "这事我还得问问我老公。", False),
        ("zh", "你是不是刚毕业？", False),
        ("zh", "我女儿说你是不是该给我查一下血。", False),
        # An independent review's own words that the first version of the reported forms excused.
        ("zh", "医生，我问一下，你是不是该先摸一下我肚子？", True),
        ("zh", "她没什么问题，你是不是该先摸一下我肚子？", True),
        ("en", "He asked nothing; shouldn't you be checking my blood pressure first?", True),
        ("en", "Shouldn't you order a chest X-ray?", True),
        ("en", "Aren't you ordering a troponin?", True),
    ],
)
def test_telling_the_learner_what_to_do_is_coaching_even_as_a_question(case, reply, coached):
    chosen = zh_case() if case == "zh" else catalog_case()
    result = validate(dialogue(("还有吗？" if case == "zh" else "Anything else?", reply)), chosen)
    assert codes(result) == (["DIAGNOSIS_OR_COACHING"] if coached else [])


@pytest.mark.parametrize(
    ("reply", "contradicts"),
    [
        ("My dad's heart. He was seventy-odd, I think, when it took him.", True),
        ("My father, heart attack. He was eighty — no, I'm muddling him with Grandad.", True),
        ("My dad, heart attack. He was sixty-odd, I think.", False),
    ],
)
def test_a_fathers_age_said_roughly_still_contradicts_the_case(reply, contradicts):
    turns = dialogue(("Any heart trouble in the family?", reply))
    assert codes(validate(turns)) == (["FACT_CONTRADICTION"] if contradicts else [])


# A blind set's false alarms and missed mistakes (j, read on 8110a3b), each said afresh.


@pytest.mark.parametrize(
    ("learner", "reply", "leaked"),
    [
        (
            "Any problems with your blood pressure?",
            "The nurse took it out front: a hundred and eighteen over seventy-four.",
            True,
        ),
        (
            "Any problems with your blood pressure?",
            "Last year it was about one-thirty over eighty-five.",
            False,
        ),
        (
            "One eighteen over seventy-four.",
            "A hundred and eighteen over seventy-four? Is that all right?",
            False,
        ),
    ],
)
def test_todays_whole_reading_said_in_words_is_leakage(learner, reply, leaked):
    result = validate(dialogue((learner, reply)), catalog_case("headache", "en-friendly-balanced"))
    assert codes(result) == (["NUMERIC_LEAKAGE"] if leaked else [])


def test_asking_what_the_learner_should_ask_is_coaching():
    turns = dialogue(("Anything else?", "Aren't you going to ask me what I take for them?"))
    assert codes(validate(turns)) == ["DIAGNOSIS_OR_COACHING"]


@pytest.mark.parametrize(
    ("reply", "contradicts"),
    [("I've even been sick with the worst ones.", True), ("I haven't been sick, just queasy.", False)],
)
def test_being_sick_with_the_headaches_contradicts_the_case(reply, contradicts):
    turns = dialogue(("Any nausea or vomiting?", reply))
    result = validate(turns, catalog_case("headache", "en-friendly-balanced"))
    assert codes(result) == (["FACT_CONTRADICTION"] if contradicts else [])


@pytest.mark.parametrize(
    ("first", "second", "echoed"),
    [
        ("Mum: She's had it since Sunday night.", "Mum: She's not eaten anything since.", False),
        ("林晓雯：昨天晚上开始疼的。", "林晓雯：没有吐，就是恶心。", False),
        ("She's had it since Sunday night.", "She's had nothing to eat since.", True),
        # "Let me tell you:" is the patient's own opening, said twice.
        ("我跟你说：昨天晚上开始疼的。", "我跟你说：没有吐，就是恶心。", True),
        ("说实话：昨天晚上开始疼的。", "说实话：没有吐，就是恶心。", True),
        ("我觉得：昨天晚上开始疼的。", "我觉得：没有吐，就是恶心。", True),
    ],
)
def test_a_speakers_name_is_no_opening(first, second, echoed):
    case = zh_case() if not first.isascii() else catalog_case()
    turns = dialogue(("When did it start?", first), ("Eating all right?", second))
    assert ("OPENER_ECHO" in codes(validate(turns, case))) is echoed
