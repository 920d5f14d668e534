"""What each judge's model learns from, and how its file is written (see __init__.py)."""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from persona_rails_dev import evalsets
from persona_rails_dev.train.fit import (
    Example,
    Settings,
    Vector,
    fit_binary,
    fit_multinomial,
    predict_binary,
    predict_multinomial,
)

FOLDS = 5


@dataclass(frozen=True)
class Trained:
    document: dict[str, Any]
    # Out-of-fold predictions on the train split, per item: the positive class's probability for a
    # binary model, every class's for a multinomial one.
    out_of_fold: list[Any]

    def data(self) -> bytes:
        return (json.dumps(self.document, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode()


def fold_of(item: evalsets.Item) -> int:
    return zlib.crc32(item.id.encode()) % FOLDS


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _vector_document(vector: Vector) -> dict[str, Any]:
    from persona_rails.local_model.model import encode_weights

    return {
        "bias": round(vector.bias, 6),
        "rules": {name: round(value, 6) for name, value in sorted(vector.rules.items())},
        "ngrams": encode_weights(vector.ngrams),
    }


def train_model(
    *,
    name: str,
    version: str,
    classes: tuple[str, ...],
    buckets: int,
    settings: Settings,
    items: Sequence[evalsets.Item],
    examples: Sequence[Example],
    sources: tuple[Path, ...],
    thresholds: Callable[[list[Any]], dict[str, float]] | None = None,
) -> Trained:
    from persona_rails.local_model.features import FEATURE_SCHEME

    binary = len(classes) == 2

    def fit(subset: Sequence[Example]) -> list[Vector]:
        if binary:
            return [fit_binary(subset, buckets, settings)]
        return fit_multinomial(subset, len(classes), buckets, settings)

    def predict(vectors: list[Vector], example: Example) -> Any:
        return predict_binary(vectors[0], example) if binary else predict_multinomial(vectors, example)

    out_of_fold: list[Any] = [None] * len(examples)
    for fold in range(FOLDS):
        held = [index for index, item in enumerate(items) if fold_of(item) == fold]
        vectors = fit([example for index, example in enumerate(examples) if fold_of(items[index]) != fold])
        for index in held:
            out_of_fold[index] = predict(vectors, examples[index])
    vectors = fit(examples)
    bounds = thresholds(out_of_fold) if thresholds else {}
    document = {
        "name": name,
        "version": version,
        "feature_scheme": FEATURE_SCHEME,
        "buckets": buckets,
        "classes": list(classes),
        "vectors": [_vector_document(vector) for vector in vectors],
        "thresholds": {key: round(value, 4) for key, value in sorted(bounds.items())},
        "training": {
            "data": {f"eval/{path.parent.name}/{path.name}": digest(path) for path in sources},
            "items": len(items),
            "folds": FOLDS,
            "settings": asdict(settings),
        },
    }
    return Trained(document, out_of_fold)
