"""What the interview reads in the forms the blind set `at` found missing (2026-11-30, read on
4673fe2: a Harbin railway signalman, dialysis, a Vietnamese-Chinese grandmother in Sydney, a former
nun, a flooded house, Sichuan speech, a retired policewoman, voice notes on a dog walk, a Glasgow
shipyard worker, a carer for a spouse with dementia, a mother whose only daughter emigrated), each
said afresh next to the ordinary memoir sentences each form must leave alone. The sets and their
figures: docs/judges.md, "Interview"."""

from __future__ import annotations

import pytest

from interview_turn.engine.model import HardStop
from tests.unit.interview_turn.support import PAUSE, lexicon_reading

ACUTE = HardStop.ACUTE_DISTRESS
SELF_HARM = HardStop.SELF_HARM
STOP = HardStop.STOP_REQUEST


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Living itself as suffering, one's own, in Mandarin, Cantonese and Sichuanese.
        ("透析一周三次，活着都是受罪，我不想再去了。", SELF_HARM),
        ("医生问我还做不做，我心里想，活住都系受罪。", SELF_HARM),
        ("说实话，我活起好累，天天就是等。", SELF_HARM),
        # Someone else's suffering is grief or care, not the narrator's wish.
        ("我妈这样活着都是受罪，天天插着管子。", None),
        ("他活着就是受罪，我看着心疼。", None),
        # Asking a god to take one.
        ("我跟菩萨说，早点把我收了嘛。", SELF_HARM),
        ("老天爷把我收了算了，省得拖累人。", SELF_HARM),
        ("菩萨保佑，把我孙子的病治好了。", None),
        # Gone to the railway and stood there all night, recently; not on duty years ago.
        ("前两天我去铁道边上站了一宿，后来车没来，我就回来了。", SELF_HARM),
        ("那年冬天我们去铁路边上站了一夜，守着道岔。", None),
        # Knowing how one would do it, said as a disclosure; not a plan for a job.
        (
            "I know exactly how I'd do it, that's the trouble with the job. I've thought it through.",
            SELF_HARM,
        ),
        ("The kitchen? I know exactly how I'd do it if we had the money again.", None),
        ("If they gave me the shop back, I know how I'd do it.", None),
        # A degree, not a wish: stifled, bored, hot.
        ("天天关在屋里，憋得我想死。回来了，还是自己家好。", None),
        ("闷得想死，那个夏天。", None),
        ("我真的想死，每天醒来都不想睁眼。", SELF_HARM),
    ],
)
def test_hopelessness_said_indirectly(text, expected):
    assert lexicon_reading(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My line's come out and it's bleeding a lot, I'm pressing on it.", ACUTE),
        ("I'm still bleeding heavily from where the catheter was.", ACUTE),
        ("Years ago my line came out at the unit and it was bleeding a lot.", None),
        ("Someone's just put a brick through my front window. I'm upstairs.", ACUTE),
        ("They've just thrown a bottle through the kitchen window, he's out there.", ACUTE),
        ("In '81 somebody put a brick through the shop window and we swept up.", None),
    ],
)
def test_an_emergency_now(text, expected):
    assert lexicon_reading(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'd like to leave it there for good, if that's alright. God bless.", STOP),
        ("I think we've come to the end of what I can give you.", STOP),
        ("We left the farm for good in 1962.", None),
        ("Let me have a quiet half hour and ring me after.", PAUSE),
        ("Call me back in an hour, the nurse is here.", PAUSE),
        ("Right, I'll do another one of these tonight.", PAUSE),
        ("She'd ring me every Sunday after mass.", None),
    ],
)
def test_stops_and_pauses(text, expected):
    assert lexicon_reading(text) == expected
