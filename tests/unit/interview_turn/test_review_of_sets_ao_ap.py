"""An independent review of the forms added for the blind sets `ao` and `ap` (2026-11-29) found
acute distress eased into a pause whenever a return was named, and the new forms reading gas
bills, money for groceries, habits, jokes, someone else's words and the past as the narrator's
own emergency, crisis or stop now. Each of its sentences, and the reading it should have."""

from __future__ import annotations

import pytest

from interview_turn.engine.model import HardStop
from tests.unit.interview_turn.support import PAUSE, lexicon_reading, signals_of


@pytest.mark.parametrize(
    "text",
    [
        "I can't breathe, hang on a sec, don't go anywhere, then we'll carry on",
        "他倒在地上没动静，叫他没反应，你别挂，等会儿再说",
        "我嘴歪了，你等等，咱们再聊",
        "someone's following me, hold on a second, I'll text you later",
    ],
)
def test_an_emergency_with_a_return_named_is_still_an_emergency(text):
    assert signals_of(text).hard_stop is HardStop.ACUTE_DISTRESS


@pytest.mark.parametrize(
    "text",
    [
        "怕是煤气费又涨了",
        "好像是煤气公司的人来过",
        "计吓够唔够钱买餸",
        "点一下人数够不够，开饭了",
        "数一下药够不够，明天要去医院开药",
        "站在船上我都站不稳了，浪太大了，那是九八年",
        "喘不上气，叫人快点把窗户打开，我们当年在矿上就是这样",
        "叫他吃饭没反应，一打游戏就这样",
        "他倒在沙发上没动静，睡得可香了",
        "车里都是烟，我老公抽烟，我都看不见路了",
        "有人跟着我学太极，好多人，怕是有十几个，怎么办呢哈哈",
        "my fingers won't work right in the cold, I can barely hold a pen these days, arthritis",
        "She said my face is drooping all wrong in that photo",
        "我妈说我嘴歪了，哈哈，照相的时候",
        "我的脸麻了，牙医刚打完麻药",
        "someone's following me on Instagram now, my granddaughter set it up",
        "当年要是也饿死了倒省事，我娘常这么说",
        "要是死了倒清净，那猫整天叫",
        "这条命是国家给的，这辈子也该还给国家了，我当兵的时候就这么想",
        "活着天天的，有啥意思，我爸老这么说",
        "我没了工作，她们反而能好过一些，因为不用搬家",
        "药停了两天，没人发现，医生让停的",
        "I wish they'd left me alone at the party, so embarrassing",
        "I wish they had let me go to university",
        "there's nothing worth getting up for on a Sunday morning, ha",
        "把我的名字从家谱上拿掉，我爸当年就这么吼",
        "合同我不签了，房东涨价太多",
        "不行，我不干了，我老板那年就这么说",
    ],
)
def test_the_reviews_false_alarms_are_ordinary_speech(text):
    assert lexicon_reading(text) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("说话速度慢点，我听不清", PAUSE),
        ("我嘴巴歪了", HardStop.ACUTE_DISTRESS),
        ("我嘴有点歪了", HardStop.ACUTE_DISTRESS),
        ("there's a man following me and I'm scared", HardStop.ACUTE_DISTRESS),
        ("no one would have to look after me ever again", HardStop.SELF_HARM),
    ],
)
def test_the_reviews_near_misses(text, expected):
    assert lexicon_reading(text) == expected
