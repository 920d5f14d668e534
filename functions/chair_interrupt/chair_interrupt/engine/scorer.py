"""The local scorer: which of the six reasons a chunk gives a listening chair, or none, or whether
it only reports, quotes or denies what it says (`hedged`), from a multinomial logistic regression
over the folded chunk's n-grams and the detectors' readings (models/chair.json, trained by
`make train` from eval/chair/, docs/judges.md).

The urgency is the probability that some interruption is warranted (1 − P(none) − P(hedged)), moved on the
logit scale by the model's `urgency_shift`: a shift chosen at training, on out-of-fold
predictions, so that the spec's thresholds (0.9 at aggressiveness 1 … 0.5 at 5) cut where the
train split says they should. Pure: the model arrives as an argument.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from chair_interrupt.engine.model import Reason
from persona_rails.local_model import LocalModel

NONE = "none"
HEDGED = "hedged"
CLASSES = (NONE, HEDGED, *(reason.value for reason in Reason))
_EDGE = 1e-6


@dataclass(frozen=True)
class Scored:
    reason: Reason
    urgency: float
    # The chunk reports, quotes or denies what it says: `hedged` is the most probable class, or
    # its share of what the chunk might be doing (`hedged_share`) reaches the model's bound.
    hedged: bool
    # Each class's probability, rounded, for the decision record.
    probabilities: Mapping[str, float]


def shifted(probability: float, shift: float) -> float:
    probability = min(1 - _EDGE, max(_EDGE, probability))
    logit = math.log(probability / (1 - probability)) + shift
    return 1 / (1 + math.exp(-logit))


def hedged_share(probabilities: Mapping[str, float]) -> float:
    """How much of the probability that the chunk does something (anything but `none`) is that it
    only reports, quotes or denies it. The bound on it (`hedged_share` in the model file) is
    chosen at training so that it silences few of the chunks that warrant an interruption."""
    doing = 1 - probabilities[NONE]
    return probabilities[HEDGED] / doing if doing > 0 else 0.0


def score(model: LocalModel, content: str, features: Mapping[str, float]) -> Scored:
    probabilities = model.probabilities(content, features)
    reason = max(Reason, key=lambda candidate: probabilities[candidate.value])
    warranted = 1 - probabilities[NONE] - probabilities[HEDGED]
    urgency = shifted(warranted, model.thresholds.get("urgency_shift", 0.0))
    hedged = max(probabilities, key=probabilities.__getitem__) == HEDGED or hedged_share(
        probabilities
    ) >= model.thresholds.get("hedged_share", 1.0)
    return Scored(reason, urgency, hedged, {name: round(value, 4) for name, value in probabilities.items()})
