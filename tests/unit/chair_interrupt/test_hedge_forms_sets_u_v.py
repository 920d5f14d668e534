"""The hedge forms the blind sets `u` and `v` found missing, said afresh, and the own claims beside
them that must stay claims. `u` (read on 2c89161): a clinical-ethics consult in Mandarin, a
schools debate final with points of information, a podcast call-in, a mock trial, an "ask me
anything", a seminar of non-native speakers, a Cantonese radio phone-in, a Taipei philosophy café
in Traditional characters. `v` (read on 8fb2ac0): a Chinese university debate with
cross-examination, a court of appeal, a Singapore TV panel, an AI-ethics hackathon's judges, a
medical ethics exam, a temple dharma talk, a forum read by a text-to-speech voice, a session
interpreted live. A hedged chunk never interrupts below aggressiveness 5 (test_offline.py)."""

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
        # The set v: the other side's case at its strongest, in two languages at once.
        "Let me 先 present 反方最 strong 的论点：数据越多，诊断越准。我等下回应。",
        "Let me give the prosecution's case its best shot: the nurse knew, and said nothing.",
        # A common mistake named and put right.
        "A common mistake is to say Kant wrote Utilitarianism; it was Mill.",
        "很常见的错误是把边沁写成《论自由》的作者，其实是密尔。",
        # A counterfactual answered in its next sentence.
        "如果康德真的是功利主义者，那他就不会写《道德形而上学奠基》了。但他其实在1785年就写了。",
        # Someone else's note read out.
        "Opposing counsel's note says Mill wrote the Critique of Pure Reason. It was Kant, my Lord.",
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
        "Let me present my own case first: Mill was the one who argued lying is always wrong.",
        "The most common mistake in triage is waiting too long, and Mill was the one who argued lying is always wrong.",
        "如果你真的想帮病人，就该告诉他实情，但要注意方式。",
        "My notes say Mill was the one who argued lying is always wrong, and I stand by them.",
        # An independent review's own claims read as the u and v forms' hedges.
        "Let me put the case as strongly as I can: the carbon tax works, and here is the data.",
        "Let me present our strongest evidence first: Mill was the one who argued lying is always wrong.",
        "Let me give the strongest reason: Locke published in 1689.",
        "最常见的错误是忘记洗手，这导致了一半的院内感染。",
        "A common error is about 3%, so this result is within noise.",
        "A common mistake is to skip the warm-up, and that is what tore his hamstring.",
        "如果我们真的要减排，就必须征碳税。但是税收必须返还给家庭。",
        "如果你真的想赢，今天就不用再讨论了，我们直接投票。",
        "Your slide says the treaty was signed in 1648, and that is correct.",
        "The WHO's brief states that the vaccine is safe, and I agree with every word.",
        "Does being a vegan mean you cannot eat honey? Come on, everyone knows that it does.",
    ],
)
def test_own_claims_beside_them_stay_claims(text):
    assert detected(text).hedged is False
