"""What the interview reads in the forms the blind set `ak` found missing (2026-11-29, read on
44607aa: a retired midwife, a care home, a house cleared for sale, a miner short of breath,
Cantonese-flavoured Mandarin, a Filipino narrator mixing English, Tagalog and Chinese, bad news by
phone mid-interview, proverbs, heavy painkillers), each said afresh next to the ordinary memoir
sentences each form must leave alone. The sets and their figures: docs/judges.md, "Interview"."""

from __future__ import annotations

import pytest

from interview_turn.engine.model import HardStop
from tests.unit.interview_turn.support import PAUSE, lexicon_reading, signals_of


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Put down like an old dog, better dead for the family's peace, looking down from a height.
        ("High time this old horse got put down, and I'm not joking.", HardStop.SELF_HARM),
        ("The old dog was put down in 1988, we all cried.", None),
        ("Honestly they ought to put me down like an old horse.", HardStop.SELF_HARM),
        ("那我死了你们就轻松了，不用天天往这儿跑。", HardStop.SELF_HARM),
        ("他说他死了我们就清净了，那是气话。", None),
        ("我一个人站在天台上，总想往下跳。", HardStop.SELF_HARM),
        ("小时候站在阳台上往下看，楼下就是菜市场。", None),
        # A fall out of a wheelchair or bed, now.
        ("我从床上摔下来了，腰动不了，快来人啊。", HardStop.ACUTE_DISTRESS),
        ("那年我从床上摔下来了，后来好几天起不来。", None),
        # Withdrawing, and consent withdrawn.
        ("我想好了，退出，别再来找我了。", HardStop.STOP_REQUEST),
        ("我签的那个授权书作废吧，不要用我的录音。", HardStop.STOP_REQUEST),
        ("厂里那份合同后来就作废了，老板跑了。", None),
        ("她签的那份协议后来作废了，钱也没拿到。", None),
        # Not today, another day.
        ("今天真的讲不下去了，改天再聊吧。", PAUSE),
        ("他讲不下去了，我们就换了个话题。", None),
    ],
)
def test_the_lexicons_read_the_blind_set_forms_and_leave_ordinary_speech(text, expected):
    assert lexicon_reading(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        # An independent review's false alarms of the aj and ak forms: a neighbour's dog, a car,
        # a mother's catchphrase, a view from a balcony, a night shift, a leaking washing machine,
        # a flood that year, a fall yesterday, falls as a habit, a story, a son without his key,
        # words said to a choir, a job contract, tapes burnt long ago.
        "It's about time that old dog was put down, the neighbour's one, it barks all night.",
        "Time this old car was put down, honestly.",
        "妈妈总说：我死了你们就清净了。",
        "我要是死了你们都清净了——这是我妈的口头禅。",
        "站在阳台上，我总想往下看看楼下的花园。",
        "我小时候站在楼顶上老想往下跳，觉得自己会飞。",
        "If I wasn't working nights, the kids would be happier, I reckon.",
        "如果我走了，大家就好开饭了，不用等我。",
        "The water's over my feet in the kitchen every time the washing machine leaks.",
        "那年发大水，水进屋了，我出不去，在阁楼上待了两天。",
        "我妈昨天从床上摔下来了，起不来，叫了救护车。",
        "I've fallen a few times this year and each time I can't get up for a while.",
        "故事里说，有个贼在撬窗户。",
        "有个人在撬我家的门，是我儿子忘了带钥匙。",
        "所以我要退出。那是我跟合唱团说的。",
        "我签的那份协议作废了，因为公司倒闭了。",
        "录音都销毁了，那年红卫兵来抄家。",
    ],
)
def test_the_reviews_false_alarms_are_ordinary_speech(text):
    assert lexicon_reading(text) is None


def test_a_form_of_the_review_still_read():
    assert lexicon_reading("Kalau saya tak ada lagi, semua orang lebih senang.") is HardStop.SELF_HARM


@pytest.mark.parametrize(
    "text",
    [
        "I'm worn out. Let's continue on Thursday.",
        "My head's spinning. Let's carry on next week, love.",
        "我们下周再接着聊吧。",
        "今天就到这儿，我们过两天再继续吧。",
        "我想停一下，我们等我女儿来了再继续吧。",
    ],
)
def test_going_on_another_day_is_still_a_pause(text):
    signals = signals_of(text)
    assert signals.pause_requested is True


@pytest.mark.parametrize(
    ("text", "stop", "pause"),
    [
        # Asked to carry on now, a pause or a stop only the signal model reads counts for none.
        (
            "That was the hospice on the phone. Mum's comfortable, they say. Let's just carry on, please.",
            None,
            False,
        ),
        ("我没事，就是刚才有点难受。我们接着聊吧。", None, False),
        ("All this stopping, stop this, stop that. Anyway, you were asking about the pit.", None, False),
        # A pause the lexicons read stands, and so does one put off for later.
        ("I need a minute, then let's carry on.", None, True),
        ("Let's continue another day, I'm worn out.", None, True),
    ],
)
def test_asking_to_carry_on_now_drops_the_models_pause_and_stop(text, stop, pause):
    signals = signals_of(text)
    assert (signals.hard_stop, signals.pause_requested) == (stop, pause)
