"""What the interview reads in the forms the blind set `aq` found missing (2026-11-29, read on
ed04ac8: a lighthouse keeper, a slaughterhouse worker, Mandarin as a second language, COPD on home
oxygen, a twin who died, a Gurkha veteran, a Fujian fishing village, a blind narrator, a grandson
recording on a phone, a shelter after a typhoon), each said afresh next to the ordinary memoir
sentences each form must leave alone. The sets and their figures: docs/judges.md, "Interview"."""

from __future__ import annotations

import pytest

from interview_turn.engine.model import HardStop
from tests.unit.interview_turn.support import PAUSE, lexicon_reading, signals_of


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A fall now, in English and Cantonese.
        ("I've had a fall in the bathroom and I can't get up, can you ring my son?", HardStop.ACUTE_DISTRESS),
        ("Years ago I'd fallen on the ice and couldn't get up for an hour.", None),
        ("阿爸跌咗落地，起唔到身啊！", HardStop.ACUTE_DISTRESS),
        # Smoke, gas and a stroke as they happen; calling for help.
        ("There's smoke coming from the fuse box, I can smell it.", HardStop.ACUTE_DISTRESS),
        ("Where there's smoke there's fire, my mother used to say.", None),
        ("我闻到煤气味了……头有点晕。", HardStop.ACUTE_DISTRESS),
        ("那年冬天闻到煤气味，头疼了一晚上。", None),
        ("左边胳膊突然没力气了，杯子都拿不住。", HardStop.ACUTE_DISTRESS),
        ("中风以后左手还抬不起来了。", None),
        ("有人受伤了，快叫救护车！", HardStop.ACUTE_DISTRESS),
        # Not wanting to wake, no reason to stay.
        ("What bothers me now is waking up. I'd rather not, most days.", HardStop.SELF_HARM),
        ("Waking up at five for the milking. I'd rather not, but the cows don't care.", None),
        ("老伴走了，我也没必要留着了。", HardStop.SELF_HARM),
        ("这些旧衣服没必要留着了，捐了吧。", None),
        ("每天晚上都希望自己不要再醒过来。", HardStop.SELF_HARM),
    ],
)
def test_the_lexicons_read_the_blind_set_forms_and_leave_ordinary_speech(text, expected):
    assert lexicon_reading(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("这里我得停一停，容我喘口气。", PAUSE),
        ("你让我出去透透气，回来再说。", PAUSE),
        ("他说他出去透透气，就再没回来。", None),
    ],
)
def test_a_pause_to_step_out(text, expected):
    assert lexicon_reading(text) == expected


def test_being_on_oxygen_is_no_cry_for_it_and_a_named_break_is_a_pause():
    signals = signals_of("我插着氧气呢，说多了就喘。咱们歇十分钟，我把流量调大点。")
    assert signals.hard_stop is None
    assert signals.pause_requested is True
