"""What the lexicons read in the forms the blind set `ag` found missing (2026-11-29, read on
755b32d: dialysis, miners, an epidemic nurse, a retired comedian, Northeastern and Sichuan
Mandarin, answers by text message), each said afresh next to the ordinary memoir sentences each
form must leave alone; and an answer that asks to go on, which the signal model must not read as
a stop request. The sets and their figures: docs/judges.md, "Interview"."""

from __future__ import annotations

import pytest

from interview_turn.artifacts import interview_config
from interview_turn.engine.model import HardStop
from interview_turn.engine.signals import read_lexicons
from tests.unit.interview_turn.support import PAUSE, lexicon_reading, signals_of


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A note written, a plan with its means.
        ("I've already written my suicide note, it's in the drawer.", HardStop.SELF_HARM),
        ("我都写好遗书了，放在抽屉里。", HardStop.SELF_HARM),
        ("Got it all planned: the pills are saved up in a jar by the bed.", HardStop.SELF_HARM),
        # An independent review's ordinary sentences the first forms misread.
        ("I got a suicide note from my brother in 1979, and I still keep it in my Bible.", None),
        ("I wrote a suicide note when I was fifteen, thank God my mother never found it.", None),
        ("If the council puts the rates up again I'd write a suicide note in triplicate.", None),
        ("上前线之前我写好了遗书，交给了指导员。", None),
        ("I wrote my suicide note last night, it's under the clock.", HardStop.SELF_HARM),
        ("我写好遗书了，就放在枕头底下。", HardStop.SELF_HARM),
        ("我已经写好了遗言，丧事从简，骨灰撒海里。", None),
        ("I've got it all planned for the cruise: my pills are counted into little bags.", None),
        ("第一次跳伞，站在舱门口，我想着跳下去就不用再怕了。", None),
        ("I've got it all planned, the pills are in the weekly organizer so I don't forget.", None),
        ("Got it all planned for the surprise party: the note's written, the cake's ordered.", None),
        ("My grandfather wrote a suicide note in 1952 and my aunt burned it.", None),
        ("我爸当年留下的遗书我一直没敢看。", None),
        ("I've got it all planned, the rope swing for the grandkids goes up Saturday.", None),
        ("Got it all planned: pills in the cabinet for the trip and the tickets printed.", None),
        # Jumping thought of as a way out.
        ("每次站在江堤上，我都想着跳下去就再也不用受这份罪了。", HardStop.SELF_HARM),
        ("小时候我们总想着跳下去就能摸到鱼。", None),
        ("十米台上站着，我总想着跳下去就不用再紧张了，教练一吹哨我就跳。", None),
        # A fall now, alone, in Cantonese or Mandarin.
        ("我跌咗落地呀，起唔到身，冇人喺度，点算？", HardStop.ACUTE_DISTRESS),
        ("我摔了一跤，爬不起来，家里没人，怎么办啊？", HardStop.ACUTE_DISTRESS),
        ("嗰年我跌咗落地，起唔到身，好彩隔篱听到。", None),
        ("我在浴室摔倒了，起不来，家里没人，怎么办？", HardStop.ACUTE_DISTRESS),
        ("我最担心哪天我摔了爬不起来，家里又没人，怎么办？", None),
        ("上个月我摔了一跤，爬不起来，家里没人，躺了两个钟头才等到女儿回来。", None),
        ("隔篱阿婆打电话嚟话：我跌咗落地，起唔到身，点算？", None),
        # A break, in Northeastern Mandarin or typed in a hurry.
        ("这药水还得一会儿，你等着，搞完了咱再唠。", PAUSE),
        ("等下等下，水开了。", PAUSE),
        ("等阵等阵，有人拍门。", PAUSE),
        ("等阵等阵，唔系咁嘅，系我细佬先去咗香港。", None),
        ("锅里还炖着肉，搞完了我们再讲。", PAUSE),
        ("我去充个电就回来。", PAUSE),
        ("等下等下，不是我大哥，是我二哥去的北大荒。", None),
        ("那会儿队长天天喊：整完了再唠，先干活！", None),
        ("我爸临走前说：等我回来继续。", None),
        ("那几年我去充电就回来，从来不在外面逗留。", None),
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
        # An independent review's stop requests the first keep-going forms silenced.
        (
            "I don't want to stop you, but I'm done with this whole interview business.",
            HardStop.STOP_REQUEST,
            False,
        ),
        ("I don't want to stop, but I'm done. No more interviews, ever.", HardStop.STOP_REQUEST, False),
        (
            "Dad always told us, keep going. Well, I'm done. I'm not doing this anymore.",
            HardStop.STOP_REQUEST,
            False,
        ),
        ("我唔想停药，我唔想再做呢个访问，你哋搵第二个啦。", HardStop.STOP_REQUEST, False),
        # A second review: a lead-in, and "not done" is no ending.
        ("Well, I don't want to stop.", None, False),
        ("Oh no, please, keep going.", None, False),
        (
            "I don't want to stop, we haven't even got to the wedding, and I'm not done with Dad's story.",
            None,
            False,
        ),
    ],
)
def test_asking_to_go_on_is_no_stop_request(text, stop, pause):
    signals = signals_of(text)
    assert (signals.hard_stop, signals.pause_requested) == (stop, pause)


@pytest.mark.parametrize(
    "text",
    [
        "I don't want to stop talking about them, that's the thing.",
        "I don't really want to stop talking about Dad, he was everything.",
        "I never want to stop talking about her.",
    ],
)
def test_wanting_to_talk_on_is_no_refusal(text):
    config = interview_config()
    assert "refusal" not in read_lexicons(config.for_matching(text), config.compiled_lexicon).found


def test_really_wanting_to_stop_talking_about_it_is_still_a_topic_change():
    config = interview_config()
    found = read_lexicons(
        config.for_matching("I really want to stop talking about the war now."), config.compiled_lexicon
    ).found
    assert "topic_change" in found
