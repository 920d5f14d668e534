"""What the interview reads in the forms the blind set `ao` found missing (2026-11-29, read on
66cc5e1: a Guangxi midwife, a flight attendant, a stroke survivor, a Hakka grandmother, Cantonese
in Australia, a former miner, a recovering alcoholic, a graveside visit, a smoke alarm and a dog,
a grandparent raising a grandchild, answers typed with shaking hands), each said afresh next to
the ordinary memoir sentences each form must leave alone. The sets and their figures:
docs/judges.md, "Interview"."""

from __future__ import annotations

import pytest

from interview_turn.engine.model import HardStop
from tests.unit.interview_turn.support import PAUSE, lexicon_reading, signals_of


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A stroke as it happens: the face or the mouth going wrong now.
        ("Oh God. My face has gone numb, I can't feel my lip. Call someone.", HardStop.ACUTE_DISTRESS),
        ("After the stroke my face had gone droopy for a year, but it came back.", None),
        ("我嘴歪了，话也说不清了，快叫人。", HardStop.ACUTE_DISTRESS),
        ("那年中风，我嘴歪了半年，后来慢慢好了。", None),
        # Being a burden, nothing to get up for, pills counted, a life to give back.
        ("Some days I think nobody would have to look after me anymore if I just went.", HardStop.SELF_HARM),
        ("Nobody would have to look after the shop anymore once we sold it.", None),
        ("There's nothing left worth getting up for, not since Mary.", HardStop.SELF_HARM),
        ("On Sundays there was nothing to get up for, so we lay in till ten.", None),
        ("我每天晚上把安眠药倒出来数一数，看够不够。", HardStop.SELF_HARM),
        ("药我都数好了，够不够吃到月底我心里有数。", None),
        ("这条命是老天多给的，现在也该还回去了。", HardStop.SELF_HARM),
        ("欠人家的钱，我也该还回去了。", None),
        ("有时候想，不如把自己也送走算了，省得拖累孩子。", HardStop.SELF_HARM),
        ("他把自己的孩子送走了，送到城里读书。", None),
        ("活着天天的，有啥意思。", HardStop.SELF_HARM),
        # Quitting the recording, or the consent form not signed.
        ("算了，我不干了，你们找别人录吧。", HardStop.STOP_REQUEST),
        ("同意书我不签了，你们拿回去吧。", HardStop.STOP_REQUEST),
        ("那年厂里的合同我不签了，就回了老家。", None),
        # A death wish said at the time, not now, and said afterwards as "那时候".
        ("中风以后吃饭要人喂，恨不得死了算了，那时候。现在能走路了。", None),
        ("吃饭要人喂，我恨不得死了算了。", HardStop.SELF_HARM),
    ],
)
def test_the_lexicons_read_the_blind_set_forms_and_leave_ordinary_speech(text, expected):
    assert lexicon_reading(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Hold on, the kettle's screaming. Don't go anywhere, I'll be two ticks.", PAUSE),
        ("Mum always said don't go anywhere near the quarry.", None),
    ],
)
def test_a_pause_asked_for_with_hold_on(text, expected):
    assert lexicon_reading(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A pause that names the return eases the lexicons' stop request, never acute distress
        # (an independent review: "hang on, don't hang up" is said because of an emergency).
        ("别问了，让我歇会儿，一会儿再说。", None),
        (
            "I need a minute, my hands are shaking. Let me get some tea, then we'll carry on.",
            HardStop.ACUTE_DISTRESS,
        ),
        # Without a return named they stand.
        ("别问了，我不想说了。", HardStop.STOP_REQUEST),
        ("My hands are shaking and I can't stop them, I'm so frightened.", HardStop.ACUTE_DISTRESS),
    ],
)
def test_a_pause_that_names_its_return(text, expected):
    signals = signals_of(text)
    assert signals.hard_stop == expected
    assert signals.pause_requested is (expected is None)
