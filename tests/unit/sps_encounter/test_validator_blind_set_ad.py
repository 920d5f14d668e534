"""`validateTranscript` on the kinds of speech the blind set `ad` (2026-11-30, read on 4673fe2: a
video call that drops, a retired teacher, a Scouse voice, a home blood-pressure diary and a fitness
app, a learner who asks two questions at once, Chengdu words, a patient who jokes to hide worry and
one who answers with questions) found misjudged, each said afresh next to what the rule must leave
alone. The sets and their figures: docs/judges.md, "SPS"."""

from __future__ import annotations

import pytest

from tests.unit.sps_encounter.support import catalog_case, dialogue
from tests.unit.sps_encounter.validating import codes, validate

ZH = ("abdominal-pain-zh", "zh-anxious-balanced")


@pytest.mark.parametrize(
    ("exchanges", "echoed"),
    [
        # Answered in the question's words ("the morning ones"): the same thing talked about.
        (
            (
                ("Where's the pain?", "The morning ones sit over my left eyebrow."),
                ("Are the morning ones worse?", "The morning ones last till lunch, most days."),
            ),
            False,
        ),
        # One kind of pain set against the other in the same shape, as a patient with two kinds
        # tells every answer.
        (
            (
                ("Where's the pain?", "The sharp ones start just behind my ear."),
                ("And the rest of the time?", "The sharp ones stab. The dull one just sits there all day."),
            ),
            False,
        ),
        # The same opening on nothing the learner named and nothing set against it is an echo.
        (
            (
                ("Where's the pain?", "The sharp ones start just behind my ear."),
                ("Anything else?", "The sharp ones come on at night, usually after work."),
            ),
            True,
        ),
        # A third review: an opener is an opener whatever follows it ("My goodness", "This is the
        # thing", "That was"), and a later sentence on another determiner sets nothing apart.
        (
            (
                ("Where exactly?", "My goodness, they're awful, doctor, honestly."),
                ("Anything else?", "My goodness, right across the front. The tablets don't touch it."),
            ),
            True,
        ),
        (
            (
                ("What brings you in?", "My head is pounding, three weeks of it."),
                ("Anything else?", "My head is just so heavy. The tablets don't help."),
            ),
            True,
        ),
        (
            (
                ("Does anything help?", "This is the thing, it's worse in the mornings."),
                ("Is there anything that helps?", "This is the thing, nothing really helps."),
            ),
            True,
        ),
        # "I think" twice is an opener said twice, asked or not.
        (
            (
                ("Where's the pain?", "I think it's on the left, mostly."),
                ("What do you think brings them on?", "I think it's stress, and screens."),
            ),
            True,
        ),
    ],
)
def test_an_opening_on_the_thing_talked_about_is_no_echo(exchanges, echoed):
    found = codes(validate(dialogue(*exchanges), catalog_case("headache")))
    assert ("OPENER_ECHO" in found) is echoed


@pytest.mark.parametrize(
    ("exchanges", "echoed"),
    [
        ((("哪里疼？", "疼得最厉害是右下边。"), ("疼得厉害吗？", "疼得很，走路都不敢直腰。")), False),
        ((("哪里疼？", "疼得最厉害是右下边。"), ("什么时候开始的？", "疼得是昨天晚上开始的。")), True),
        # A filler is an opener even when the question says it (a third review).
        (
            (
                ("哪里疼？", "那个，肚子这边疼得厉害，右下边。"),
                ("那个疼是一直疼还是一阵阵的？", "那个，一直疼，从昨天晚上到现在都没停过。"),
            ),
            True,
        ),
    ],
)
def test_an_opening_in_the_questions_words_in_chinese(exchanges, echoed):
    found = codes(validate(dialogue(*exchanges), catalog_case(*ZH)))
    assert ("OPENER_ECHO" in found) is echoed


