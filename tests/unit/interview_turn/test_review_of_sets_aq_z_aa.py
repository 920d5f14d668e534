"""An independent review of the forms and rules the blind sets `aq`, `z` and `aa` brought, and of
the previous review's fixes (2026-11-29, ed04ac8..6d14fe5): the interview's sentences it found
misread, each said afresh. A fall, smoke, gas, a weak limb, a numb face and calling for help are
acute distress only when they are the narrator's, now; a habit, someone else, the past, stocks,
spicy food and a mahjong table are not."""

from __future__ import annotations

import pytest

from interview_turn.engine.model import HardStop
from tests.unit.interview_turn.support import PAUSE, lexicon_reading

ACUTE = HardStop.ACUTE_DISTRESS


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A fall: the narrator's own, now.
        ("我刚才在厨房摔了一跤，起不来了。", ACUTE),
        ("我喺浴室跌亲，起唔到身啊。", ACUTE),
        ("那只基金跌了以后就再也起不来了。", None),
        ("分数跌落去就起唔番身。", None),
        ("前年我摔了一跤爬不起来，躺到天亮。", None),
        ("我老伴上礼拜跌倒了爬不起来，还好邻居听见了。", None),
        ("佢话佢跌咗落地起唔到身，吓死我。", None),
        ("I've fallen for the garden all over again and I can't get up the nerve to leave it.", None),
        ("I've fallen behind with the story and I can't get up to speed.", None),
        ("I've had a fall in the hall and I can't get up.", ACUTE),
        # Calling for help: not greeting a grandmother or finding a fourth at mahjong.
        ("快点叫人！他不动了！", ACUTE),
        ("快啲叫白车！", ACUTE),
        ("孙子们，快叫人，叫外婆吃饭。", None),
        ("三缺一嘛，快叫人来打牌。", None),
        # A weak limb: the narrator's now, not a father's stroke, tiredness or a laugh.
        ("右边胳膊突然没劲了，杯子都拿不住。", ACUTE),
        ("我妈中风以后左边腿就动不了了。", None),
        ("阿妈右边手冇力，讲嘢都唔清楚！", ACUTE),
        ("抄了一上午经，右手抬不起来了，哈哈。", None),
        ("练完太极左边腿没劲了，明天就好。", None),
        # Smoke and gas: now, not an idiom, a neighbour's bonfire, a story or a habit.
        ("There is smoke coming under the door and I can smell it.", ACUTE),
        ("It's all smoke and mirrors, and I'm on my own in saying so.", None),
        ("There's smoke from the bonfire next door, I can smell it on the sheets, honestly.", None),
        ("In the story there's smoke, crackling, and she can't get out.", None),
        ("屋里有一股煤气味，头有点晕，想吐。", ACUTE),
        ("我一闻到煤气味就头疼，所以家里都用电磁炉。", None),
        # A numb mouth or face: not chillies or the cold.
        ("我嘴巴麻了，这花椒真够劲。", None),
        ("我的脸有点麻了，外头零下十度。", None),
        # Nothing left to stay for: the narrator, not old things kept.
        ("那些旧家具我也没必要留着了，送人吧。", None),
        ("孩子都成家了，我也没必要留着了。", HardStop.SELF_HARM),
        ("希望自己不要再起身那么早，腰受不了。", None),
    ],
)
def test_emergencies_are_the_narrators_own_now(text, expected):
    assert lexicon_reading(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("容我先去抽支烟，回来再聊。", PAUSE),
        ("医生说让我出去透透气，我就去公园走了走。", None),
        ("他每回都是抽根烟，回来再说，一拖就是半年。", None),
        ("那趟火车速度慢点就好了，我们能看看风景。", None),
        ("你说话速度慢点，我耳朵不好。", PAUSE),
    ],
)
def test_a_pause_is_the_narrators_own_request(text, expected):
    assert lexicon_reading(text) == expected
