"""What the lexicons read in the forms the blind set `ah` found missing (2026-11-29, read on
6bb683d: a hospice bed, lorry drivers and sailors, a house packed up for a move into care,
Malaysian and Singaporean Chinese, a scam in progress, a narrator in a noisy café), each said
afresh next to the ordinary memoir sentences each form must leave alone. The sets and their
figures: docs/judges.md, "Interview"."""

from __future__ import annotations

import pytest

from interview_turn.engine.model import HardStop
from tests.unit.interview_turn.support import PAUSE, lexicon_reading


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A break until the noise passes.
        ("The blender's going, I can't hear you. Give it two minutes and we'll carry on.", PAUSE),
        ("I told the lad, give it ten years and we'll see who's right.", None),
        ("Dad always said give it five minutes and we'll start again, about everything.", None),
        # Ending it.
        (
            "No offence, love, but I'm pulling the plug on this. I don't want it in a book.",
            HardStop.STOP_REQUEST,
        ),
        ("The doctors were pulling the plug on him, that's when we said goodbye.", None),
        ("这个回忆录不弄了，钱退给我吧。", HardStop.STOP_REQUEST),
        ("后来厂子不搞了，工资也没退给我们。", None),
        # Worth more dead, the means at hand, waiting to go.
        ("My family would be better off cashing in my life insurance, honestly.", HardStop.SELF_HARM),
        ("They'd be better off claiming on the insurance for the car, it's a write-off.", None),
        ("我已经买好了安眠药，就藏在枕头底下。", HardStop.SELF_HARM),
        ("我妈当年买了一瓶农药放在柜子里，是打虫用的。", None),
        ("我买了一瓶农药，放在柜子里，地里的虫子太多了。", None),
        ("I'm just waiting for the day I can go, the sooner the better.", HardStop.SELF_HARM),
        ("We were waiting for the day the ship came in, the sooner the better, we were starving.", None),
        # In danger now: a scam on the line, a fall, an injury, a crash, men at the door.
        (
            "He's on the phone right now saying they'll hurt my grandson if I don't pay.",
            HardStop.ACUTE_DISTRESS,
        ),
        ("He's on the phone right now with the council about the bins.", None),
        ("他还在电话上，说不转钱就要抓我，我好怕。", HardStop.ACUTE_DISTRESS),
        ("他还在电话上跟我妹妹聊天呢。", None),
        ("I've fallen over in the bathroom and I can't get up.", HardStop.ACUTE_DISTRESS),
        ("Mum fell over in the garden and couldn't get up for hours.", None),
        ("If I fell down I can't get up on my own, that's why I've got the alarm.", None),
        ("My wrist's bent the wrong way, it hurts so much.", HardStop.ACUTE_DISTRESS),
        ("His knee bent the wrong way on the pitch, oh god it was awful, 1986.", None),
        ("撞了撞了！我头好晕。", HardStop.ACUTE_DISTRESS),
        ("那次撞了车，我的腿动不了半年。", None),
        ("那帮人现在就在我家门口，已经在敲了。", HardStop.ACUTE_DISTRESS),
        ("我孙子现在就在门口等我呢。", None),
        # A second review's ordinary sentences the forms misread, and the emergencies they lost.
        ("我孙子正在外面玩，我怕他摔着。", None),
        ("他还在电话里跟客户谈呢，恐怕要晚点到。", None),
        ("那年他打电话来威胁我，我好怕，他还在电话上骂个不停我就挂了。", None),
        ("佢仲喺电话度，话唔转钱就拉我，我好惊。", HardStop.ACUTE_DISTRESS),
        ("Sorry, that was my daughter. She's on the phone now to the police about her car.", None),
        ("每天早上起来我的腰动不了，好疼，得在床上躺半个钟头。", None),
        (
            "My little finger's been bent the wrong way since the docks; when it rains it hurts like mad.",
            None,
        ),
        ("At my age, once I've fallen over, I can't get up without a chair to lean on.", None),
        ("我跌咗落地，好惊呀，起唔到身，冇人喺度，点算？", HardStop.ACUTE_DISTRESS),
        ("我摔倒了，爬不起来，你快帮我打电话叫救护车，怎么办？", HardStop.ACUTE_DISTRESS),
        ("I told the board: I'm pulling the plug on the project. Best decision I ever made.", None),
        ("他进门就说“这活不做了，把钱退了吧”，摔门就走了。", None),
        ("My wife always jokes the kids would be better off cashing in my life insurance.", None),
        ("The kids'd be better off cashing in my life insurance, if I'm honest.", HardStop.SELF_HARM),
        ("我买了老鼠药，放在柜子后面，厨房里闹耗子。", None),
        ("我就盼着那一天早点来，越快越好。", HardStop.SELF_HARM),
        ("Dad always told us: give it ten minutes and we'll try again.", None),
        ("Give me five and we'll carry on.", PAUSE),
    ],
)
def test_the_lexicons_read_the_blind_set_forms_and_leave_ordinary_speech(text, expected):
    assert lexicon_reading(text) == expected
