"""Quick heuristics (spec: quickInterruptCheck): the first pattern that matches names the likely
reason. Run on every chunk before anything else; a chunk with no trigger usually needs no LLM."""

from __future__ import annotations

from chair_interrupt.engine.config import APOSTROPHES, ChairConfig
from chair_interrupt.engine.model import QuickCheck

NO_TRIGGER = QuickCheck(potential_trigger=False)


def quick_check(config: ChairConfig, content: str) -> QuickCheck:
    text = content.translate(APOSTROPHES)
    if config.any_trigger.search(text) is None:
        return NO_TRIGGER
    for pattern, reason in config.ordered:
        match = pattern.search(text)
        if match is not None:
            return QuickCheck(True, reason, match.span())
    return NO_TRIGGER
