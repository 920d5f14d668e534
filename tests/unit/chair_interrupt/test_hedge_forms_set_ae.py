"""The hedge forms the blind set `ae` found missing (read on 14e2ca4: a Guangzhou night school on
Mozi, a sports-ethics panel on doping, a TikTok live on AI art, a Dublin pub on neutrality, a
Bilibili 弹幕 discussion on 996, a nursing-home family council, a model UN on refugees, a Hong Kong
phone-in on euthanasia), said afresh next to the own claims that must stay claims. A hedged chunk
never interrupts below aggressiveness 5 (test_offline.py)."""

from __future__ import annotations

import pytest

from tests.unit.chair_interrupt.support import detected


@pytest.mark.parametrize(
    "text",
    [
        "So Stoics just shrug at injustice? That's what my flatmates keep saying, and no, I don't buy it.",
        "先帮反方把 argument 讲到最强：边境是民主的一部分。下面我来回应。",
        "要是 WADA 真的禁了咖啡因，那一半运动员都得停赛。But they didn't，所以这个例子不成立。",
        "如果政府真系听晒我哋讲，今日就唔使开呢个会……但系冇，所以我哋仲要争取。",
        "难道儒家讲孝就等于“父母说什么都对”吗？荀子都不这么看。",
        "係呀係呀，個個護士都想綁住老人家，我信你啦。",
        "对对对，加班就是福报（狗头）",
    ],
)
def test_hedges(text):
    assert detected(text).hedged is True


@pytest.mark.parametrize(
    "text",
    [
        "That's what the data say, and the data are right: doping harms the clean athletes.",
        "要是 WADA 真的禁了咖啡因，一半运动员都得停赛，所以他们不会禁。",
        "难道儒家讲孝就等于服从吗？我认为就是。",
        "我帮我们正方把道理讲透：兼爱是可行的。",
        # A school reduced to a quotation in Cantonese or with 就一句话 is the speaker's claim.
        "存在主義嗰套咪就係 “人生冇意義，想點就點”，冇乜 argument。",
        "自由至上主义那帮人就一句话：“你不爽可以走”。",
    ],
)
def test_own_claims_stay_claims(text):
    assert detected(text).hedged is False


def test_an_own_take_after_a_report_is_the_speakers_claim():
    text = "someone in chat says Kantians hate AI art... lol no. but here's my actual take: effort is all that matters."
    assert detected(text).hedged is False
