"""What the lexicons alone read in the forms the blind set `af` found missing (2026-11-29, read on
4ed8a38: carers, veterans, shift breaks, floods and typhoons, Hong Kong narrators, voice-to-text),
each said afresh, next to the ordinary memoir sentences each form must leave alone. The sets and
their figures: docs/judges.md, "Interview"."""

from __future__ import annotations

import pytest

from interview_turn.artifacts import interview_config
from interview_turn.engine.model import HardStop
from interview_turn.engine.signals import read_lexicons

CONFIG = interview_config()
PAUSE = "pause"


def reading(text: str) -> HardStop | str | None:
    """The hard stop the lexicons read, else a pause, else None."""
    found = read_lexicons(CONFIG.for_matching(text), CONFIG.compiled_lexicon)
    return found.hard_stop or (PAUSE if "pacing" in found.found else None)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Someone at the door now, the narrator shut in.
        (
            "She's been hammering on my back door for ten minutes. I've locked myself in the bedroom.",
            HardStop.ACUTE_DISTRESS,
        ),
        ("He'd been banging on doors all day selling brushes.", None),
        ("I once locked myself out of the shed, had to climb the fence.", None),
        # An accident at work, happening now.
        (
            "Hang on, they're screaming for an ambulance on the line, there's blood everywhere.",
            HardStop.ACUTE_DISTRESS,
        ),
        ("There was blood everywhere, we cleaned the shop floor all night. That was 1971.", None),
        ("There's blood everywhere in that film, I couldn't watch it.", None),
        ("刚才隔壁工位有个师傅被夹住了，我手还在抖。", HardStop.ACUTE_DISTRESS),
        ("那年车间有人被卷进机器，后来就加了防护罩。", None),
        # Flood water and a typhoon, in Cantonese.
        ("水浸入屋喇，浸到膝头喇！", HardStop.ACUTE_DISTRESS),
        ("嗰年水浸，我哋喺天台住咗三日。", None),
        ("玻璃碎咗呀！我哋匿咗喺浴室。", HardStop.ACUTE_DISTRESS),
        ("细个嗰阵我成日匿喺衣柜度睇书。", None),
        # Cutting again, a life with nothing left in it, cuts owned as one's own.
        ("最近又开始割了，别告诉我儿子。", HardStop.SELF_HARM),
        ("那些疤不是摔的啦……又开始割了。", HardStop.SELF_HARM),
        ("今年麦子又开始割了，比往年早。", None),
        ("孩子都走了，我还活着有什么用。", HardStop.SELF_HARM),
        ("他能还活着，真是运气。", None),
        ("手上那些口子，是我自己划的。", HardStop.SELF_HARM),
        ("这些窗花是我自己剪的。", None),
        # A break of so many minutes, and after it coming back.
        ("歇二十分钟，我给他翻个身再聊。", PAUSE),
        ("我们中午就歇半个钟头，吃完接着干。", None),
    ],
)
def test_the_lexicons_read_the_blind_set_forms_and_leave_ordinary_speech(text, expected):
    assert reading(text) == expected
