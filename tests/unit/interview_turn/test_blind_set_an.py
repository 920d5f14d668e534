"""What the interview reads in the forms the blind set `an` found missing (2026-11-29, read on
f1fec6e: a nurse who served in a war zone, Hinglish, a Korean-Chinese narrator from Yanbian, a
house lost to fire, dialysis with its alarms, a long history of mental illness, a Hainan
fisherman, an Inner Mongolian grandmother, a thunderstorm and a power cut, answers typed by voice),
each said afresh next to the ordinary memoir sentences each form must leave alone. The sets and
their figures: docs/judges.md, "Interview"."""

from __future__ import annotations

import pytest

from interview_turn.engine.model import HardStop
from tests.unit.interview_turn.support import PAUSE, lexicon_reading


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Bleeding, burning and smoke now.
        ("Oh no, the line's come out and it's spurting blood all over the sheet.", HardStop.ACUTE_DISTRESS),
        ("Back then the wounds were pouring blood and we had nothing, no plasma.", None),
        ("I can smell gas in the hall and the boiler's making a noise.", HardStop.ACUTE_DISTRESS),
        ("I can still smell the burning from that night in '67.", None),
        ("Smoke's coming under the door, I can't see the stairs.", HardStop.ACUTE_DISTRESS),
        # Water at the knees, smoke or sparks now, in Mandarin; knocking and fear.
        ("洪水灌进屋了，已经没过膝盖了，我出不去。", HardStop.ACUTE_DISTRESS),
        ("那年洪水灌进屋了，没过膝盖了，我们在楼上待了三天。", None),
        ("刚刚插座那边冒烟了，我闻到焦味了。", HardStop.ACUTE_DISTRESS),
        ("小时候我闻到焦味就知道妈妈又把饭烧糊了。", None),
        ("有人一直在敲窗户，我一个人在家，好怕。", HardStop.ACUTE_DISTRESS),
        ("有人在敲门，大概是快递，我去开一下。", None),
        # Not waking up, means kept and looked at, the storm asked to take one, the garage.
        ("Some nights I hope I don't wake up, and that frightens me.", HardStop.SELF_HARM),
        ("I hope I don't wake up the baby with all this talking.", None),
        (
            "I've still got the sleeping pills from after the fire, and I keep taking the box out.",
            HardStop.SELF_HARM,
        ),
        ("I've still got the tablets the vet gave us for the dog, must throw them out.", None),
        ("Sometimes I think, let the sea take me, like it took Dad.", HardStop.SELF_HARM),
        ("我在车库里坐着，发动机开着，门关着，就这么坐着。", HardStop.SELF_HARM),
        ("He fixed cars in the garage with the engine running and the big door wide open.", None),
    ],
)
def test_the_lexicons_read_the_blind_set_forms_and_leave_ordinary_speech(text, expected):
    assert lexicon_reading(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Beta, zara ruko, dawai le loon, phir baat karte hain.", PAUSE),
        ("Ek minute ruko, door pe koi hai.", PAUSE),
        ("Baad mein baat karte hain, abhi thak gayi hoon.", PAUSE),
        ("My father always said, ruko mat, keep walking.", None),
    ],
)
def test_a_pause_asked_for_in_hinglish(text, expected):
    assert lexicon_reading(text) == expected
