"""What the lexicons alone read in the forms the blind sets `ad` and `ae` found missing (2026-11-29),
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
        # Migrants, harvests, night shifts, mines, earthquakes (ad, read blind on cfe3708).
        ("线路不好，您过一会儿再打过来吧。", PAUSE),
        ("在地铁上，回家再聊。", PAUSE),
        ("他说等会儿再打过来，结果一直没打。", None),
        ("妈妈总说回家再说，回家了又不说。", None),
        ("I'm pulling out. Scrap what we recorded.", HardStop.STOP_REQUEST),
        ("I'm pulling out the weeds before the rain.", None),
        ("We had to bin everything we recorded on those old tapes, they'd gone mouldy.", None),
        ("我奶奶说她不想录了。", HardStop.STOP_REQUEST),
        ("奶奶年纪大了，广场舞也不想参加了。", None),
        ("There's water coming in under the door and it won't stop.", HardStop.ACUTE_DISTRESS),
        ("There was water coming in under the door every spring.", None),
        ("我刚从梯子上摔下来，腿动不了……快帮我叫个人。", HardStop.ACUTE_DISTRESS),
        ("救命！有人在砸门！", HardStop.ACUTE_DISTRESS),
        ("他在河里喊救命，我跳下去了。", None),
        ("救命恩人啊，那个医生。", None),
        ("我爸突然讲唔到嘢，点算啊？", HardStop.ACUTE_DISTRESS),
        ("那年爷爷突然说不出话，我们不知道怎么办，后来才知道是中风。", None),
        ("余震了！楼梯塌了一半。", HardStop.ACUTE_DISTRESS),
        ("那年地震！我才十岁。", None),
        ("They'd be better off with the insurance money than with me, honestly.", HardStop.SELF_HARM),
        ("We'd be better off with the insurance money than with the old van, Dad said.", None),
        ("There's a rope in the shed, and I sit there staring at it at night.", HardStop.SELF_HARM),
        ("There's a rope in the barn for the calves, I still look at it and think of Dad.", None),
        ("我真该跟他一起走的，现在去也不晚。", HardStop.SELF_HARM),
        ("跟她一起走的那条路，现在去也不晚。", None),
        ("开车的时候想，不打方向盘就好了，一了百了。", HardStop.SELF_HARM),
        ("要是不打方向盘，车就冲沟里了，好险。", None),
        # ac's answers the retrained model let go, said afresh as general forms.
        ("I'm out. Off you go.", HardStop.STOP_REQUEST),
        ("We played poker till two. I'm out, I said, and went to bed.", None),
        ("There's a man in the shop with a knife.", HardStop.ACUTE_DISTRESS),
        ("So there's a man at the door with a gun, and my dad just laughs.", None),
        ("I've figured out how.", HardStop.SELF_HARM),
        ("I've worked out how to use the tablet.", None),
        # Interpreters, recovery, fishermen's wives, left-behind grandparents (ae, read blind on
        # d2b8201).
        ("喂，卡了，做完饭再打过来吧。", PAUSE),
        ("他说吃完饭再打过来，结果没打。", None),
        ("您等等啊，锅开了。", PAUSE),
        ("你奶奶刚才晕倒了，叫不醒，咋办？", HardStop.ACUTE_DISTRESS),
        ("她刚才摔倒了，没事，已经起来了。", None),
        ("The water is coming into the kitchen, it's up to my knees.", HardStop.ACUTE_DISTRESS),
        ("He is asking can we call the police.", HardStop.ACUTE_DISTRESS),
        ("He asked if we could get someone to fix the roof.", None),
        ("She says she is tired of living.", HardStop.SELF_HARM),
        ("他要是回不来，我也不想活了。", HardStop.SELF_HARM),
        ("累死了，我也不活了，哈哈。", None),
        ("我又在胳膊上划了几道。", HardStop.SELF_HARM),
        ("切菜的时候不小心在手腕上划了一道。", None),
        ("This isn't for me. Take your recorder, no hard feelings.", HardStop.STOP_REQUEST),
        ("Farming? This isn't for me, I told Dad in 1962.", None),
        ("This isn't for me to say, but Dad was wrong.", None),
    ],
)
def test_the_lexicons_read_the_blind_sets_forms_and_leave_ordinary_speech(text, expected):
    assert reading(text) == expected
