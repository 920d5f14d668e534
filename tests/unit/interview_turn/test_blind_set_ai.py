"""What the lexicons read in the forms the blind set `ai` found missing (2026-11-29, read on
e460644: firefighters and paramedics, a farmer at harvest, a halfway house, Taiwanese Mandarin and
Hokkien, a narrator mixing Chinese with Spanish or French, an athlete in chronic pain), each said
afresh next to the ordinary memoir sentences each form must leave alone. The sets and their
figures: docs/judges.md, "Interview"."""

from __future__ import annotations

import pytest

from interview_turn.engine.model import HardStop
from tests.unit.interview_turn.support import PAUSE, lexicon_reading


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # No reason to go on, wished dead, joining the dead spouse, the world better off.
        ("她走了以后，每天晚上都在想，活着干什么呢。", HardStop.SELF_HARM),
        ("他总说：活着干什么呢，不就是吃饭睡觉。", None),
        ("还不如当年在矿里就死了，省得受这份罪。", HardStop.SELF_HARM),
        ("还不如早点走了，省得堵车。", None),
        ("不如早点去陪他，一个人太冷清了。", HardStop.SELF_HARM),
        ("我明天早点去找她拿钥匙。", None),
        ("Honestly the world would get on fine without me these days.", HardStop.SELF_HARM),
        ("They'd do fine without me, the new lads, I trained them well.", None),
        ("拖累儿女这么多年，我宁愿早点走。", HardStop.SELF_HARM),
        ("怕拖累你们，我宁愿早点走，坐最早那班车回去。", None),
        # A break said in passing, in English, Spanish or French.
        ("Give me a bit, I'm going to get some air. I'll be right back.", PAUSE),
        ("Give me a bit of that cake and I'll tell you about the wedding.", None),
        ("Sorry, gotta go, the cows are out. I'll ring you back tonight.", PAUSE),
        ("He said he had to go, and I'll call you later, he promised.", None),
        ("Tengo que irme, ¿seguimos mañana?", PAUSE),
        # Ending the project.
        ("这个回忆录我们就不写了，谢谢你们。", HardStop.STOP_REQUEST),
        ("后来这个项目就不做了，厂里没钱。", None),
        ("我要退出这个计划，故事不讲了。", HardStop.STOP_REQUEST),
        ("I wish I could just switch it off, the remembering. But I can't.", None),
        # Hiding now, heart pounding.
        ("我躲在衣柜里，心跳得好快，他们还在外面。", HardStop.ACUTE_DISTRESS),
        ("小时候捉迷藏我躲在衣柜里，心跳得厉害。", None),
    ],
)
def test_the_lexicons_read_the_blind_set_forms_and_leave_ordinary_speech(text, expected):
    assert lexicon_reading(text) == expected
