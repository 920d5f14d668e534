"""A trained local model: logistic regression (binary or multinomial) over hashed n-grams and a
judge's named rule features, loaded from one JSON file.

The file is the whole model: its name and version, the feature scheme, each class's bias, rule
weights and n-gram weights (float32, little-endian, base64), the judge's decision thresholds,
and how it was trained. Its SHA-256 is part of `LocalModel.id`, which every decision record that
used the model keeps, so a replay knows whether it runs the same model.
"""

from __future__ import annotations

import array
import base64
import hashlib
import json
import math
import sys
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from persona_rails.local_model.features import FEATURE_SCHEME, hashed, text_grams


class ModelFileError(ValueError):
    """A model file that cannot be used: wrong scheme, shape or checksum."""


def _sigmoid(value: float) -> float:
    if value >= 0:
        return 1.0 / (1.0 + math.exp(-value))
    exp = math.exp(value)
    return exp / (1.0 + exp)


def decode_weights(encoded: str, buckets: int) -> array.array[float]:
    weights = array.array("f")
    weights.frombytes(base64.b64decode(encoded))
    if sys.byteorder == "big":
        weights.byteswap()
    if len(weights) != buckets:
        raise ModelFileError(f"{len(weights)} weights for {buckets} buckets")
    return weights


def encode_weights(values: list[float]) -> str:
    weights = array.array("f", values)
    if sys.byteorder == "big":
        weights.byteswap()
    return base64.b64encode(weights.tobytes()).decode("ascii")


@dataclass(frozen=True)
class LocalModel:
    name: str
    version: str
    sha256: str
    classes: tuple[str, ...]
    buckets: int
    bias: tuple[float, ...]
    rule_weights: tuple[Mapping[str, float], ...]
    weights: tuple[array.array[float], ...]
    thresholds: Mapping[str, float]

    @property
    def id(self) -> str:
        """`name@version+sha256[:12]`: what a decision record keeps of the model that decided."""
        return f"{self.name}@{self.version}+{self.sha256[:12]}"

    def _logits(self, found: AbstractSet[str], rules: Mapping[str, float]) -> list[float]:
        slots, weight = hashed(found, self.buckets)
        return [
            bias
            + sum(rule_weights.get(name, 0.0) * value for name, value in rules.items())
            + weight * sum(map(weights.__getitem__, slots))
            for bias, rule_weights, weights in zip(self.bias, self.rule_weights, self.weights, strict=True)
        ]

    def probabilities(self, text: str, rules: Mapping[str, float] | None = None) -> dict[str, float]:
        """Each class's probability; a binary model's classes are (negative, positive)."""
        return self.probabilities_of(text_grams(text), rules)

    def probabilities_of(
        self, found: AbstractSet[str], rules: Mapping[str, float] | None = None
    ) -> dict[str, float]:
        """`probabilities` of a text whose n-grams are already read (`text_grams`), when more
        than one model reads it."""
        if isinstance(found, str):
            # A string is a set of its characters to Python: scored, silently, as nonsense.
            raise TypeError("probabilities_of takes n-grams (text_grams), not a text")
        logits = self._logits(found, rules or {})
        if len(logits) == 1:
            positive = _sigmoid(logits[0])
            return {self.classes[0]: 1.0 - positive, self.classes[1]: positive}
        top = max(logits)
        exps = [math.exp(logit - top) for logit in logits]
        total = sum(exps)
        return {name: exp / total for name, exp in zip(self.classes, exps, strict=True)}


def parse_model(data: bytes, source: str) -> LocalModel:
    document: dict[str, Any] = json.loads(data)
    if document.get("feature_scheme") != FEATURE_SCHEME:
        scheme = document.get("feature_scheme")
        raise ModelFileError(f"{source}: feature scheme {scheme!r}, not {FEATURE_SCHEME}")
    buckets = int(document["buckets"])
    if buckets & (buckets - 1):
        raise ModelFileError(f"{source}: buckets must be a power of two")
    classes = tuple(document["classes"])
    vectors = document["vectors"]
    if len(vectors) != (1 if len(classes) == 2 else len(classes)):
        raise ModelFileError(f"{source}: {len(vectors)} weight vectors for classes {classes}")
    return LocalModel(
        name=document["name"],
        version=document["version"],
        sha256=hashlib.sha256(data).hexdigest(),
        classes=classes,
        buckets=buckets,
        bias=tuple(float(vector["bias"]) for vector in vectors),
        rule_weights=tuple(
            {name: float(value) for name, value in vector["rules"].items()} for vector in vectors
        ),
        weights=tuple(decode_weights(vector["ngrams"], buckets) for vector in vectors),
        thresholds={name: float(value) for name, value in document.get("thresholds", {}).items()},
    )


@cache
def load_model(path: Path) -> LocalModel:
    """The model at `path`, read once per execution environment (a few milliseconds)."""
    return parse_model(path.read_bytes(), str(path))
