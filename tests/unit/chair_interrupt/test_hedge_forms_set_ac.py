"""The hedge forms the blind set `ac` found missing (read on 4673fe2: a Beijing seminar on Daoism
and Legalism, a hospice ethics committee, a student Discord on free will, a Glasgow union hall on
basic income, a Zhihu thread on 内卷, a radio phone-in on animal rights, a law-school moot on civil
disobedience, a Nairobi panel on ubuntu), said afresh next to the own claims that must stay claims.
A hedged chunk never interrupts below aggressiveness 5 (test_offline.py)."""

from __future__ import annotations

import pytest

from tests.unit.chair_interrupt.support import detected


@pytest.mark.parametrize(
    "text",
    [
        # Sarcasm marked as such: "oh yeah sure", and the forum's "/s".
        "oh yeah sure, Kant was totally fine with lying to the murderer",
        "Mill wanted a nanny state, obviously /s",
        # Someone else's words: shouted from the floor, printed in a paper.
        "A heckler yelled earlier that Rawls opposed any welfare state. He didn't.",
        "Somebody at the back shouted just now that Paine invented the idea, which is wrong.",
        "The papers ran a story that Kenya gave everyone a basic income and dropped it.",
        # A rhetorical question that denies: "are we seriously meant to accept", 难道…真的就是…吗.
        "Are we really supposed to believe that Thoreau never paid any tax at all?",
        "难道儒家真的就是“三纲五常、愚忠愚孝”吗？孔子可没这么讲。",
        # Chinese internet sarcasm, found when the retrained model read set `x` again.
        "哦对对对，仁就是谁都不得罪——这逻辑真是绝了。",
        # The other side's case made as strong as one can, before answering it.
        "我先替墨家这边把道理讲足：兼爱是可以做到的。下面我说说它的问题。",
    ],
)
def test_hedges(text):
    assert detected(text).hedged is True


@pytest.mark.parametrize(
    "text",
    [
        "Sure, Kant was fine with lying to the murderer, and that is my reading too.",
        "The papers are wrong about Rawls, full stop: he defended a welfare state.",
        "We are meant to accept the verdict of a fair procedure; that is the whole point.",
        "儒家真的就是讲秩序的，这一点我不否认。",
        "法家的道理我讲足了：赏罚分明才能治国。",
        "对对对，您说得对，仁首先是爱人。",
    ],
)
def test_own_claims_stay_claims(text):
    assert detected(text).hedged is False
