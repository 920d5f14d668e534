"""Quick heuristics (spec: quickInterruptCheck): the first pattern that matches names the likely
reason. Run on every chunk before anything else; a chunk with no trigger usually needs no LLM.

The chunk is lowercased once and searched for the patterns' required literals (plain substring
searches, in C); only patterns with a literal present run their regular expression, in order.
"""

from __future__ import annotations

from chair_interrupt.engine.config import APOSTROPHES, ChairConfig
from chair_interrupt.engine.model import QuickCheck

NO_TRIGGER = QuickCheck(potential_trigger=False)


def quick_check(config: ChairConfig, content: str) -> QuickCheck:
    text = content.translate(APOSTROPHES).lower()
    present = {literal for literal in config.literals if literal in text}
    if not present:
        return NO_TRIGGER
    for literals, pattern, reason in config.ordered:
        if present.isdisjoint(literals):
            continue
        match = pattern.search(text)
        if match is not None:
            # Lowercasing keeps positions except for a few letters (İ): then point at the whole chunk.
            span = match.span() if len(text) == len(content) else (0, len(content))
            return QuickCheck(True, reason, span)
    return NO_TRIGGER
