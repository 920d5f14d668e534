"""Reading utterances: folding for matching, sentences, the opening bigram."""

from __future__ import annotations

import re
from collections.abc import Iterable

from sps_encounter.engine.case import Language

FLAGS = re.IGNORECASE
# ’ ‘ ʼ ＇ ′ are what keyboards and models type for the apostrophe the patterns spell.
APOSTROPHES = {ord(mark): "'" for mark in "\u2019\u2018\u02bc\uff07\u2032"}
_SENTENCE_BREAK = re.compile(r"[.!?。！？…]+")
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")
_CHARACTER = re.compile(r"[^\W_]")


def union(patterns: Iterable[str]) -> re.Pattern[str]:
    """One alternation of many patterns (each was checked to combine cleanly)."""
    return re.compile("|".join(f"(?:{pattern})" for pattern in patterns), FLAGS)


def named_union(named: Iterable[tuple[str, str]]) -> tuple[re.Pattern[str] | None, tuple[str, ...]]:
    """One alternation whose match says which item matched: `names[int(lastgroup[1:])]`."""
    names: list[str] = []
    parts: list[str] = []
    for name, pattern in named:
        parts.append(f"(?P<g{len(names)}>{pattern})")
        names.append(name)
    return (re.compile("|".join(parts), FLAGS) if parts else None), tuple(names)


def sentence_count(text: str) -> int:
    return sum(1 for part in _SENTENCE_BREAK.split(text) if _CHARACTER.search(part))


def opening_tokens(folded: str, language: Language) -> list[str]:
    """The first two words (English) or characters (Chinese) of a folded utterance."""
    if language is Language.ZH:
        return _CHARACTER.findall(folded[:24])[:2]
    return _WORD.findall(folded[:80])[:2]


def opening_bigram(folded: str, language: Language) -> str:
    return ("" if language is Language.ZH else " ").join(opening_tokens(folded, language))


def numbers(text: str) -> list[str]:
    return re.findall(r"\d+(?:\.\d+)?", text)
