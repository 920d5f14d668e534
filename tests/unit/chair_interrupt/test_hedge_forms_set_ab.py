"""The hedge forms the blind set `ab` found missing (read on f8b83e8: a Hong Kong council panel
on euthanasia, a nurses' bioethics seminar in Singapore, an effective-altruism podcast, a school
board on phones and AI homework, a Mumbai college debate, a Douban reading group on Confucius and
Mencius, a hospital board on organ allocation, a pub philosophy night), and a second independent
review's findings on the quotation rule (engine/quotes.py) and the previous forms, said afresh
next to the own claims that must stay claims. A hedged chunk never interrupts below
aggressiveness 5 (test_offline.py)."""

from __future__ import annotations

import pytest

from tests.unit.chair_interrupt.support import detected


@pytest.mark.parametrize(
    "text",
    [
        # The set's forms.
        "有位街坊寫信嚟，佢話“香港早就批准咗安樂死”。我要澄清，冇呢回事。",
        "係咪支持器官捐贈嘅人就唔尊重遺體？我唔覺得係咁。",
        "If hospitals couldn't use living donors, I'd argue the other way. But they can, and they do.",
        "我先替孟子把话说到最强：人皆有不忍人之心。下一轮我再说它哪里不够。",
        "按照刚才 Dr Lim 的 framing，功利主义者都是冷血会计。我不觉得这 fair。",
        "Every year somebody always stands up and says Confucius wrote the Tao Te Ching.",
        # Quotations whose source or mockery comes after them, or that the speaker takes back.
        'Contractualism is basically "might makes right", says my neighbour.',
        "Virtue ethics is just 'be a saint' - the host's phrase, not mine.",
        "契约论讲白了就是「强者说了算」，这是对方的版本。",
        "In my opponent's words, pragmatism is just 'whatever pays'.",
        "义务论说白了就是「一切按规矩来」，笑死。",
        "My 'ban the phones' line was a mistake, and I withdraw it.",
        "我之前说的「一律禁止」其实是错的，我收回。",
        # A denial after a comma or a dash.
        "They claim Rawls wanted equal pay for all, which is nonsense.",
        # Disagreeing with a way of putting it, disliking a joke.
        "我不赞成这种讲法，德性伦理不只讲品格。",
    ],
)
def test_hedges(text):
    assert detected(text).hedged is True


@pytest.mark.parametrize(
    "text",
    [
        "我一直讲嘅「知情同意」，今日都系底线。",
        "My whole 'consent first' argument stands.",
        "Virtue ethics is basically 'be a saint'. It has nothing to say about triage.",
        "按照康德的逻辑，人永远是目的。",
        "我说过这种话，我现在还坚持。",
    ],
)
def test_own_claims_stay_claims(text):
    assert detected(text).hedged is False
