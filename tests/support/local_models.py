"""Local models built in a test: a model whose every answer is known in advance."""

from __future__ import annotations

import array
import math
from collections.abc import Mapping

from persona_rails.local_model import LocalModel


def fixed_model(
    probability: float,
    *,
    classes: tuple[str, str] = ("none", "emergency"),
    thresholds: Mapping[str, float] | None = None,
) -> LocalModel:
    """A binary model that gives every text `probability` for its positive class."""
    logit = math.log(probability / (1 - probability))
    return LocalModel(
        name="fixed",
        version="test",
        sha256="0" * 64,
        classes=classes,
        buckets=2,
        bias=(logit,),
        rule_weights=({},),
        weights=(array.array("f", [0.0, 0.0]),),
        thresholds=dict(thresholds or {}),
    )
