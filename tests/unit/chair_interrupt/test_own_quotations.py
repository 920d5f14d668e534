"""Quotation marks the speaker's own words stand in (engine/quotes.py): a caricature of a school
put in quotes as what it amounts to, and the speaker's own earlier position, are claims, while a
quotation read out, reported, asked about or mocked stays a hedge. The rule was written on the
sets j-z, where quotes alone hedged 49 warranted chunks and 115 hedged ones; the blind set `aa`
(read on 6d14fe5) then had three chunks of these kinds. Sentences said afresh."""

from __future__ import annotations

import pytest

from tests.unit.chair_interrupt.support import detected


@pytest.mark.parametrize(
    "text",
    [
        "Honestly, contractualism is basically 'whoever shouts loudest writes the rules'. Not a theory.",
        "The pragmatists' whole position boils down to 'if it pays, it's true'.",
        "Care ethics's big idea is just \u201chelp your mates first\u201d, full stop.",
        "存在主义那一派，讲白了就是「想怎么活就怎么活」，没什么好谈的。",
        "功利主义说白了就是 'add up the smiles'，别的都不管。",
        "Once I accept that, my 'families decide' line falls apart.",
        "我承认，我一直强调的「个人选择」在这里站不住了。",
    ],
)
def test_a_quotation_the_speaker_makes_their_own_hedges_nothing(text):
    assert detected(text).hedged is False


@pytest.mark.parametrize(
    "text",
    [
        # Reported, asked about, or mocked: the quotation is not the speaker's claim.
        "My neighbour says contractualism is basically 'whoever shouts loudest writes the rules'. Rubbish.",
        "So is virtue ethics really just 'be polite and hope'? Of course not.",
        "所以功利主义就是「谁多谁有理」吗？当然不是。",
        "A caller told me care ethics is just 'help your mates first'. That's not Held's view at all.",
        "The flyer calls libertarianism 'selfishness with a reading list', which is unfair.",
        # A thinker's own line after his name's 's is his, not a school reduced to it.
        "Utilitarians forget that Bentham's 'can they suffer?' began the animal welfare movement.",
        # A quotation with no school named before it.
        "The motto on the wall is just 'be kind', and nobody reads it.",
    ],
)
def test_other_quotations_stay_hedges(text):
    assert detected(text).hedged is True
