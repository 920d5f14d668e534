"""What the lexicons read in the forms the blind set `ag` found missing (2026-11-29, read on
755b32d: dialysis, miners, an epidemic nurse, a retired comedian, Northeastern and Sichuan
Mandarin, answers by text message), each said afresh next to the ordinary memoir sentences each
form must leave alone; and an answer that asks to go on, which the signal model must not read as
a stop request. The sets and their figures: docs/judges.md, "Interview"."""

from __future__ import annotations

import pytest

from interview_turn.artifacts import interview_config
from interview_turn.engine.model import HardStop, TopicState
from interview_turn.engine.signals import extract
from tests.unit.interview_turn.support import PAUSE, lexicon_reading


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A note written, a plan with its means.
        ("I've already written my suicide note, it's in the drawer.", HardStop.SELF_HARM),
        ("我都写好遗书了，放在抽屉里。", HardStop.SELF_HARM),
        ("Got it all planned: the pills are saved up in a jar by the bed.", HardStop.SELF_HARM),
        ("My grandfather wrote a suicide note in 1952 and my aunt burned it.", None),
        ("我爸当年留下的遗书我一直没敢看。", None),
        ("I've got it all planned, the rope swing for the grandkids goes up Saturday.", None),
        ("Got it all planned: pills in the cabinet for the trip and the tickets printed.", None),
        # Jumping thought of as a way out.
        ("下班路过那座桥，总想着跳下去就什么都不用管了。", HardStop.SELF_HARM),
        ("小时候我们总想着跳下去就能摸到鱼。", None),
        # A fall now, alone, in Cantonese or Mandarin.
        ("我跌咗落地呀，起唔到身，冇人喺度，点算？", HardStop.ACUTE_DISTRESS),
        ("我摔了一跤，爬不起来，家里没人，怎么办啊？", HardStop.ACUTE_DISTRESS),
        ("嗰年我跌咗落地，起唔到身，好彩隔篱听到。", None),
        # A break, in Northeastern Mandarin or typed in a hurry.
        ("这药水还得一会儿，你等着，搞完了咱再唠。", PAUSE),
        ("等一下等一下，门铃响了。", PAUSE),
        ("手机要没电了，我去充个电马上回来。", PAUSE),
        ("我去充个电 回来继续", PAUSE),
        ("他回来继续干活了。", None),
        ("年轻时候我每天下班回来继续练琴。", None),
        ("那时候我去充个电要排队半天。", None),
    ],
)
def test_the_lexicons_read_the_blind_set_forms_and_leave_ordinary_speech(text, expected):
    assert lexicon_reading(text) == expected


@pytest.mark.parametrize(
    ("text", "stop", "pause"),
    [
        ("I don't want to stop.", None, False),
        ("No, keep going, I'm all right.", None, False),
        ("I dont want to stop talking about him, he deserves that.", None, False),
        ("我不想停，你接着问。", None, False),
        # Asked to go on, a break still stands, and so does a stop the lexicons read.
        ("I don't want to stop, I just need to sit a sec.", None, True),
        ("I want to stop now.", HardStop.STOP_REQUEST, False),
    ],
)
def test_asking_to_go_on_is_no_stop_request(text, stop, pause):
    signals = extract(interview_config(), text, topic_id="life_story", topic=TopicState(), turn_no=1).signals
    assert (signals.hard_stop, signals.pause_requested) == (stop, pause)
