"""What the interview reads in the forms the blind set `al` found missing (2026-11-29, read on
2c89161: an interpreter's words, early memory loss, a hospital bed on a video call, a refugee by
boat, Sichuan-flavoured Mandarin, a carer with a spouse in the next room, the 1980s, a stammer, a
drink or two, Singlish), each said afresh next to the ordinary memoir sentences each form must
leave alone. The sets and their figures: docs/judges.md, "Interview"."""

from __future__ import annotations

import pytest

from interview_turn.engine.model import HardStop
from tests.unit.interview_turn.support import lexicon_reading, signals_of


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # No more sessions, or the whole thing stopped.
        ("I've thought it over. Let's not do any more interviews, thank you.", HardStop.STOP_REQUEST),
        ("Let's not do any more of these today, I'm whacked.", None),
        ("Let's not do any more damage to that fence, Dad said.", None),
        ("We should just end the whole thing, I'm not up to it.", HardStop.STOP_REQUEST),
        ("We should just end the whole thing for now and pick it up in spring.", None),
        # Life not worth it, in Sichuanese; poison to drink; better to have drowned back then.
        ("活起真的莫得意思了。", HardStop.SELF_HARM),
        ("这个菜没得啥子意思，太淡了。", None),
        ("柜子里那瓶安眠药，有时候真想一口吃了算了。", HardStop.SELF_HARM),
        ("那瓶农药过期了，倒了算了。", None),
        ("我常想，当初要是在那条船上淹死了就好了，省得受这些罪。", HardStop.SELF_HARM),
        ("当时雨停了就好了，可偏偏下了一整天。", None),
        # The spouse's pills and one's own, so both can rest.
        (
            "Sometimes I look at his tablets and mine and think, take them all together and both of us could finally rest.",
            HardStop.SELF_HARM,
        ),
        ("He takes his tablets at eight and then both of us can rest for an hour.", None),
        # Blacking out now, panic repeated, someone collapsed now.
        ("我现在一低头就眼前一黑，手脚发麻。", HardStop.ACUTE_DISTRESS),
        ("那次在地里干活，我眼前一黑就倒了。", None),
        ("他们眼前一黑就晕了，电影里都这么演。", None),
        ("水管爆了，水一直往外冒，怎么办，怎么办啊！", HardStop.ACUTE_DISTRESS),
        ("当时我心里只想着怎么办怎么办，后来邻居来了。", None),
        ("She's collapsed in the kitchen, I need to ring for an ambulance.", HardStop.ACUTE_DISTRESS),
        ("She's not moving much these days, bless her, the hip.", None),
        # A threat at the door, however long the sentence.
        (
            "The bloke next door has been hammering on my front door since lunch, yelling that"
            " he'll kill the dog and me with it.",
            HardStop.ACUTE_DISTRESS,
        ),
        # Someone to be called, in dialect.
        ("你帮我叫一下人嘛，我起不来。", HardStop.ACUTE_DISTRESS),
        ("你帮我叫一下人搬这个柜子。", None),
    ],
)
def test_the_lexicons_read_the_blind_set_forms_and_leave_ordinary_speech(text, expected):
    assert lexicon_reading(text) == expected


def test_not_wanting_it_over_is_no_stop_request():
    # Only the signal model reads a stop here; said not to want it over, none stands.
    signals = signals_of(
        "My sister says you must want this to be over by now. I don't want it over, I like talking about him."
    )
    assert signals.hard_stop is None
