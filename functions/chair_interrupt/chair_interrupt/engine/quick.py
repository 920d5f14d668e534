"""Quick heuristics (spec: quickInterruptCheck): the first pattern that matches names the likely
reason. Run on every chunk before anything else; a chunk with no trigger usually needs no LLM.

The chunk is prepared once (typographic apostrophes as ASCII, lowercase, runs of whitespace as one
space) and searched for the patterns' required literals, plain substring searches in C; only a
pattern with a literal present runs its regular expression, in the spec's order. Chinese literals
are only looked for in a chunk that is not pure ASCII.
"""

from __future__ import annotations

from chair_interrupt.engine.config import APOSTROPHE_MARKS, ChairConfig
from chair_interrupt.engine.model import QuickCheck

NO_TRIGGER = QuickCheck(potential_trigger=False)
_UNUSUAL_SPACE = ("\n", "\t", "\r", "  ", "\xa0", "\u3000")


def prepare(content: str) -> str:
    text = content
    ascii_only = text.isascii()
    if not ascii_only:
        for mark in APOSTROPHE_MARKS:
            if mark in text:
                text = text.replace(mark, "'")
    text = text.lower()
    if any(space in text for space in _UNUSUAL_SPACE):
        text = " ".join(text.split())
    return text


def quick_check(config: ChairConfig, content: str) -> QuickCheck:
    text = prepare(content)
    present = {literal for literal in config.ascii_literals if literal in text}
    if not text.isascii():
        present.update(literal for literal in config.other_literals if literal in text)
    if not present:
        return NO_TRIGGER
    for literals, pattern, reason in config.ordered:
        if present.isdisjoint(literals):
            continue
        match = pattern.search(text)
        if match is not None:
            # Preparing keeps positions unless it collapsed whitespace (or lowercased an İ):
            # then the trigger is the whole chunk.
            span = match.span() if len(text) == len(content) else (0, len(content))
            return QuickCheck(True, reason, span)
    return NO_TRIGGER
