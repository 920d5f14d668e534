"""The spellings people use to slip past a filter, applied to a labelled text: a judge that folds
well decides the transformed text as it decided the original (docs/judges.md, "Folding").

Each transform is deterministic (a text's own CRC picks any choice). Separators go between the
letters of every word: between CJK characters, and between the letters of a Latin word, whose
words are then set two spaces apart, as a letter-spaced sentence is written.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable
from functools import cache

_CJK = re.compile(r"[\u3400-\u9fff]")
_WORD = re.compile(r"[A-Za-z]+|[\u3400-\u9fff]+")
_HOMOGLYPHS = str.maketrans("aceopxyisjhABCEHIJKMOPSTXY", "асеорхуіѕјһАВСЕНІЈКМОРЅТХҮ")
_EMOJI = ("💕", "😘", "🔥", "✨", "👉", "❤️")
_MARKS = (".", "*", "-", "_", "·", "/", "|", "~")


def _choice(text: str, options: tuple[str, ...]) -> str:
    return options[zlib.crc32(text.encode()) % len(options)]


def _between_letters(text: str, separator: str) -> str:
    if separator == " ":
        # A letter-spaced Latin sentence sets its words further apart than its letters.
        text = re.sub(r"(?<=[A-Za-z]) +(?=[A-Za-z])", "  ", text)
    return _WORD.sub(lambda match: separator.join(match.group()), text)


@cache
def _traditional() -> dict[int, str]:
    from persona_rails.chinese import simplified_table

    table: dict[int, str] = {}
    for traditional, simplified in sorted(simplified_table().items()):
        table.setdefault(ord(simplified), chr(traditional))
    return table


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(char) + 0xFEE0) if "!" <= char <= "~" else char for char in text)


TRANSFORMS: dict[str, Callable[[str], str]] = {
    "spaces": lambda text: _between_letters(text, " "),
    "punctuation": lambda text: _between_letters(text, _choice(text, _MARKS)),
    "emoji": lambda text: _between_letters(text, _choice(text, _EMOJI)),
    "zwj": lambda text: _between_letters(text, _choice(text, ("\u200d", "\u200c"))),
    "fullwidth": _fullwidth,
    "homoglyphs": lambda text: text.translate(_HOMOGLYPHS),
    "traditional": lambda text: text.translate(_traditional()),
}


def applies(name: str, text: str) -> bool:
    """Whether a transform changes anything in `text` (Traditional needs Chinese, homoglyphs Latin)."""
    if name == "traditional":
        return bool(_CJK.search(text)) and TRANSFORMS[name](text) != text
    return TRANSFORMS[name](text) != text
