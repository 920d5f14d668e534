"""The hedge forms the blind set `ad` found missing (read on 6ee8bdc: a Shanghai school debate on
filial piety, a veterinary ethics board, a Reddit AMA on moral luck, a Welsh chapel on forgiveness,
a Weibo livestream on 躺平 and Stoicism, a seminar on placebo deception, a debate on surveillance, a
Catholic-Buddhist dialogue in Taipei), and a third independent review's findings on the `ac`
forms, said afresh next to the own claims that must stay claims. A hedged chunk never interrupts
below aggressiveness 5 (test_offline.py)."""

from __future__ import annotations

import pytest

from tests.unit.chair_interrupt.support import detected


@pytest.mark.parametrize(
    "text",
    [
        # The set's forms.
        "Do utilitarians really want to harvest organs? 当然不是，他们讲的是规则。",
        "说斯多葛就是忍气吞声——塞涅卡那么有钱，你看他躺平了吗？",
        "那个博主的原话我原样念一遍，我一个字都不认。",
        "Let me put the case against my view as strongly as I can before I answer it.",
        "The dean put it to us this morning that placebo is simply lying. I don't buy it.",
        "我同事开玩笑说'Confucius 其实是 influencer'，当然是玩笑。",
        # Folding makes 哦对对对 a plain 哦对, so the mocking yes is read as said.
        "哦对对对，孝就是天天打卡。",
        "噢，對對對，忠就是不問對錯。",
        # A third review: sarcasm markers with punctuation, commas or a named paper.
        "Rawls wanted everyone paid the same, obviously /s.",
        "Kant loved a white lie (/s)",
        "Oh, sure, Hume was a devout churchgoer.",
        "Yeah sure, Aristotle was all for equality.",
        "The Guardian ran a piece claiming Finland paid everyone.",
        "A woman in the back screamed that Singer eats puppies, which is absurd.",
        "Are we supposed to believe that Hobbes was an optimist?",
        "難道儒家真係只識講孝咩？",
        "呢個邏輯真係絕咗。",
    ],
)
def test_hedges(text):
    assert detected(text).hedged is True


@pytest.mark.parametrize(
    "text",
    [
        "对对对，您讲得对，孝首先是陪伴。",
        "哦对，我想起来了，孟子也讲过这一条。",
        "Do we need a surveillance state? Of course not, and here is why.",
        # A third review: reports the speaker takes up, and own claims that looked like hedges.
        "The papers ran a story that turned out to be true, and I think it proves the case.",
        "Someone shouted that Bentham was a reformer, and frankly they were right.",
        "A student shouted out a question and I realised that Mill was right all along.",
        "Somebody yelled at me once for saying that, but I stand by it: Kant was wrong.",
        "Oh yeah sure, that's a fair point, and I agree Kant allows it.",
        "Are we meant to accept that? Yes, because the evidence is clear.",
        "难道人性真的就是恶的吗？我认为就是恶的。",
        "我替我们正方把道理讲足：人性本善。",
        "这逻辑真是绝了，无懈可击。",
    ],
)
def test_own_claims_stay_claims(text):
    assert detected(text).hedged is False


@pytest.mark.parametrize(
    ("text", "hedged"),
    [
        # Turning from someone's words to one's own view: what follows is the speaker's claim.
        ("有网友说'孔子反对一切变法'，这是瞎说。但我自己的看法是：礼必须跟着时代改。", False),
        (
            "Someone posted that Locke invented capitalism, which is silly. My own view is that property is theft.",
            False,
        ),
        (
            "A listener wrote in that Singer eats no plants either - no. But honestly I think meat is murder.",
            False,
        ),
        # Without the turn, the report stays a hedge; and an own view before the report is no turn.
        ("有网友说'孔子反对一切变法'，这是瞎说。", True),
        ("我自己觉得这很难。有网友说'孔子反对一切变法'，这是瞎说。", True),
        # Opening on someone's words in Chinese marks, four characters or more, even letter-spaced.
        ("“养儿就是为了防老”，这话我听了一辈子，我不同意。", True),
        ("“养 儿 就 是 为 了 防 老”，这 话 我 听 了 一 辈 子，我 不 同 意。", True),
        ("“内卷”这个词最早是韦伯在《新教伦理》里提出来的。", False),
    ],
)
def test_an_own_view_after_a_report_and_a_quotation_opening_the_chunk(text, hedged):
    assert detected(text).hedged is hedged


@pytest.mark.parametrize(
    "text",
    [
        "Let me concede the Member's point: without deletion, the safeguard is empty.",
        "Sir, 我 accept 对面 Member 的 point：监督的人也要被监督。",
        "I accept your point about retention, and it changes my vote.",
    ],
)
def test_concessions_in_more_words(text):
    assert detected(text).concession is True
