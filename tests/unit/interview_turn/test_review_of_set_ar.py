"""A second independent review, of the forms the blind set `ar` brought and of the first review's
narrowing (2026-11-29, 6d14fe5..f8b83e8): real emergencies and requests the narrowing had lost,
and plain speech the new forms read, each said afresh."""

from __future__ import annotations

import pytest

from interview_turn.engine.model import HardStop
from tests.unit.interview_turn.support import PAUSE, lexicon_reading

ACUTE = HardStop.ACUTE_DISTRESS
SELF_HARM = HardStop.SELF_HARM


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Lost by the narrowing, read again.
        ("There's smoke everywhere, I can smell it, the flat next door's alight!", ACUTE),
        ("他吃饭噎住了，快叫人啊", ACUTE),
        ("打麻将打到一半老李倒下了，快叫人！", ACUTE),
        ("刚吃完饭以后我右手突然没劲了", ACUTE),
        ("说真的，反正我也没必要留着了，孩子们都大了。", SELF_HARM),
        ("你说话的速度慢点，我跟不上。", PAUSE),
        ("我半边脸突然麻了，冷汗直冒。", ACUTE),
        ("我好惊，跌咗起唔到身。", ACUTE),
        ("One moment, I've got to let the nurse in.", PAUSE),
        # Plain speech the new forms had read.
        ("Let me slip off my coat first.", None),
        ("Let me slip away from the table for the speeches, I thought.", None),
        ("活着图个啥？图个孙子们平平安安呗。", None),
        ("隔壁老王天天念叨活着有啥奔头，可他比谁都能吃。", None),
        ("我妈总是问这是哪儿，我要回家，我们就哄她。", None),
        ("My mother kept asking where am I, let me out, every evening at six.", None),
        ("I'm tired of waking up at four for the milking.", None),
        ("My aunt always said I'm tired of living, and lived to ninety-eight.", None),
        ("He said, let's pause, and we never did.", None),
    ],
)
def test_the_reviews_sentences(text, expected):
    assert lexicon_reading(text) == expected
