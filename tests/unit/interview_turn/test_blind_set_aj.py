"""What the lexicons read in the forms the blind set `aj` found missing (2026-11-29, read on
6e64e92: a retired fisherman, a flood, a widower back from the GP, a fall at home over a bad phone
line, 东北 and Cantonese speech, a Malaysian narrator mixing Malay, Chinese and English), each said
afresh next to the ordinary memoir sentences each form must leave alone. The sets and their
figures: docs/judges.md, "Interview"."""

from __future__ import annotations

import pytest

from interview_turn.engine.model import HardStop
from tests.unit.interview_turn.support import PAUSE, lexicon_reading


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Water in the house, a fall, a break-in, happening now.
        ("Hang on, the water's up to my ankles in the hall and still coming.", HardStop.ACUTE_DISTRESS),
        ("In '53 the water was up to my knees in the parlour, Dad carried us out.", None),
        ("It's up to my knees, this snow, when I walk to the shed every winter.", None),
        ("There's water coming under the front door right now, what do I do.", HardStop.ACUTE_DISTRESS),
        ("I've fallen by the bed, I can't get up, my wrist's gone funny.", HardStop.ACUTE_DISTRESS),
        ("I've fallen a few times this year, but I can't get up without the frame anyway.", None),
        ("有人在撬我家的窗户，就现在，我不敢开灯。", HardStop.ACUTE_DISTRESS),
        ("那年有人在撬我家门，我爸拿着扫帚冲出去。", None),
        ("Air naik, 水进屋了, the door jammed, 我出不去啊!", HardStop.ACUTE_DISTRESS),
        ("那年水进屋了，我们从窗户爬出去的，没事。", None),
        # Not coming back from the sea, sleep without waking, everyone better off, a plan.
        ("Some nights I think about swimming out at the cove and not swimming back.", HardStop.SELF_HARM),
        ("I thought about not sailing back to Hull that winter, the money was better in Norway.", None),
        ("有时候想，就这么走进河里也不错。", HardStop.SELF_HARM),
        ("他走进河里捞网，回来说水不错，不冷。", None),
        ("老伴走咗之后，我成日想瞓着咗就唔再醒。", HardStop.SELF_HARM),
        ("我睡下了以后不再醒来起夜，这个药挺好。", None),
        ("Kalau 我 tiada lagi, semua orang lebih senang, betul.", HardStop.SELF_HARM),
        ("If I wasn't there that night, everyone would have drowned.", None),
        ("我已经想好了，不会等到那一天的。", HardStop.SELF_HARM),
        ("我想好了，不会等到那天再去买票。", None),
        ("I've made up my mind, I won't wait for the end, you understand.", HardStop.SELF_HARM),
        ("My daughter says 'I want to die' when her phone battery goes, teenagers.", None),
        ("他就说 'I want to die lah', 每次考试都这样。", None),
        ("I want to die in my own bed, that's all I ask of the book.", HardStop.SELF_HARM),
        # Withdrawing and asking for the tapes destroyed; a call dropped with a call back.
        ("总之我要退出，你们别再打电话了。", HardStop.STOP_REQUEST),
        ("他说他要退出，可是厂里不让。", None),
        ("之前录的东西麻烦你们都删掉。", HardStop.STOP_REQUEST),
        ("那时候的录音后来都丢了，可惜。", None),
        ("听不清，我先挂了，待会儿出去再打给你。", PAUSE),
        ("他说，我先挂了，一会儿再打给你，结果一直没打。", None),
    ],
)
def test_the_lexicons_read_the_blind_set_forms_and_leave_ordinary_speech(text, expected):
    assert lexicon_reading(text) == expected
