"""An independent review of the hedge forms added for the blind sets `x` and `y` (2026-11-29)
found own claims they read as hedged (a way of putting it endorsed, 话 as a noun, the speaker's
own words read out, any if-clause with an aside, "telling everyone" agreed with, today's
argument, the speaker's own slides) and hedges of the same kinds they missed. Each of its
sentences, and the reading it should have."""

from __future__ import annotations

import pytest

from tests.unit.chair_interrupt.support import detected


@pytest.mark.parametrize(
    "text",
    [
        "我同意这种讲法，碳税确实是累退的，最穷的人付得最多。",
        "我那个讲法是对的：核电是最便宜的低碳能源。",
        "我同意這種講法，碳稅確實有效。",
        "会上有人话不多，但我认为碳税确实能减排百分之二十。",
        "别人话音刚落我就说了：碳税有效，数据很清楚。",
        "我读一下我写的结论：核电是最便宜的低碳能源。",
        "If you look at Norway, which they don't mention, the top tax rate is 47 percent.",
        "If prices rise, obviously they don't rise evenly: the poorest households pay most.",
        "If the tax passes, of course it isn't the end of the story, emissions will fall by a fifth.",
        "Doctors have been telling everyone that smoking kills, and they are right.",
        "Let me state today's argument in its strongest form: nuclear is the cheapest low-carbon source.",
        "One of the slides in my own presentation says it plainly: emissions fell 12 percent.",
    ],
)
def test_the_reviews_own_claims_stay_claims(text):
    assert detected(text).hedged is False


@pytest.mark.parametrize(
    "text",
    [
        "如果安乐死已经合法了——当然现在并没有——很多家庭会受益。",
        "If carbon tax were already in place — of course it isn't — prices would be higher.",
        "One of the leaflets on our table says Kant wrote Utilitarianism.",
    ],
)
def test_the_reviews_hedges_are_hedges(text):
    assert detected(text).hedged is True


@pytest.mark.parametrize(
    "text",
    [
        "有啲人話碳稅冇用，我唔同意。",
        "啲人成日话碳税冇用，佢哋错晒。",
        "有網友話碳稅冇用，我唔認同。",
        "My neighbour's been telling everyone that the turbines kill thousands of birds.",
        "She keeps telling everyone that Kant wrote Leviathan. That's simply false.",
        "We were all taught at school that Pluto is a planet. That turned out to be wrong.",
        "Yeah right, and the turbines will stop the wind. Come on, can we get back to the numbers?",
    ],
)
def test_the_hedges_the_review_found_missing(text):
    assert detected(text).hedged is True


def test_telling_everyone_oneself_is_a_claim():
    assert detected("I keep telling everyone that the tax works.").hedged is False
