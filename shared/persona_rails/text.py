"""Bounded user text: what every function accepts as words typed by a person.

`user_text(min, max)` is a pydantic type that normalizes to NFC (so "é" typed two ways is one
string and counts one character), strips surrounding whitespace, refuses control characters
(Postgres text cannot hold NUL, and none belongs in a sentence) and lone surrogates (valid JSON,
invalid Unicode: they cannot even be stored), then checks the length in characters.
"""

from __future__ import annotations

import unicodedata
from functools import partial
from typing import Annotated, Any

from pydantic import AfterValidator

ALLOWED_CONTROLS = frozenset("\n\t")


def printable(value: str) -> str:
    if any(
        (unicodedata.category(char) == "Cc" and char not in ALLOWED_CONTROLS) or 0xD800 <= ord(char) <= 0xDFFF
        for char in value
    ):
        raise ValueError("control characters and lone surrogates are not allowed")
    return value


def _normalized(value: str) -> str:
    return unicodedata.normalize("NFC", printable(value)).strip()


def _bounded(min_length: int, max_length: int, value: str) -> str:
    text = _normalized(value)
    if not min_length <= len(text) <= max_length:
        raise ValueError(f"must be {min_length} to {max_length} characters (got {len(text)})")
    return text


def user_text(min_length: int, max_length: int) -> Any:
    """A pydantic type for text a person typed, `min_length`..`max_length` characters after NFC
    and stripping (one validator, so the order of the steps is this one and no other)."""
    return Annotated[str, AfterValidator(partial(_bounded, min_length, max_length))]


# A name or identifier the client sends (an app's display name, a key): printable and NFC; the
# field itself bounds its length.
PrintableText = Annotated[str, AfterValidator(_normalized)]
