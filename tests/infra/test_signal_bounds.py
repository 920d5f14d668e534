"""The interview signal model's bounds (persona_rails_dev/train/specs.py `signal_bounds`): each
flags at most its share of the answers labelled otherwise, out of fold, once the bounds before it
are in place and with the lexicons' readings applied, and a bound any lower would flag more."""

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
    allowed,
    decided,
)

LABELS = ("none",) * 600 + ("pause",) * 150 + tuple(stop for stop in HARD_STOPS for _ in range(100))
# Just under a bound: bounds are rounded to 4 places, 1e-4 above the value that would be one flag
# too many.
NOTCH = 2e-4


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


def lexicon_readings() -> list[dict[str, float]]:
    """Some answers the lexicons read as a refusal or a topic change, which rule classes out."""
    return [
        {"refusal": 1.0} if index % 10 == 3 else {"topic_change": 1.0} if index % 10 == 7 else {}
        for index in range(len(LABELS))
    ]


def test_each_bound_keeps_to_its_share_of_false_flags_and_none_lower_would():
    rows = out_of_fold(7)
    readings = lexicon_readings()
    bounds = signal_bounds(list(LABELS), rows, SIGNAL_CLASSES, readings)
    assert set(bounds) == {*SIGNAL_FALSE_FLAGS, HARD_STOP_MASS, ANY_SIGNAL}
    raw = [dict(zip(SIGNAL_CLASSES, row, strict=True)) for row in rows]
    kept = [allowed(p, reading) for p, reading in zip(raw, readings, strict=True)]

    for name, share in SIGNAL_FALSE_FLAGS.items():
        others = [p[name] for label, p in zip(LABELS, raw, strict=True) if label != name]
        assert sum(value >= bounds[name] for value in others) <= share * len(others)
        assert sum(value >= bounds[name] - NOTCH for value in others) > share * len(others)

    def false_hard_stops(with_bounds: dict[str, float]) -> int:
        return sum(
            decided(p, with_bounds) in HARD_STOPS
            for label, p in zip(LABELS, kept, strict=True)
            if label not in HARD_STOPS
        )

    def false_pauses(with_bounds: dict[str, float]) -> int:
        return sum(
            decided(p, with_bounds) == "pause"
            for label, p in zip(LABELS, kept, strict=True)
            if label == "none"
        )

    own = {name: bounds[name] for name in SIGNAL_FALSE_FLAGS}
    with_mass = {**own, HARD_STOP_MASS: bounds[HARD_STOP_MASS]}
    not_hard = sum(label not in HARD_STOPS for label in LABELS)
    added = false_hard_stops(with_mass) - false_hard_stops(own)
    assert 0 < added <= HARD_STOP_MASS_FALSE_FLAGS * not_hard
    lower = {**with_mass, HARD_STOP_MASS: bounds[HARD_STOP_MASS] - NOTCH}
    assert false_hard_stops(lower) - false_hard_stops(own) > HARD_STOP_MASS_FALSE_FLAGS * not_hard

    plain = LABELS.count("none")
    added = false_pauses(bounds) - false_pauses(with_mass)
    assert 0 < added <= ANY_SIGNAL_FALSE_FLAGS * plain
    lower = {**bounds, ANY_SIGNAL: bounds[ANY_SIGNAL] - NOTCH}
    assert false_pauses(lower) - false_pauses(with_mass) > ANY_SIGNAL_FALSE_FLAGS * plain


def test_the_lexicons_readings_change_the_bounds():
    rows = out_of_fold(7)
    unread = signal_bounds(list(LABELS), rows, SIGNAL_CLASSES, [{} for _ in LABELS])
    read = signal_bounds(list(LABELS), rows, SIGNAL_CLASSES, lexicon_readings())
    assert read[ANY_SIGNAL] != unread[ANY_SIGNAL]
