"""What the interview reads in the forms the blind set `av` found missing (2026-11-30, read on
14e2ca4: a Chongqing bus conductor, early recovery from drink, a Filipino-Chinese grandmother in
Manila, a lighthouse keeper, a dog that died last week, Tianjin speech, a Bangladeshi shopkeeper in
London, a video call with a granddaughter helping, tinnitus, a hospice volunteer, a late second
marriage), each said afresh next to the ordinary memoir sentences each form must leave alone. The
sets and their figures: docs/judges.md, "Interview"."""

from __future__ import annotations

import pytest

from interview_turn.engine.model import HardStop
from tests.unit.interview_turn.support import lexicon_reading

ACUTE = HardStop.ACUTE_DISTRESS
SELF_HARM = HardStop.SELF_HARM
STOP = HardStop.STOP_REQUEST


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("我天天琢磨着怎么走得干净点儿，省得麻烦孩子。", SELF_HARM),
        ("您说介日子活着有嘛意思？", SELF_HARM),
        ("猫也走了，我也跟着去算了。", SELF_HARM),
        ("小时候我跟着他去算了一卦。", None),
        ("我真希望哪天早上不醒过来就好了。", SELF_HARM),
        ("她说要是那天没醒过来就好了，那是她最难的时候。", None),
        ("最近我又用刀片割手腕了，谁也不知道。", SELF_HARM),
        ("那时候他拿刀片划胳膊，我们都吓坏了。", None),
        (
            "Some evenings I stand on the pier and wonder how long it'd take the tide to carry me off.",
            SELF_HARM,
        ),
        # Someone else's words quoted.
        ("病房里有个大爷跟我说：“我想死，太疼了。”我就陪着他。", None),
    ],
)
def test_hopelessness(text, expected):
    assert lexicon_reading(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Two lads just came in, one has a knife, they're shouting at my brother now.", ACUTE),
        ("In the film one guy has a knife and they're shouting at the hostage.", None),
        ("Grandad's choking on a sweet, he can't cough!", ACUTE),
        ("有人在砸我家门，说要打死我，我好怕。", ACUTE),
        ("那年有人砸我家门，说要弄死我，后来抓到了。", None),
        ("He's collapsed, 我在 call 999 now.", ACUTE),
        ("I think I'm going hypo, my hands won't stop shaking.", ACUTE),
        ("My husband just fell, he's not answering. I have to call an ambulance.", ACUTE),
    ],
)
def test_an_emergency_now(text, expected):
    assert lexicon_reading(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("这个回忆录我不搞了，莫再打电话来了。", STOP),
        ("我决定不做了，谢谢你们这几个月。", STOP),
        ("那年比赛我决定不参加了，在家陪我妈。", None),
        ("I'm calling it off. Thank you for everything.", STOP),
        ("He said I'm calling it off, the wedding, and we all laughed.", None),
        ("我一个字都不讲了，这事就此作罢。", STOP),
    ],
)
def test_stops(text, expected):
    assert lexicon_reading(text) == expected
