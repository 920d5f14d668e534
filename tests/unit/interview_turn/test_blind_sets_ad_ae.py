"""What the lexicons alone read in the forms the blind sets `ad` and `ae` found missing (2026-11-29),
each said afresh, next to the ordinary memoir sentences each form must leave alone. The sets and
their figures: docs/judges.md, "Interview"."""

from __future__ import annotations

import pytest

from interview_turn.engine.model import HardStop
from tests.unit.interview_turn.support import PAUSE, lexicon_reading


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
        # An independent review's ordinary sentences that the first versions of these forms read.
        ("后来我想退出，可是合同已经签了，只好干下去。", None),
        ("这个家族群太吵了，我要退出。", None),
        ("那年厂子效益不好，我爸说他不想做了，就回了老家种地。", None),
        ("I'm pulling out, I told the foreman, and I walked off the site that same day.", None),
        ("Oh, delete everything I said about Auntie Mei, she'd kill me. Anyway, where were we?", None),
        ("They've asked me to the reunion in Cork. I'm going to go while I still have my wits.", None),
        ("It took me months with the old Singer machine, but I've worked out how.", None),
        ("At the rope bridge I remember standing there looking at it for ages.", None),
        ("My wife used to joke the kids would be better off with the insurance money than with me.", None),
        ("我当年就该跟他一起去深圳的，现在去也不晚吧，我身体还行。", None),
        ("跑长途的都知道，困了不打方向盘是要出事的，所以一定要停下来休息。", None),
        ("那年汶川地震以后，一个月里又震了好几次，我们都睡在帐篷里。", None),
        ("我们刚跑出门，有人喊：余震！大家都趴下。", None),
        ("Aftershock! we all shouted, and ran into the schoolyard.", None),
        ("救命，那个时候的工资才三十块一个月，你敢信？", None),
        ("她掉进河里，大家听到，救命！救命！我就跳下去了。", None),
        ("我刚到城里那年，在工地上摔了一跤，流了好多血，工头一分钱都没给。", None),
        ("你能不能帮我叫个人过来，把这箱老照片搬下去？", None),
        ("他在井下喊：快帮我叫人！", None),
        ("At the fish market there's a man with a knife who guts a salmon in one stroke.", None),
        ("The night of the riots, a man is banging on the door and my mother pushes us under the bed.", None),
        ("When the soldiers came, I'm hiding under the bed and Mum whispers don't make a sound.", None),
        ("That's why the basement smells, there's water coming in through the wall.", None),
        ("In the '98 flood, water's coming in under the door and we're all upstairs.", None),
        ("那年我爸说，先不结婚，回去再说。", None),
        ("我们家的规矩是，饭吃完再说。", None),
        # And what it found the forms still missed.
        ("我妈说不出话了，不知道怎么办！", HardStop.ACUTE_DISTRESS),
        ("Water's pouring in under the door right now!", HardStop.ACUTE_DISTRESS),
        ("水漫进来了，已经到膝盖了！", HardStop.ACUTE_DISTRESS),
        ("有个男人在砸我的车窗，我好怕。", HardStop.ACUTE_DISTRESS),
        ("我啱啱跌咗一跤，起唔到身。", HardStop.ACUTE_DISTRESS),
        ("刚刚我在厕所跌倒了，站不起来。", HardStop.ACUTE_DISTRESS),
        ("你过半个钟再打来，我而家喺巴士度。", PAUSE),
    ],
)
def test_the_lexicons_read_the_blind_sets_forms_and_leave_ordinary_speech(text, expected):
    assert lexicon_reading(text) == expected
