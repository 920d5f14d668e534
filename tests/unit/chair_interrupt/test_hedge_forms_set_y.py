"""The hedge forms the blind set `y` found missing (read on c33d417: a bioethics podcast at a
festival, a university debate-team training session, a parish council on a wind farm, a
nursing-home residents' committee, a select committee on organ donation, an esports team on
cheating, a Taiwanese radio call-in, a philosophy olympiad), said afresh, and the own claims
beside them that must stay claims. A hedged chunk never interrupts below aggressiveness 5
(test_offline.py)."""

from __future__ import annotations

import pytest

from tests.unit.chair_interrupt.support import detected


@pytest.mark.parametrize(
    "text",
    [
        # Sarcasm that mocks a claim, then turns to the facts.
        "Oh sure, and the wind farm will curdle the milk too. Come on, can we stick to the noise report?",
        # Someone going round telling everyone; what we were all taught, set straight.
        "The caretaker has been telling everyone that the new rota bans visitors. It doesn't.",
        "At school we were all taught that Pluto was a planet. That was plain wrong, as it turned out.",
        # 這種講法, 那种讲法: a way of putting it, put at arm's length.
        "拜託，這種講法每次聽都很累耶，我們講數據好不好。",
    ],
)
def test_the_sets_forms_are_hedges(text):
    assert detected(text).hedged is True


@pytest.mark.parametrize(
    "text",
    [
        "Oh yes, and one more thing: Mill wrote On Liberty in 1859.",
        "I have been telling everyone that the turbines are quiet, and they are.",
        "We were taught that Kant wrote the Groundwork, and that is right.",
    ],
)
def test_own_claims_beside_them_stay_claims(text):
    assert detected(text).hedged is False
