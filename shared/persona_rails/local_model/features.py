"""What a local model reads of a text: hashed character and word n-grams of its folded form.

Chinese has no spaces, so every run of CJK characters gives its characters, bigrams and
trigrams; a Latin word gives itself, its pair with the next word and its character trigrams
(padded, so "sexy" and "sexxy" share " se", "sex"). A few marks say something of tone ("!", "?").
Each n-gram is hashed with CRC-32 (stable across processes and platforms, unlike `hash()`) into
`buckets` slots; a text's features are the distinct slots it fills, each weighing
1/sqrt(count), so a long text does not outvote a short one (and a very short one counts as
SHORT_TEXT_SLOTS, so that two characters do not outvote a sentence either).
"""

from __future__ import annotations

import math
import re
import zlib
from collections.abc import Set as AbstractSet

from persona_rails.folding import fold

FEATURE_SCHEME = "ngram-crc32-2"
# A short text weighs its n-grams as if it had this many: "你好" must not speak as loudly as a
# paragraph through its three n-grams.
SHORT_TEXT_SLOTS = 16
_RUNS = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+|[^\W_]+|[!?]")


def grams(folded: str) -> set[str]:
    """The n-grams of an already folded text (lower-cased here)."""
    found: set[str] = set()
    previous = ""
    # "you're" and "youre" are one word to a model (a spelled-out "y o u ' r e" folds to the latter).
    for run in _RUNS.findall(folded.lower().replace("'", "")):
        if run in "!?":
            found.add("p" + run)
            previous = ""
        elif run[0] >= "\u3040" and not run.isascii():
            found.update(run)
            found.update([run[index : index + 2] for index in range(len(run) - 1)])
            found.update([run[index : index + 3] for index in range(len(run) - 2)])
            previous = ""
        else:
            found.add("w" + run)
            if previous:
                found.add(f"b{previous} {run}")
            padded = f" {run} "
            found.update(["c" + padded[index : index + 3] for index in range(len(padded) - 2)])
            previous = run
    return found


def hashed(found: AbstractSet[str], buckets: int) -> tuple[list[int], float]:
    """The distinct slots the n-grams fill, and the weight each carries."""
    mask = buckets - 1
    crc32 = zlib.crc32
    slots = sorted({crc32(gram) & mask for gram in map(str.encode, found)})
    return slots, (1.0 / math.sqrt(max(len(slots), SHORT_TEXT_SLOTS)) if slots else 0.0)


def text_grams(text: str) -> frozenset[str]:
    """A raw text's n-grams, folded first: what every model that reads the text shares (each
    hashes them into its own slots)."""
    return frozenset(grams(fold(text)))


def text_features(text: str, buckets: int) -> tuple[list[int], float]:
    """A raw text's features: folded, then n-grams, then slots."""
    return hashed(text_grams(text), buckets)
