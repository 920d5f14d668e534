"""What the interview reads in the forms the blind set `au` found missing (2026-11-30, read on
6ee8bdc: a Guangzhou midwife, a narrator after a stroke, a Nigerian nurse in Manchester, a Shanxi
miner, a husband in the next room, autocorrect, a Hong Kong factory strike, test results awaited,
an Irish widow, a grandchild asleep upstairs, a houseboat), and a third independent review's
findings on the `at` forms, each said afresh next to the ordinary memoir sentences each form must
leave alone. The sets and their figures: docs/judges.md, "Interview"."""

from __future__ import annotations

import pytest

from interview_turn.engine.model import HardStop
from tests.unit.interview_turn.support import PAUSE, lexicon_reading

ACUTE = HardStop.ACUTE_DISTRESS
SELF_HARM = HardStop.SELF_HARM
STOP = HardStop.STOP_REQUEST


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Stepping away a moment: upstairs to the grandchild, to wash one's face, to the stove.
        ("你等等，我上楼看一眼孩子盖好没有，马上下来。", PAUSE),
        ("我去洗个脸，回来再聊。", PAUSE),
        ("哎呀我那个汤，我瞧一眼去，一会儿就回来。", PAUSE),
        ("我去年去了趟北京，一会儿就回来了。", None),
        ("我每天都上去看一眼孙子，马上下来。", None),
        # The rest another day, in Cantonese; the rest when he has gone out.
        ("今日倾够咗，听日你再打过来啦。", PAUSE),
        ("呢段等佢出咗门我再同你倾。", PAUSE),
        ("等他退休了以后，我再跟你说说他的事。", None),
        # "Slow down" before a Chinese word.
        ("Sorry 我跟不上，slow down一下好吗？", PAUSE),
    ],
)
def test_pauses(text, expected):
    assert lexicon_reading(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("老伴走咗，仔女又唔返嚟，活落去都冇意思。", SELF_HARM),
        ("活下去没意思的那几年，我也熬过来了。", None),
        ("有时候我想，瞓着咗唔好醒就最好啦。", SELF_HARM),
        ("晚上睡着了别醒就最好了，我是真这么想。", SELF_HARM),
        ("Some nights on the bridge by the lock I stand there too long. I think of it.", SELF_HARM),
        ("As a boy I sat on the bridge all day fishing, too long for my mother's liking.", None),
        ("那几年穷得真是不想活了，不过后来挺过来了。", None),
        ("I keep thinking if I'm gone nobody would notice for a week. Maybe that's best.", SELF_HARM),
        ("If I'm gone by April, that's better for the tax, the accountant says.", None),
    ],
)
def test_hopelessness(text, expected):
    assert lexicon_reading(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("等一下，锅烧着了，火窜到灶台上面了！", ACUTE),
        ("厨房里好大的烟，我看不见了。", ACUTE),
        ("那年厨房的锅烧着了，我们拿锅盖一盖就灭了。", None),
    ],
)
def test_a_fire_in_the_kitchen_now(text, expected):
    assert lexicon_reading(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Knowing how one would do it: the bare disclosure; not a shop, a kitchen, someone's words.
        ("I can't keep going like this. I know how I'd do it.", SELF_HARM),
        ("Given a free hand with the garden, I know exactly how I'd do it.", None),
        ("My son says I know how I'd do it, that's my trouble, always planning.", None),
        # 活着都是受罪: one's own, or said alone; not an era, a relative, a neighbour, a cow.
        ("自从老头子走了，我一个人活着真是受罪。", SELF_HARM),
        ("活着对我来说就是煎熬。", SELF_HARM),
        ("活住都系受罪。", SELF_HARM),
        ("那个年代在生产队，活着都是受罪。", None),
        ("我表姐瘫了两年，活着就是受罪。", None),
        # A god asked to take one, not held off, joked about or supposed.
        ("老天爷，你早点把我收了吧。", SELF_HARM),
        ("菩萨保佑，千万别把我收了，我孙子还小。", None),
        ("老天爷要是哪天把我收了，猫谁来喂？", None),
        # The railway at night: alone, lately; not a family in an earthquake, not trainspotting.
        ("Last week I walked down to the tracks and stood there for hours.", SELF_HARM),
        ("As lads we went down to the tracks and sat there for hours watching the expresses.", None),
        ("地震那年我们全家去铁路边上躺了一夜。", None),
        # Bleeding now, someone beside the narrator too; not a paper cut or a war story.
        ("My wife's fallen and she's bleeding badly from her head.", ACUTE),
        ("It's bleeding like mad, ha, a paper cut from the post.", None),
        ("In the war a lad said I'm bleeding heavily, and we carried him.", None),
        # Stops and pauses asked for, not things left behind or habits.
        ("We had to leave it there for good, the piano, when we moved.", None),
        ("Let's leave it there for good, please.", STOP),
        ("We've come to the end of what I can tell you about the mill; next, the war.", None),
        ("My sister always said ring me after six.", None),
        # Stifled by a room is a degree; by one's own heart is not.
        ("心里憋得我想死，整夜整夜睡不着。", SELF_HARM),
        ("屋里憋得我想死，赶紧开了窗。", None),
    ],
)
def test_a_third_review_of_the_at_forms(text, expected):
    assert lexicon_reading(text) == expected
