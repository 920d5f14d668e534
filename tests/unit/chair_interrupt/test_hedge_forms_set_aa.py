"""The hedge forms the blind set `aa` found missing (read on 6d14fe5: an interfaith evening, an
ICU triage committee, a live-streamed Q&A, a union meeting on AI in call centres, a Socratic
café, a public hearing in Taiwan, an admissions panel, a climate citizens' jury), said afresh,
and the own claims beside them that must stay claims. A hedged chunk never interrupts below
aggressiveness 5 (test_offline.py)."""

from __future__ import annotations

import pytest

from tests.unit.chair_interrupt.support import detected


@pytest.mark.parametrize(
    "text",
    [
        # A quotation abutting Chinese characters is still a quotation.
        "经理那句口头禅我都听腻了：'AI 来了，大家都能升职。'说得好听，谁信？",
        # Someone's words from this morning, a question someone asked.
        "A porter told me this morning that Kant ran a hospital. He didn't, of course.",
        "A student asked whether Hume wrote the Critique of Pure Reason. No, that was Kant.",
        # A counterfactual taken back at once, or with 可惜.
        "如果康德真的写过《利维坦》，那就乱套了——当然不是，那是霍布斯写的。",
        "要是孔子真的写过《道德经》，这场讨论就简单了。可惜他没写，那是老子的。",
        # A chunk that opens on a quotation whose closing mark is lost (folding drops one between
        # spelled-out letters: "p o v e r t y." N o.) is still a quotation.
        "\"Rawls wanted everyone paid the same. That's the tweet. It's wrong.",
        # "That kind of talk", someone who petitioned or posted.
        "对对对，义务论者都是机器人——这种话我听得耳朵都起茧了。",
        "有家长留言说，契约论就是强者说了算。我不这么看。",
    ],
)
def test_the_sets_forms_are_hedges(text):
    assert detected(text).hedged is True


@pytest.mark.parametrize(
    "text",
    [
        "I told my students this morning that Kant ran a hospital, and I stand by the point about duty.",
        "如果康德真的这么想，当然没有问题。",
        "这样的话，我们就按人数来分配呼吸机。",
        "有时候我觉得功利主义算得太细了。",
    ],
)
def test_own_claims_beside_them_stay_claims(text):
    assert detected(text).hedged is False