@pytest.mark.parametrize(
    ("asked", "answer", "expected"),
    [
        # A statin given up lately, said as British people say it, against the case's two months.
        ("Any tablets?", "The water tablet, and the statin, but I packed it in a fortnight ago.", True),
        ("Any tablets?", "I came off my statin two weeks ago, it gave me cramp.", True),
        ("Any tablets?", "I've come off the statin these last three weeks.", True),
        ("Any tablets?", "I packed in the statin a few days back.", True),
        ("Any tablets?", "The statin I packed in a good few months ago now.", False),
        # Another medicine come off lately is no statin (a third review).
        ("Any painkillers?", "Naproxen for my back, but I came off it a few days ago.", False),
    ],
)
def test_a_statin_stopped_lately_contradicts_the_case(asked, answer, expected):
    found = codes(validate(dialogue((asked, answer)), catalog_case("chest-pain")))
    assert ("FACT_CONTRADICTION" in found) is expected


@pytest.mark.parametrize(
    ("answer", "leaked"),
    [
        # A change or a share said in percent, after a comma (a second review): the case's
        # respiratory rate is 20 a minute, and 20 percent is no reading of it.
        ("好了一些，百分之二十左右吧。", False),
        ("止痛药吃了，大概好个百分之二十。", False),
        # The saturation is a percentage today: said unasked, it is still leaked.
        ("我的血氧是百分之九十八。", True),
    ],
)
def test_a_percentage_is_a_reading_only_of_a_percentage(answer, leaked):
    found = codes(validate(dialogue(("还有哪里不舒服？", answer)), catalog_case(*ZH)))
    assert ("NUMERIC_LEAKAGE" in found) is leaked


@pytest.mark.parametrize(
    ("answer", "long"),
    [
        # A list read out, item after item: one answer read from a page (sets ad and ae).
        (
            "I wrote them down. One, is it safe to fly. Two, should I stop the gym. Three, what about "
            "my dad's heart. Four, can I still drink coffee. That's the lot, really.",
            False,
        ),
        (
            "I keep a little book. Tuesday was one forty over eighty-eight. Thursday, one thirty-six over "
            "ninety. Sunday, one forty-four over ninety-one. So it goes up and down a bit.",
            False,
        ),
        # The same length told as a story is still long.
        (
            "It started on the bus. I felt it in my chest. Then it went into my arm. I got off early. "
            "I sat on a wall for ages. Then I walked home slowly.",
            True,
        ),
    ],
)
def test_items_of_a_list_read_out_are_one_sentence(answer, long):
    found = codes(validate(dialogue(("Tell me about it.", answer)), catalog_case("chest-pain")))
    assert ("NARRATIVE_TOO_LONG" in found) is long


@pytest.mark.parametrize(
    ("exchanges", "echoed"),
    [
        # The blind set af: the learner says the patient's words back as a short question, and the
        # patient says them again to confirm.
        (
            (
                ("When did it start?", "A fortnight ago, give or take, after the match."),
                ("A fortnight ago?", "A fortnight ago, yes. I remember because of the match."),
            ),
            False,
        ),
        # A long question that happens to open the same way is no echo question.
        (
            (
                ("When did it start?", "A fortnight ago, give or take, after the match."),
                (
                    "A fortnight ago is a while, has it changed at all since then?",
                    "A fortnight ago, yes, and no change.",
                ),
            ),
            True,
        ),
    ],
)
def test_words_said_back_as_a_question_may_be_said_again(exchanges, echoed):
    found = codes(validate(dialogue(*exchanges), catalog_case("chest-pain")))
    assert ("OPENER_ECHO" in found) is echoed


def test_asked_what_the_patient_takes_for_the_cholesterol_a_statin_stopped_lately_contradicts():
    answer = "Oh. I was on the statin, but I stopped it three weeks ago, my legs ached."
    found = codes(validate(dialogue(("And what for the cholesterol?", answer)), catalog_case("chest-pain")))
    assert "FACT_CONTRADICTION" in found
