"""Quick heuristics (spec: quickInterruptCheck): the first pattern that matches names the likely
reason. Run on every chunk before anything else; a chunk with no trigger usually needs no LLM.

The chunk is prepared once (folded, lowercase, runs of whitespace as one space) and searched for
the patterns' required literals, plain substring searches in C; only a pattern with a literal
present runs its regular expression, in the spec's order. Chinese literals are only looked for in
a chunk that is not pure ASCII.
"""

from __future__ import annotations

import re

from chair_interrupt.engine.config import ChairConfig
from chair_interrupt.engine.model import QuickCheck
from persona_rails.folding import fold, fold_with_origin

NO_TRIGGER = QuickCheck(potential_trigger=False)


# In an ASCII chunk, plain substring searches are cheaper than any regular expression.
_ASCII_UNUSUAL = ("\n", "\t", "\r", "  ", "\x0b", "\x0c")


def _collapses(text: str) -> bool:
    """Whether a folded chunk holds a run of spaces or whitespace other than a space (a line
    break, a tab: not printable); folding has made every other space a plain one (NFKC). Plain
    substring tests and `isprintable`, which cost less than any regular expression."""
    if text.isascii():
        return any(space in text for space in _ASCII_UNUSUAL)
    return "  " in text or not text.isprintable()


def prepare(content: str) -> str:
    """The chunk as the patterns read it: folded (persona_rails.folding: full-width Latin such as
    a Chinese keyboard's Ｔｈｅｙ　ｊｕｓｔ as ASCII, typographic apostrophes, look-alike letters,
    words spelled out or broken up by marks), lowercase, any run of unusual whitespace as one
    space."""
    text = fold(content).lower()
    if _collapses(text):
        text = " ".join(text.split())
    return text


def _span(content: str, text: str, match: re.Match[str]) -> tuple[int, int]:
    """The trigger's span in the original chunk: where folding kept every character's place
    (full-width letters and commas, apostrophes: one character for one), the match's own."""
    if len(text) == len(content):
        return match.span()
    folded = fold_with_origin(content)
    if folded.text.lower() == text and len(text) == len(folded.text):
        return folded.original_span(*match.span())
    # Whitespace had to be collapsed (or lowercasing changed a length): the trigger is the chunk.
    return (0, len(content))


def literals_present(config: ChairConfig, text: str) -> set[str]:
    """The patterns' required literals in a prepared chunk (the gate)."""
    if text.isascii():
        return {
            literal
            for key, members in config.ascii_groups
            if key in text
            for literal in members
            if literal in text
        }
    # An ASCII literal in a Chinese chunk is also in the chunk's ASCII characters alone: a few
    # characters to search instead of hundreds (a literal that only the gap left by a Chinese
    # character forms is a false lead, which the pattern itself then rejects).
    ascii_part = text.encode("ascii", "ignore").decode("ascii")
    present = {literal for literal in config.ascii_literals if literal in ascii_part}
    present.update(literal for literal in config.other_literals if literal in text)
    return present


def quick_check(config: ChairConfig, content: str) -> QuickCheck:
    text = prepare(content)
    present = literals_present(config, text)
    if not present:
        return NO_TRIGGER
    for literals, pattern, reason in config.ordered:
        if present.isdisjoint(literals):
            continue
        match = pattern.search(text)
        if match is not None:
            return QuickCheck(True, reason, _span(content, text, match))
    return NO_TRIGGER
