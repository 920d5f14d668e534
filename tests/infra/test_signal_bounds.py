"""The interview signal model's bounds (persona_rails_dev/train/specs.py `signal_bounds`): each
flags at most its share of the answers labelled otherwise, out of fold, once the bounds before it
are in place, and no lower bound would."""

from __future__ import annotations

import random

from persona_rails_dev.judges import with_function
from persona_rails_dev.train.specs import (
    ANY_SIGNAL_FALSE_FLAGS,
    HARD_STOP_MASS_FALSE_FLAGS,
    SIGNAL_FALSE_FLAGS,
    signal_bounds,
)

with_function("interview_turn")
from interview_turn.engine.scorer import (  # noqa: E402
    ANY_SIGNAL,
    HARD_STOP_MASS,
    HARD_STOPS,
    SIGNAL_CLASSES,
    decided,
)

LABELS = ("none",) * 600 + ("pause",) * 150 + tuple(stop for stop in HARD_STOPS for _ in range(100))


def out_of_fold(seed: int) -> list[list[float]]:
    """Probabilities leaning to each answer's label, spread enough to overlap."""
    rng = random.Random(seed)
    rows = []
    for label in LABELS:
        weights = [rng.random() for _ in SIGNAL_CLASSES]
        weights[SIGNAL_CLASSES.index(label)] += rng.random() * 1.5
        total = sum(weights)
        rows.append([weight / total for weight in weights])
    return rows


def test_each_bound_keeps_to_its_share_of_false_flags_and_is_the_lowest_that_does():
    rows = out_of_fold(7)
    bounds = signal_bounds(list(LABELS), rows, SIGNAL_CLASSES, [{} for _ in LABELS])
    assert set(bounds) == {*SIGNAL_FALSE_FLAGS, HARD_STOP_MASS, ANY_SIGNAL}
    readings = [dict(zip(SIGNAL_CLASSES, row, strict=True)) for row in rows]

    def false_hard_stops(with_bounds: dict[str, float]) -> int:
        return sum(
            decided(p, with_bounds) in HARD_STOPS
            for label, p in zip(LABELS, readings, strict=True)
            if label not in HARD_STOPS
        )

    def false_pauses(with_bounds: dict[str, float]) -> int:
        return sum(
            decided(p, with_bounds) == "pause"
            for label, p in zip(LABELS, readings, strict=True)
            if label == "none"
        )

    own = {name: bounds[name] for name in SIGNAL_FALSE_FLAGS}
    with_mass = {**own, HARD_STOP_MASS: bounds[HARD_STOP_MASS]}
    not_hard = sum(label not in HARD_STOPS for label in LABELS)
    added = false_hard_stops(with_mass) - false_hard_stops(own)
    assert 0 < added <= HARD_STOP_MASS_FALSE_FLAGS * not_hard
    lower = {**with_mass, HARD_STOP_MASS: bounds[HARD_STOP_MASS] - 0.01}
    assert false_hard_stops(lower) - false_hard_stops(own) > HARD_STOP_MASS_FALSE_FLAGS * not_hard

    added = false_pauses(bounds) - false_pauses(with_mass)
    assert 0 < added <= ANY_SIGNAL_FALSE_FLAGS * LABELS.count("none")
    lower = {**bounds, ANY_SIGNAL: bounds[ANY_SIGNAL] - 0.01}
    assert false_pauses(lower) - false_pauses(with_mass) > ANY_SIGNAL_FALSE_FLAGS * LABELS.count("none")
