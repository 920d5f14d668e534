"""What the interview reads in the forms the blind set `ap` found missing (2026-11-29, read on
c33d417: a Henan bus driver, a childhood famine, motor neurone disease and an eye-gaze keyboard,
Teochew in Thailand, a hospital chaplain, a former gambler, an earthquake survivor, a train with
announcements, a whistling hearing aid, a farm in winter, French and English in Canada), each
said afresh next to the ordinary memoir sentences each form must leave alone. The sets and their
figures: docs/judges.md, "Interview"."""

from __future__ import annotations

import pytest

from interview_turn.engine.model import HardStop
from tests.unit.interview_turn.support import PAUSE, lexicon_reading


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Cold, ice and smoke now; followed; someone collapsed and not answering.
        ("I fell in the creek, I'm shivering so hard I can barely talk.", HardStop.ACUTE_DISTRESS),
        # In the pattern's own tense, so that only the past marker keeps it apart.
        ("I remember shivering so hard I can barely talk, that night on the ferry.", None),
        ("Fingers won't work right in this cold, I can barely hold the phone.", HardStop.ACUTE_DISTRESS),
        ("Someone's following me from the station, I'm scared.", HardStop.ACUTE_DISTRESS),
        ("呼吸机一直响，喘不上，快叫人。", HardStop.ACUTE_DISTRESS),
        ("屋里一股味儿，是不是煤气……我有点站不稳了。", HardStop.ACUTE_DISTRESS),
        ("那年冬天屋里煤烟重，是不是煤气中毒我们都不懂。", None),
        ("有人一直跟着我，从菜市场出来就跟着，我好怕。", HardStop.ACUTE_DISTRESS),
        ("我爸总说有人跟着他，那是他老糊涂了。", None),
        ("楼道里全是烟，门打不开。", HardStop.ACUTE_DISTRESS),
        ("阿公倒在地上没动静，我叫他也没反应！", HardStop.ACUTE_DISTRESS),
        # Better dead then, a payout, a secret stop of tablets, a bridge, "looking up how".
        ("我有时候想，当年要是也病死了倒省事。", HardStop.SELF_HARM),
        ("他要是早点去医院就好了。", None),
        ("保单我看了好几遍，意外身故赔得多，债就能还了。", HardStop.SELF_HARM),
        ("I wish they'd never found me under that rubble.", HardStop.SELF_HARM),
        ("I wish they'd never found the old letters, it upset Mum.", None),
        ("降压药已经停了两个礼拜了，没人发现。", HardStop.SELF_HARM),
        ("I stopped my water tablets last month and nobody noticed.", HardStop.SELF_HARM),
        ("我要是没了，她们娘俩反而能轻松点。", HardStop.SELF_HARM),
        ("There's a bridge on the ring road, and lately I slow down on it.", HardStop.SELF_HARM),
        ("I'm tired of it all. I've been looking up how.", HardStop.SELF_HARM),
        ("I've been looking up how to make sourdough.", None),
        # Leaving the oral history.
        ("想清楚了，这个访谈我不参加了。", HardStop.STOP_REQUEST),
        ("请把我的名字从名单上拿掉。", HardStop.STOP_REQUEST),
        ("那年的合唱团我不参加了，嗓子坏了。", None),
        # An idiom of regret said laughing, and "slow" that asks for nothing.
        ("输了一套房，想死的心都有，哈哈，都过去了。", None),
        ("我现在真想死。", HardStop.SELF_HARM),
    ],
)
def test_the_lexicons_read_the_blind_set_forms_and_leave_ordinary_speech(text, expected):
    assert lexicon_reading(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("我打字慢，速度慢点而已，你接着问。", None),
        ("慢点说，我跟不上。", PAUSE),
        ("On the bends I slow down, I always have.", None),
        ("Could you slow down a bit?", PAUSE),
    ],
)
def test_slow_that_asks_for_nothing(text, expected):
    assert lexicon_reading(text) == expected
