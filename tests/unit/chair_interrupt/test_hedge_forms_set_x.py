"""The hedge forms the blind set `x` found missing (read on 66cc5e1: a Model UN committee, a
citizens' assembly on end-of-life care, a Chinese debate show with mentors, a veterinary ethics
seminar, philosophy for children, a workplace AI-policy call, an Oxford-style union, a Guangzhou
teahouse), said afresh, and the own claims beside them that must stay claims. A hedged chunk
never interrupts below aggressiveness 5 (test_offline.py)."""

from __future__ import annotations

import pytest

from tests.unit.chair_interrupt.support import detected


@pytest.mark.parametrize(
    "text",
    [
        # What a pupil or a colleague means, quoted back; what someone posted, read out.
        "小明的意思是：'只要不被抓到，抄作业就不算错。'我理解得对吗，小明？",
        "我读一下小李在群里写的：'动物没有感受，所以怎么用都行。'这个说法有问题。",
        # A leaflet on the table, an article forwarded: reported, then put right.
        "One of the posters in the lobby says Kant wrote Utilitarianism. He didn't; Mill did.",
        "My brother forwarded me an article claiming Rawls was a utilitarian. That's backwards.",
        # A rhetorical question answered at once; nobody here has said it.
        "Is anyone seriously proposing that vets should lie to every owner? Of course not; it's a straw man.",
        "Nobody in this room has said that animals have no moral status.",
        # An opponent's case put at its strongest.
        "Allow me to restate the union's argument in its strongest form: automation without consent is theft.",
        "我先帮反方把道理说圆：如果安乐死能减少痛苦，那禁止它就是残忍。",
        "这是对方最有力的一点，我等一下回应。",
        # A counterfactual with the fact set straight in an aside.
        "如果这个法案已经通过了，当然目前还没有，那我们就该讨论怎么执行。",
        "If assisted dying were legal here — of course it isn't — we'd be talking about safeguards.",
        # Someone says, in Cantonese.
        "有人话功利主义即系冇人性，但呢个讲法太夸张。",
    ],
)
def test_the_sets_forms_are_hedges(text):
    assert detected(text).hedged is True


@pytest.mark.parametrize(
    "text",
    [
        "One of the posters I designed makes the point that Kant wrote Utilitarianism.",
        "If the law passes, of course we will need safeguards for every patient.",
        "I forwarded the committee my own view: Rawls was a utilitarian.",
        "如果法案通过了，当然没有问题，我们照做就是。",
        "呢度要有人话事先得，功利主义根本冇道理。",
    ],
)
def test_own_claims_beside_them_stay_claims(text):
    assert detected(text).hedged is False


def test_a_thinkers_words_quoted_as_their_meaning_stay_a_claim():
    # Only what someone here means, quoted back and checked, is reported speech.
    assert detected("康德的意思是：'为了救朋友可以撒谎'，这就是他的立场。").hedged is False
