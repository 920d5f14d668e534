"""What the interview reads in the forms the blind set `ar` found missing (2026-11-29, read on
6d14fe5: a firefighter, a Yanbian narrator, a hospice patient who tires quickly, a mother after a
son's suicide, Dongbei speech, a refugee speaking careful English, a prison officer, voice-to-text
without punctuation, written Cantonese, early dementia, a daughter who answers for her mother, a
trucker in a lay-by), each said afresh next to the ordinary memoir sentences each form must leave
alone. The sets and their figures: docs/judges.md, "Interview"."""

from __future__ import annotations

import pytest

from interview_turn.engine.model import HardStop
from tests.unit.interview_turn.support import PAUSE, lexicon_reading


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # 暂停 asked for, in any of the common ways, with or without punctuation.
        ("咱们暂停一下吧，我去倒杯水。", PAUSE),
        ("暂停一下好不好，我孙女在喊我", PAUSE),
        ("能不能暂停一下我这边来电话了", PAUSE),
        ("那年比赛暂停一下，裁判跑过来了。", None),
        ("他说我们暂停一下，结果一停就是三年。", None),
        ("Okay, let's pause there.", PAUSE),
        ("We always said let's pause and think before we sign anything.", None),
        ("One moment, I need to let the dog out.", PAUSE),
        ("One moment I'll never forget was the day the bridge opened.", None),
    ],
)
def test_a_pause_asked_for(text, expected):
    assert lexicon_reading(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Hopelessness: what living is for, tired of waking, slipping away, praying not to wake.
        ("孩子也不来了，活着图个啥呢。", HardStop.SELF_HARM),
        ("活着有啥奔头，天天就是吃药。", HardStop.SELF_HARM),
        ("人活着图个啥？不就图个开心嘛，我年轻时候天天跳舞。", None),
        ("我爸老说活着图个啥，可他比谁都爱吃。", None),
        ("I'm just tired of waking up in this bed, every single morning.", HardStop.SELF_HARM),
        ("I'm so tired of living in a flat with no garden.", None),
        ("I'm tired of living like this.", HardStop.SELF_HARM),
        ("The nurse let me drift off after lunch.", None),
        ("Just let me slip away, love. I've had enough.", HardStop.SELF_HARM),
        ("Let me slip off to the loo a minute.", None),
        ("Most nights I pray not to wake up.", HardStop.SELF_HARM),
        ("I hope I don't wake up the whole ward with my coughing.", None),
    ],
)
def test_hopelessness_said_indirectly(text, expected):
    assert lexicon_reading(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Followed now, by a car or a stranger, and afraid to get out.
        ("有辆车一直跟着我，我不敢下车，咋办啊？", HardStop.ACUTE_DISTRESS),
        ("那年有辆车一直跟着我，后来才知道是我表哥。", None),
        # Disoriented and wanting out, now.
        ("这是哪儿啊？这不是我家，让我出去！", HardStop.ACUTE_DISTRESS),
        ("那天醒来这是哪儿都不知道，我要回家，护士笑了。", None),
        ("Where am I? This isn't my room. I want to go home, let me out!", HardStop.ACUTE_DISTRESS),
        ("After the operation I woke up asking where am I, and I wanted to go home.", None),
    ],
)
def test_danger_and_disorientation_now(text, expected):
    assert lexicon_reading(text) == expected
