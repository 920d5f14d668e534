"""An independent review of the hedge forms the blind set `z` brought and of the previous review's
fixes (2026-11-29, ed04ac8..6d14fe5): own claims a form read as hedges, and hedges of the same
kinds it missed, each said afresh. A hedged chunk never interrupts below aggressiveness 5
(test_offline.py)."""

from __future__ import annotations

import pytest

from tests.unit.chair_interrupt.support import detected


@pytest.mark.parametrize(
    "text",
    [
        # "Which is nonsense." on its own (the shared word boundary kept it from ever matching).
        "The landlord says the flats are safe. Which is nonsense.",
        # A counterfactual taken back at once, whatever its verb.
        "If the scheme saved money - and of course it doesn't - we'd all back it.",
        "If we were all born equal, and of course we aren't, contracts would be fair.",
        "If the mayor were candid — which of course he isn't — he'd publish the figures.",
        "如果安乐死真的已经合法了，当然现在并没有，我们也就不用争了。",
        # A real "so-called" after 没 or 冇.
        "根本就没所谓的效率问题，都是借口。",
        "呢度根本冇所谓嘅公平可言。",
        # Others' words, in more Cantonese and Mandarin ways.
        "好多人话加税会赶走投资者，我唔同意。",
        "啲人都话楼价会跌，我睇唔会。",
        "有啲人讲功利主义冇人情味，我唔信。",
        "有人把边沁和密尔混为一谈，其实差得远。",
    ],
)
def test_hedges_the_forms_missed(text):
    assert detected(text).hedged is True


@pytest.mark.parametrize(
    "text",
    [
        "如果你仔细看这份数据，当然并没有任何阴谋。",
        "如果你认真读这份报告，当然并没有证据支持加税。",
        "I left a review saying the clinic saved my life, because it did.",
        "According to the paper I published in March, the error rate fell by half.",
        "有啲人话语权大过其他人，呢个系事实。",
        "有网友把这件事翻出来了，我认为政府必须回应。",
        "我最喜欢这种梗，说明大家还有幽默感。",
        "我赞成这种讲法，房价必须降。",
        "我读一下我写的那条留言：公立医院必须扩招。",
    ],
)
def test_own_claims_stay_claims(text):
    assert detected(text).hedged is False
