"""What the interview reads in the forms the blind set `as` found missing (2026-11-29, read on
f8b83e8: a Zhoushan fisherman, Parkinson's and speech-to-text, a Filipino domestic worker in Hong
Kong, a widower's first Christmas alone, a hospital corridor before a scan, Shaanxi speech, a
soldier's flashbacks, a son who keeps texting, a Welsh hill farmer in lambing, a narrator who
laughs when nervous, a narrator after a fall at home), each said afresh next to the ordinary
memoir sentences each form must leave alone. The sets and their figures: docs/judges.md,
"Interview"."""

from __future__ import annotations

import pytest

from interview_turn.engine.model import HardStop
from tests.unit.interview_turn.support import PAUSE, lexicon_reading, signals_of

ACUTE = HardStop.ACUTE_DISTRESS
SELF_HARM = HardStop.SELF_HARM


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A fall now: slipping too, with the clauses after it, lying on the floor, a broken leg.
        ("我在厨房滑了一跤，腿动不了，好痛。", ACUTE),
        ("我又摔了，在阳台上，起不来，手也破了。", ACUTE),
        ("小时候在冰上滑倒了，腿动不了，我爸背我回家。", None),
        ("我 现在 倒在 地上 起不来 帮帮我", ACUTE),
        ("那年冬天我倒在地上起不来，是邻居发现的。", None),
        ("I think my ankle's broken, I'm behind the barn and nobody's home till dark.", ACUTE),
        ("When I was a lad I think I broke my arm twice and nobody noticed.", None),
    ],
)
def test_a_fall_or_an_injury_now(text, expected):
    assert lexicon_reading(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("我把那些奖章都送人了，猫也托给邻居了。你懂我的意思。", SELF_HARM),
        (
            "Gave away my tools last week, settled everything with the solicitor. You know what I mean.",
            SELF_HARM,
        ),
        ("我把旧书都送人了，屋里宽敞多了。", None),
        ("等到我连路都走不动的时候，我就自己了断。", SELF_HARM),
        ("散会的时候，我就自己走回家了。", None),
        ("Some nights I think if I jumped off the bridge the pension would see her right.", SELF_HARM),
        ("最近老想，睡着了不醒也挺好的。", SELF_HARM),
        ("昨晚一睡就是十个钟头，醒了挺好的。", None),
        ("现在活着，也就是拖累儿女。", SELF_HARM),
        ("那年洪水我要是跟老伴一起淹死就好了。", SELF_HARM),
        ("If I go down again I hope I don't get up.", SELF_HARM),
        ("I hope I don't get up too late for the market.", None),
        ("I'm so tired of being here. Every day the same.", SELF_HARM),
        ("I'm tired of being here in this waiting room, two hours now.", None),
        ("Part of me hopes this is the thing that finishes me off.", SELF_HARM),
    ],
)
def test_hopelessness_said_indirectly(text, expected):
    assert lexicon_reading(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("这本书我不写了，以后勿要再打电话来了。", HardStop.STOP_REQUEST),
        ("那年他说这本书不值得写，后来还是出版了。", None),
        ("Let's not carry on with this, any of it.", HardStop.STOP_REQUEST),
        ("你先挂了吧，出来我再打给你。", PAUSE),
        ("我们歇一歇，下午再来。", PAUSE),
        ("医生叫我歇一歇，我哪闲得住。", None),
    ],
)
def test_stops_and_pauses(text, expected):
    assert lexicon_reading(text) == expected


def test_asked_to_go_on_the_models_pause_does_not_stand():
    signals = signals_of(
        "They won't let me eat before the scan and I'm starving. Right, where were we? My first job."
    )
    assert signals.pause_requested is False
    assert signals.hard_stop is None
