"""Logistic regression fitted in pure Python, deterministically: the same data and settings give
the same weights to the last bit on any machine (no BLAS, no threads, a seeded shuffle).

Examples are sparse: n-gram slots (each weighing the example's `weight`) plus named rule features.
Binary models take soft targets (0..1: the intimacy scorer learns an intensity); multinomial ones
a class index. AdaGrad steps with L2 applied to the features an example touches.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Example:
    slots: tuple[int, ...]
    weight: float
    rules: Mapping[str, float]
    target: float | int  # binary: probability of the positive class; multinomial: class index


@dataclass(frozen=True)
class Settings:
    epochs: int = 30
    rate: float = 0.5
    l2: float = 1e-4
    seed: int = 20261126


@dataclass
class Vector:
    buckets: int
    bias: float = 0.0
    ngrams: list[float] = field(default_factory=list)
    rules: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.ngrams:
            self.ngrams = [0.0] * self.buckets

    def logit(self, example: Example) -> float:
        ngrams = self.ngrams
        return (
            self.bias
            + example.weight * sum(map(ngrams.__getitem__, example.slots))
            + sum(self.rules.get(name, 0.0) * value for name, value in example.rules.items())
        )


class _Trainer:
    def __init__(self, vector: Vector) -> None:
        self.vector = vector
        self.squares = [1e-8] * vector.buckets
        self.bias_square = 1e-8
        self.rule_squares: dict[str, float] = {}

    def step(self, example: Example, gradient: float, settings: Settings) -> None:
        vector = self.vector
        rate, l2 = settings.rate, settings.l2
        self.bias_square += gradient * gradient
        vector.bias -= rate * gradient / math.sqrt(self.bias_square)
        # The hot loop of training: names bound locally, each value read once (the same arithmetic
        # in the same order as the plain form, so the weights stay the same to the last bit).
        ngrams, squares, sqrt = vector.ngrams, self.squares, math.sqrt
        scaled = gradient * example.weight
        for slot in example.slots:
            g = scaled + l2 * ngrams[slot]
            square = squares[slot] + g * g
            squares[slot] = square
            ngrams[slot] -= rate * g / sqrt(square)
        for name, value in example.rules.items():
            current = vector.rules.get(name, 0.0)
            g = gradient * value + l2 * current
            square = self.rule_squares.get(name, 1e-8) + g * g
            self.rule_squares[name] = square
            vector.rules[name] = current - rate * g / math.sqrt(square)


def _sigmoid(value: float) -> float:
    if value >= 0:
        return 1.0 / (1.0 + math.exp(-value))
    exp = math.exp(value)
    return exp / (1.0 + exp)


def _softmax(logits: list[float]) -> list[float]:
    top = max(logits)
    exps = [math.exp(logit - top) for logit in logits]
    total = sum(exps)
    return [exp / total for exp in exps]


def fit_binary(examples: Sequence[Example], buckets: int, settings: Settings) -> Vector:
    trainer = _Trainer(Vector(buckets))
    order = list(range(len(examples)))
    shuffle = random.Random(settings.seed)  # noqa: S311 - a reproducible order, not a secret
    for _ in range(settings.epochs):
        shuffle.shuffle(order)
        for index in order:
            example = examples[index]
            probability = _sigmoid(trainer.vector.logit(example))
            trainer.step(example, probability - float(example.target), settings)
    return trainer.vector


def fit_multinomial(
    examples: Sequence[Example], classes: int, buckets: int, settings: Settings
) -> list[Vector]:
    trainers = [_Trainer(Vector(buckets)) for _ in range(classes)]
    order = list(range(len(examples)))
    shuffle = random.Random(settings.seed)  # noqa: S311 - a reproducible order, not a secret
    for _ in range(settings.epochs):
        shuffle.shuffle(order)
        for index in order:
            example = examples[index]
            probabilities = _softmax([trainer.vector.logit(example) for trainer in trainers])
            for klass, trainer in enumerate(trainers):
                target = 1.0 if klass == example.target else 0.0
                trainer.step(example, probabilities[klass] - target, settings)
    return [trainer.vector for trainer in trainers]


def predict_binary(vector: Vector, example: Example) -> float:
    return _sigmoid(vector.logit(example))


def predict_multinomial(vectors: Sequence[Vector], example: Example) -> list[float]:
    return _softmax([vector.logit(example) for vector in vectors])
