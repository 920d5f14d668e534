"""The hedge forms the blind set `u` found missing (read on 2c89161: a clinical-ethics consult in
Mandarin, a schools debate final with points of information, a podcast call-in, a mock trial, an
"ask me anything", a seminar of non-native speakers, a Cantonese radio phone-in, a Taipei
philosophy café in Traditional characters), said afresh, and the own claims beside them that
must stay claims. A hedged chunk never interrupts below aggressiveness 5 (test_offline.py)."""

from __future__ import annotations

import pytest

from tests.unit.chair_interrupt.support import detected


@pytest.mark.parametrize(
    "text",
    [
        # A classmate's or a poster's claim read out, then answered.
        "One classmate wrote in the group chat that Kant wrote Utilitarianism. It is Mill's book.",
        "A poster wrote on the forum that Mill wrote the Critique of Pure Reason. It's Kant's.",
        # Nobody really thinks so (Cantonese and Mandarin), by some people's logic.
        "功利主義者鍾意睇住病人死？冇人真係咁諗啦。",
        "有人说签了字就可以不管了，我想没有人真的这样想。",
        "按有些人的说法，穷人就活该受苦，这当然站不住。",
        # A caricature disowned as the cartoon it is.
        "Sure, and contractualists sign a form before they hug their kids. That's the cartoon, not the view.",
        # The other side's case put as strongly as one can.
        "Let me state their position as fairly as I can: the family knows the patient best. I'll answer it next.",
        "我先替院方把最有力的理由说出来：资源有限，总得有人排在后面。",
        # A rhetorical question put down at once.
        "Does being a Kantian mean you can never lie to save a friend? Of course not, read the later essays.",
        # A counterfactual taken back.
        "如果安乐死在台湾真的已经合法，我们今天就不用讨论了。",
        "要是康德真的主张可以说谎，那他的伦理学就全垮了。当然不是这样。",
        "If Mill really had said lying is always wrong, he'd have contradicted his whole book. Of course he didn't.",
    ],
)
def test_the_sets_forms_are_hedges(text):
    assert detected(text).hedged is True


@pytest.mark.parametrize(
    "text",
    [
        "One classmate was right: Kant wrote the Groundwork in 1785.",
        "没有人比密尔更重视言论自由。",
        "按照规定，病人签字以后才能手术。",
        "That's the cartoon I drew for the school paper, and Mill was the one who argued lying is always wrong.",
        "Let me say it plainly: Mill was the one who argued lying is always wrong.",
        "Does being a Kantian mean you never lie? Yes, and that's exactly the point.",
        "如果法案通过，医生就要承担更多责任。",
        "If the bill passes, Mill's harm principle is what the court will read first.",
    ],
)
def test_own_claims_beside_them_stay_claims(text):
    assert detected(text).hedged is False
