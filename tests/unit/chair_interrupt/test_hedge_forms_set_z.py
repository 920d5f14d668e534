"""The hedge forms the blind set `z` found missing (read on ed04ac8: a medical journal club, a Hong
Kong liberal-studies class, a farmers' cooperative on pesticides, a talk with audience questions,
a family WhatsApp group read aloud, a Confucian studies seminar, a legal aid clinic, a Welsh
student parliament), said afresh, and the own claims beside them that must stay claims. A hedged
chunk never interrupts below aggressiveness 5 (test_offline.py)."""

from __future__ import annotations

import pytest

from tests.unit.chair_interrupt.support import detected


@pytest.mark.parametrize(
    "text",
    [
        "Someone left a note on the fridge saying Aristotle invented the trolley problem. He didn't.",
        "According to a leaflet from the pesticide firm, Bentham wrote the Groundwork. Nonsense.",
        "Let me put the honourable gentleman's case as strongly as I can: tradition carries wisdom.",
        "我想先讲埋佢哋最强嘅论点：唔管手机，细路会瞓唔够。",
        "对对对，德性论都是圣人，这种梗大家笑笑就算了。",
    ],
)
def test_the_sets_forms_are_hedges(text):
    assert detected(text).hedged is True


@pytest.mark.parametrize(
    "text",
    [
        "I left a note on the agenda: Aristotle invented the trolley problem.",
        "According to the evidence, Bentham wrote the Groundwork.",
        # 冇所谓 / 无所谓 (it doesn't matter) is no "so-called".
        "效益主义嗰班人讲到尾，犧牲咗边个都冇所谓。",
        "功利主义的人觉得牺牲谁都无所谓。",
    ],
)
def test_own_claims_beside_them_stay_claims(text):
    assert detected(text).hedged is False
