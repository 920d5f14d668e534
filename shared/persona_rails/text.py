"""Bounded user text: what every function accepts as words typed by a person.

`user_text(min, max)` is a pydantic type that:
- refuses control characters (Postgres text cannot hold NUL, and none belongs in a sentence) and
  lone surrogates (valid JSON, invalid Unicode: they cannot even be stored);
- drops invisible format characters that typed text does not need (zero-width spaces, byte-order
  marks, bidirectional embeddings, overrides and isolates, which can make stored text display as
  something else, and tag characters), keeping the joiners and direction marks that Persian,
  Indic scripts, emoji and mixed-direction text rely on;
- normalizes to NFC (so "é" typed two ways is one string and counts one character) and strips
  surrounding whitespace;
- then checks the length in characters, and that something visible is left.
"""

from __future__ import annotations

import unicodedata
from functools import partial
from typing import Annotated, Any

from pydantic import AfterValidator, StringConstraints, WithJsonSchema

ALLOWED_CONTROLS = frozenset("\n\t")


def printable(value: str) -> str:
    if any(
        (unicodedata.category(char) == "Cc" and char not in ALLOWED_CONTROLS) or 0xD800 <= ord(char) <= 0xDFFF
        for char in value
    ):
        raise ValueError("control characters and lone surrogates are not allowed")
    return value


# ZWNJ and ZWJ (Persian, Indic scripts, emoji sequences), LRM, RLM and ALM (mixed-direction text).
KEPT_FORMAT_CHARACTERS = frozenset("\u200c\u200d\u200e\u200f\u061c")


def _without_invisible_formatting(value: str) -> str:
    return "".join(
        char for char in value if char in KEPT_FORMAT_CHARACTERS or unicodedata.category(char) != "Cf"
    )


def _normalized(value: str) -> str:
    return unicodedata.normalize("NFC", _without_invisible_formatting(printable(value))).strip()


def _visible(char: str) -> bool:
    # Letters, numbers, punctuation and symbols (emoji included); not marks, spaces or formatting.
    return unicodedata.category(char)[0] in "LNPS"


def _bounded(min_length: int, max_length: int, value: str) -> str:
    text = _normalized(value)
    if not min_length <= len(text) <= max_length:
        raise ValueError(f"must be {min_length} to {max_length} characters (got {len(text)})")
    if text and not any(_visible(char) for char in text):
        raise ValueError("must contain visible characters")
    return text


def user_text(min_length: int, max_length: int) -> Any:
    """A pydantic type for text a person typed, `min_length`..`max_length` characters after NFC
    and stripping (one validator, so the order of the steps is this one and no other)."""
    documented = WithJsonSchema(
        {
            "type": "string",
            "minLength": min_length,
            "maxLength": max_length,
            "description": f"{min_length} to {max_length} characters after NFC normalization and trimming; "
            "invisible formatting characters do not count",
        }
    )
    return Annotated[str, AfterValidator(partial(_bounded, min_length, max_length)), documented]


def identifier(max_length: int) -> Any:
    """A short printable identifier a client sends (a version, a key): ASCII letters, digits and
    `. _ : + -`, starting with a letter or digit. Nothing else fits in a log line or a column."""
    return Annotated[
        str,
        StringConstraints(min_length=1, max_length=max_length, pattern=r"^[A-Za-z0-9][A-Za-z0-9._:+-]*$"),
    ]


# A header value a client chooses (an Idempotency-Key): visible ASCII, no spaces.
VISIBLE_ASCII = r"^[!-~]+$"


# A name or identifier the client sends (an app's display name, a key): printable and NFC; the
# field itself bounds its length.
PrintableText = Annotated[str, AfterValidator(_normalized)]
