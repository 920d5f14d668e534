"""An independent review of the forms added for the blind sets `al`, `am` and `an` (2026-11-29)
found them reading reported words, habits, films, jokes, other people and the past as the
narrator's own request or emergency now, and "I don't want it over" cancelling real stop
requests. Each of its sentences, and the reading it should have."""

from __future__ import annotations

import pytest

from interview_turn.engine.model import HardStop
from tests.unit.interview_turn.support import lexicon_reading, signals_of


@pytest.mark.parametrize(
    "text",
    [
        "My husband said let's not do any more of these trips after Spain.",
        "Dad always said I'm retiring from memoirs, leave the writing to your mother.",
        "When he was 70 he announced I'm retiring from the project, and then he didn't.",
        "I'm bowing out from interviews like the Queen did, ha, no, carry on.",
        "I'd rather end the whole thing than sell to them, that's what I told the board in 1982.",
        "Mum would always say we can finish this later, and we never did.",
        "那时候打麻将，他老说我先 pause 一下，去抽根烟。",
        "那瓶农药我奶奶说喝了算了，后来被我爷爷抢下来了。",
        "当初他死了就好了，省得我们受罪。",
        "那时候死了就好了，我妈常这么骂我弟。",
        "The vet gave us pills for the dog, so both of us can finally rest at night now.",
        "他在楼顶站了半天，就差最后一步就把天线装好了。",
        "我在江边坐了一下午，就差一步就钓到那条大鱼了。",
        "那年我在楼顶站过，就差那一步，后来遇到了我老伴。",
        "I checked the travel insurance and the suicide clause was in small print, funny thing to read on holiday.",
        "我问过保险公司，说是自杀不赔，我表哥那事就是这样。",
        "I'm giving my stuff away, where I'm going, the new flat, there's no room.",
        "我一蹲下再站起来就眼前发黑，老毛病了。",
        "那部电影里她一直喊怎么办，怎么办，笑死我了。",
        "我女儿考试前老念叨怎么办怎么办。",
        "煤气味很重的那种老房子，我一进去就头晕，后来搬走了。",
        "我们村的沼气池煤气味很重，熏得人想吐。",
        "In the film she's collapsed on the kitchen floor and her son says I have to ring someone, and it cuts to black.",
        "He's collapsed again, the old fool, every Christmas after the sherry, and I have to call my sister to help.",
        "She's fitting every few weeks now, so I need to go to the pharmacy on Mondays.",
        "Oh God, there's blood in the sink from my gums again, I have to ring the dentist on Monday.",
        "There's so much blood in that film, I have to call my sister and tell her not to watch it.",
        "你帮我叫个人嘛，我一个人吃不完这么多菜。",
    ],
)
def test_the_reviews_false_alarms_are_no_hard_stop_or_pause(text):
    assert lexicon_reading(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "I don't want it over, but I've had enough of all this now, I'm tired, you can go home.",
        "I don't want it over like this. I'd like you to leave now please, I've had enough.",
    ],
)
def test_not_wanting_it_over_does_not_cancel_a_stop(text):
    assert signals_of(text).hard_stop is HardStop.STOP_REQUEST


def test_not_done_with_the_story_is_asked_to_carry_on():
    assert signals_of("I don't want it over, I'm not done with the story yet, carry on.").hard_stop is None
