"""Text embeddings for retrieval reuse (spec §11): offline by default, OpenAI's when configured.

The offline embedder needs no model download: character n-grams (1 to 3 characters, which
serves Chinese, where a word has no spaces, as well as English) of the folded text
(persona_rails.folding) hashed into 256 signed buckets and normalized to unit length, so cosine
similarity is a dot product. Texts that fold alike embed identically ("做 ❤ 爱" is "做爱");
near-identical ones land close. With `PERSONA_RAILS_EMBEDDING_MODEL` set (and the
LLM key), OpenAI's embeddings API is asked for 256 dimensions instead; any fault falls back to
the offline embedder. Each vector carries its embedder's name, and retrieval compares only
vectors of one embedder.
"""

from __future__ import annotations

import hashlib
import math
import unicodedata
from dataclasses import dataclass

from persona_rails.folding import fold
from persona_rails.observability import count, logger

DIMENSIONS = 256
# v2: the folded text.
OFFLINE_EMBEDDER = f"char-ngram-hash-v2/{DIMENSIONS}"
NGRAM_SIZES = (1, 2, 3)
FALLBACK_METRIC = "EmbeddingFallback"


@dataclass(frozen=True)
class Embedding:
    embedder: str
    vector: tuple[float, ...]

    def as_pgvector(self) -> str:
        return "[" + ",".join(f"{value:.6f}" for value in self.vector) + "]"


def _bucket(gram: str) -> tuple[int, int]:
    digest = hashlib.blake2b(gram.encode(), digest_size=8).digest()
    value = int.from_bytes(digest, "big")
    return value % DIMENSIONS, (1 if value >> 63 else -1)


def ngram_counts(text: str) -> list[int]:
    """The offline vector before normalization: signed n-gram counts per bucket (so the counts
    of a text's pieces add up to the text's, which the moderation benchmark relies on)."""
    normalized = unicodedata.normalize("NFC", text).casefold()
    counts = [0] * DIMENSIONS
    for size in NGRAM_SIZES:
        for start in range(max(0, len(normalized) - size + 1)):
            index, sign = _bucket(normalized[start : start + size])
            counts[index] += sign
    return counts


def offline_embedding(text: str) -> Embedding:
    vector = [float(count) for count in ngram_counts(fold(text))]
    norm = math.sqrt(sum(value * value for value in vector))
    if norm:
        vector = [value / norm for value in vector]
    return Embedding(OFFLINE_EMBEDDER, tuple(vector))


def embed(
    text: str, *, model: str | None, api_key: str | None, base_url: str | None, timeout: float
) -> Embedding:
    """OpenAI's embedding when a model is configured and answers in time, else the offline one."""
    if not (model and api_key):
        return offline_embedding(text)
    from persona_rails.llm.structured import _client

    try:
        reply = _client(api_key, base_url, timeout).embeddings.create(
            model=model, input=text, dimensions=DIMENSIONS
        )
        vector = tuple(float(value) for value in reply.data[0].embedding)
        if len(vector) != DIMENSIONS:
            raise ValueError(f"{len(vector)} dimensions")
    except Exception as exc:  # noqa: BLE001 - any fault: retrieval still works, offline
        count(FALLBACK_METRIC)
        logger.warning(
            "embedding fault, using the offline embedder", extra={"error_type": type(exc).__name__}
        )
        return offline_embedding(text)
    return Embedding(f"openai:{model}/{DIMENSIONS}", vector)
