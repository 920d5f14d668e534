"""The benchmark's targets, settings and its seeded corpus of 50-character Chinese texts (also
read by bench.judges and, through `instructions.py`, by the instruction counts)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from persona_rails.moderation.lexicon import Lexicon


SEED = 20261123
TEXT_CHARS = 50

RULE_TARGET_PER_SECOND = 20_000
P50_TARGET_MS = 10.0
P99_TARGET_MS = 30.0
# Sub-linear: p50 ~ rows^k with k < 1 between the smallest and the largest size (an exact scan of
# the filtered rows grows at least linearly), with the HNSW index in the plan.
GROWTH_EXPONENT_TARGET = 1.0

# Everyday chat with no lexicon word in it; the corpus cuts windows out of a shuffled stream.
NEUTRAL_PHRASES = (
    "今天天气不错，我们下午去公园走走吧。",
    "周末打算整理一下房间，顺便把书架收拾干净。",
    "晚饭做了番茄炒蛋和紫菜汤，味道还可以。",
    "明天上午九点要开会，记得提前把资料准备好。",
    "最近在学做咖啡拉花，图案还不太稳定。",
    "这本小说的结局出乎意料，值得再读一遍。",
    "地铁今天特别挤，差点没赶上换乘。",
    "楼下新开了一家面包店，早上排了很长的队。",
    "我把明天的待办事项列好了，一共五件。",
    "下雨了，出门的时候别忘了带伞。",
    "这个周末可以去博物馆看看新的展览。",
    "电脑有点卡，可能需要清理一下磁盘。",
    "刚才看了一部纪录片，讲的是海洋里的生物。",
    "晚上想吃点清淡的，煮个青菜粥就好。",
    "你说的那家火锅店我查了，评分挺高的。",
    "今天跑步跑了五公里，感觉比上周轻松。",
    "植物的叶子有点发黄，大概是浇水太多了。",
    "快递显示明天送到，应该赶得上周末用。",
    "会议改到下午三点了，地点还是三楼。",
    "这道数学题换个思路就简单多了。",
    "我在看一部老电影，画面很有年代感。",
    "假期还没想好去哪里，可能就在家休息。",
    "今天的晚霞特别好看，颜色一层一层的。",
    "这首歌的旋律很轻快，适合早上听。",
    "周一的报告我已经写了一半，明天能完成。",
    "猫今天一直趴在窗台上晒太阳。",
    "图书馆的自习室早上八点就开门了。",
    "新买的耳机音质不错，降噪效果也好。",
    "你喜欢的那个节目今晚八点更新。",
    "路口在修路，回家要绕一点远。",
    "我正在学习做饭，从简单的炒菜开始。",
    "今天喝了三杯水，比昨天多一点。",
)
# How many lexicon words a text carries: about a third carry none, a few carry four.
WORD_COUNT_WEIGHTS = {0: 0.3, 1: 0.3, 2: 0.2, 3: 0.12, 4: 0.08}


def lexicon() -> Lexicon:
    from persona_rails.moderation.lexicon import lexicon_artifact

    return lexicon_artifact().value


def chinese_corpus(count: int, seed: int, chars: int = TEXT_CHARS) -> list[str]:
    """`count` texts of exactly `chars` characters: a window of neutral chat with 0-4 lexicon
    words inserted at random places. Deterministic for a seed."""
    rng = random.Random(seed)
    tiers = lexicon().keywords
    words = sorted(
        {word for tier in (tiers.high, tiers.medium, tiers.low) for word in tier if not word.isascii()}
    )
    counts, weights = zip(*WORD_COUNT_WEIGHTS.items(), strict=True)
    texts = []
    for _ in range(count):
        chosen = [rng.choice(words) for _ in range(rng.choices(counts, weights)[0])]
        filler_chars = chars - sum(len(word) for word in chosen)
        stream = ""
        while len(stream) < filler_chars + len(max(NEUTRAL_PHRASES, key=len)):
            stream += rng.choice(NEUTRAL_PHRASES)
        start = rng.randrange(len(stream) - filler_chars + 1)
        pieces = list(stream[start : start + filler_chars])
        for word in chosen:
            pieces.insert(rng.randrange(len(pieces) + 1), word)
        text = "".join(pieces)
        assert len(text) == chars, text
        texts.append(text)
    return texts


@dataclass(frozen=True)
class Settings:
    texts: int = 5000  # rule-only: corpus texts, each timed `passes` times
    passes: int = 9
    checks: int = 1000  # warm handler: measured checks after `warmup`, over `users`
    warmup: int = 50
    users: int = 10
    sizes: tuple[int, ...] = (10_000, 200_000)  # retrieval: stored checks, ascending
    probes: int = 200  # lookups per size


QUICK = Settings(texts=2000, passes=5, checks=200, warmup=20, users=5, sizes=(10_000, 50_000), probes=60)
