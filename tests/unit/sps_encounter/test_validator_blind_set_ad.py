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
        # Answered in the question's words ("how bad" - "the bad ones"): the same thing talked about.
        (
            (
                ("Where's the pain?", "The bad ones are on the left, behind my eye."),
                ("How bad do they get?", "The bad ones are an eight out of ten."),
            ),
            False,
        ),
        # One kind of pain set against the other, as a patient with two kinds tells every answer.
        (
            (
                ("Where's the pain?", "The bad ones are on the left, behind my eye."),
                ("And what's it like?", "The bad ones throb. The rest of the time it's a dull ache."),
            ),
            False,
        ),
        # The same opening on nothing the learner named and nothing set against it is an echo.
        (
            (
                ("Where's the pain?", "The bad ones are on the left, behind my eye."),
                ("And what's it like?", "The bad ones throb like a heartbeat, honestly."),
            ),
            True,
        ),
        # Only an opening that names a thing: "I think" twice is an opener said twice, asked or not.
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
    ],
)
def test_an_opening_in_the_questions_words_in_chinese(exchanges, echoed):
    found = codes(validate(dialogue(*exchanges), catalog_case(*ZH)))
    assert ("OPENER_ECHO" in found) is echoed


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # A statin given up lately, said as British people say it, against the case's two months.
        ("Amlodipine. There was a cholesterol one, but I packed that in a couple of weeks back.", True),
        ("Amlodipine. I came off the statin last week, it gave me aches.", True),
        ("Amlodipine. There was a cholesterol one, but I packed that in a couple of months back.", False),
    ],
)
def test_a_statin_stopped_lately_contradicts_the_case(answer, expected):
    found = codes(validate(dialogue(("Are you on any tablets?", answer)), catalog_case("chest-pain")))
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
