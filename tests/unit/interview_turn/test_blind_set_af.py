"""What the lexicons alone read in the forms the blind set `af` found missing (2026-11-29, read on
4ed8a38: carers, veterans, shift breaks, floods and typhoons, Hong Kong narrators, voice-to-text),
each said afresh, next to the ordinary memoir sentences each form must leave alone. The sets and
their figures: docs/judges.md, "Interview"."""

from __future__ import annotations

import pytest

from interview_turn.engine.model import HardStop
from tests.unit.interview_turn.support import PAUSE, lexicon_reading


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Someone at the door now, the narrator shut in.
        ("She's been hammering on my back door for ten minutes, I'm terrified.", HardStop.ACUTE_DISTRESS),
        ("I've locked myself in the bedroom, he's outside shouting.", HardStop.ACUTE_DISTRESS),
        ("He'd been banging on doors all day selling brushes.", None),
        ("They've been hammering on my back door all morning, the joiner's fitting a new frame.", None),
        ("Since I retired I've locked myself in the shed most days with my woodwork.", None),
        ("I've locked myself in the bedroom so the grandkids don't interrupt us.", None),
        # An accident at work, happening now.
        ("Hang on, they're screaming for an ambulance on the line.", HardStop.ACUTE_DISTRESS),
        ("There is blood everywhere, oh God, somebody help.", HardStop.ACUTE_DISTRESS),
        ("There was blood everywhere, we cleaned the shop floor all night. That was 1971.", None),
        ("When you gut a deer there's blood everywhere, you get used to it.", None),
        ("Hang on, he's shouting for help with the ladder, I'll be right back.", None),
        ("刚才隔壁工位有个师傅被夹住了，我手还在抖。", HardStop.ACUTE_DISTRESS),
        ("我的手刚才被机器夹住了，好疼！", HardStop.ACUTE_DISTRESS),
        ("那年车间有人被卷进机器，后来就加了防护罩。", None),
        ("刚才我说的那个工友被夹断了手指，后来厂里赔了钱。", None),
        ("我刚才看新闻，说外地有个工人被卷进搅拌机。", None),
        # Flood water and a typhoon, in Cantonese.
        ("水浸入屋喇，浸到膝头喇！", HardStop.ACUTE_DISTRESS),
        ("水已经浸到大腿喇！", HardStop.ACUTE_DISTRESS),
        ("嗰年水浸，我哋喺天台住咗三日。", None),
        ("九八年水浸入屋了，我们全家搬到学校住。", None),
        ("我孙女啲头发而家去到腰喇，好靓。", None),
        ("玻璃碎咗呀！我哋匿咗喺浴室。", HardStop.ACUTE_DISTRESS),
        ("细个玩捉迷藏，我匿咗喺厕所成个钟都冇人搵到。", None),
        ("那年台风，窗户破了！我们一家吓坏了。", None),
        # Cutting again, a life with nothing left in it, cuts owned as one's own.
        ("最近又开始割了，别告诉我儿子。", HardStop.SELF_HARM),
        ("我最近又开始割腕了。", HardStop.SELF_HARM),
        ("稻子黄了，开始割了。", None),
        ("锣一响，开始划了！", None),
        ("孩子都走了，我还活着有什么用。", HardStop.SELF_HARM),
        ("鱼还活着干嘛不放回河里？我爸就这么问我。", None),
        ("那几年我真是一点盼头都没了，后来遇到了老伴。", None),
        ("这些伤口不是意外，是我划的。", HardStop.SELF_HARM),
        ("手上这个伤是我自己弄的，切菜没留神。", None),
        ("孩子们的haircuts都是我自己弄的。", None),
        # A break of so many minutes, and after it coming back.
        ("歇二十分钟，我给他翻个身再聊。", PAUSE),
        ("歇20分钟，我去看看他再说。", PAUSE),
        ("我们中午就歇半个钟头，吃完接着干。", None),
        ("那时候在工地，每干两个钟就歇十分钟再来。", None),
        ("医生交代，吃完药休息半小时再说话。", None),
    ],
)
def test_the_lexicons_read_the_blind_set_forms_and_leave_ordinary_speech(text, expected):
    assert lexicon_reading(text) == expected
