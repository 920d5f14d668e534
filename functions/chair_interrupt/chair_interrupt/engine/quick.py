"""Quick heuristics (spec: quickInterruptCheck): the first pattern that matches names the likely
reason. Run on every chunk before anything else; a chunk with no trigger usually needs no LLM.

The chunk is prepared once (typographic apostrophes as ASCII, lowercase, runs of whitespace as one
space) and searched for the patterns' required literals, plain substring searches in C; only a
pattern with a literal present runs its regular expression, in the spec's order. Chinese literals
are only looked for in a chunk that is not pure ASCII.
"""

from __future__ import annotations

import re

from chair_interrupt.engine.config import APOSTROPHE_MARKS, ChairConfig
from chair_interrupt.engine.model import QuickCheck

NO_TRIGGER = QuickCheck(potential_trigger=False)
# Full-width letters and spaces map one to one onto ASCII (length kept).
_TO_HALFWIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}
# What needs the slow path in a non-ASCII chunk: full-width Latin, or any whitespace but a single
# space (one pass of one character class finds both).
_UNUSUAL = re.compile(
    "[\uff21-\uff3a\uff41-\uff5a\u3000\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\n\t\r\x0b\x0c]|  "
)
# In an ASCII chunk, plain substring searches are cheaper than any regular expression.
_ASCII_UNUSUAL = ("\n", "\t", "\r", "  ", "\x0b", "\x0c")


def prepare(content: str) -> str:
    """Lowercase, with typographic apostrophes and full-width Latin (a Chinese keyboard's
    Ｔｈｅｙ　ｊｕｓｔ) as ASCII, and any run of unusual whitespace as one space. Positions are
    kept unless whitespace had to be collapsed."""
    text = content
    if text.isascii():
        unusual = any(space in text for space in _ASCII_UNUSUAL)
    else:
        unusual = _UNUSUAL.search(text) is not None
        if unusual:
            text = text.translate(_TO_HALFWIDTH)
        for mark in APOSTROPHE_MARKS:
            if mark in text:
                text = text.replace(mark, "'")
    text = text.lower()
    if unusual:
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
