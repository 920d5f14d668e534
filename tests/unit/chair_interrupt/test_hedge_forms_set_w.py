"""The hedge forms the blind set `w` found missing (read on f1fec6e: a Malaysian school model
parliament, a Shanghai radio phone-in, a hospital board on ventilators, a Quaker-style meeting, a
short-video live debate, a prison debate programme, a town hall on a dam, a Hong Kong moot),
said afresh, and the own claims beside them that must stay claims. A hedged chunk never
interrupts below aggressiveness 5 (test_offline.py)."""

from __future__ import annotations

import pytest

from tests.unit.chair_interrupt.support import detected


@pytest.mark.parametrize(
    "text",
    [
        "The appellant's skeleton argument says Hart wrote The Concept of Law in 1971. It was 1961.",
        "The minister would have us believe that Kantians never tell a white lie. That is his cartoon.",
        "Are you saying that a rule-follower must let the ship sink? I doubt anyone here thinks so.",
        "One of the handouts going round says Bentham wrote On Liberty. Please correct it: that's Mill.",
        "难道说，反对的人都是收了钱的？我不这么看。",
        "你的意思是不是'功利主义就是少数服从多数'？当然不是，我不会这样理解。",
        "对方的书面陈词说密尔写了《利维坦》，这不对，是霍布斯。",
        "你讲功利主义就是算钱？哎哟，那边沁写这么多书干嘛。",
        "我念一段群里的消息：'义务论不许医生撒谎，哪怕救命'。谁写的不知道。",
        "有人说诺齐克是功利主义者，我不同意，他明明反对这个。",
    ],
)
def test_the_sets_forms_are_hedges(text):
    assert detected(text).hedged is True


@pytest.mark.parametrize(
    "text",
    [
        "Our skeleton argument is simple: Mill was the one who argued lying is always wrong.",
        "Are you ready? Mill was the one who argued lying is always wrong.",
        "One of the best handouts I know explains that Mill was the one who argued lying is always wrong.",
        "是不是每个人都该捐器官？我认为是的，密尔主张撒谎永远不对。",
    ],
)
def test_own_claims_beside_them_stay_claims(text):
    assert detected(text).hedged is False
