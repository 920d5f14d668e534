"""The local models' readings of an answer, where the lexicons may have missed one (trained by
`make train` from eval/interview/train.jsonl, with the lexicons' readings among their features;
docs/interview.md, docs/judges.md). Pure: the models arrive as arguments.

- `models/signals.json`: none, pause, or one of the three hard stops;
- `models/emotion.json`: whether an answer is heavy with feeling (the set's `emotion: high`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from interview_turn.engine.model import SEVERITY, HardStop
from persona_rails.local_model import LocalModel

# The signal model's classes, in its file's order.
SIGNAL_CLASSES = ("none", "pause", *(stop.value for stop in reversed(SEVERITY)))
# The emotion model's classes: a binary model's (negative, positive).
EMOTION_CLASSES = ("not_high", "high")


@dataclass(frozen=True)
class LocalModels:
    signals: LocalModel
    emotion: LocalModel


@dataclass(frozen=True)
class EmotionScale:
    """Where the emotion model's bound lands on the emotion score: at the router's emotion
    threshold (`reads_high`), and at most at `ceiling`, below the distress threshold: only the
    lexicon's strongest readings stabilize a turn."""

    reads_high: float
    ceiling: float


def learned_signal(
    model: LocalModel, text: str, features: Mapping[str, float]
) -> tuple[HardStop | None, bool]:
    """The most probable class, when that is a hard stop or a pause whose probability reaches its
    bound. The bounds, in the model file, were chosen at training on out-of-fold predictions so
    that each flags few answers that ask for nothing. A refusal or a discomfort the lexicon reads
    ("I'd rather not talk about him", "This is too painful.") declines or eases a topic, which the
    safety overlay answers by stepping sideways: the model never makes it a stop, only, when
    likely enough, a pause. A topic change the lexicon reads ("Can we talk about something
    else?") is redirected to the next planned topic; the model does not make it a pause."""
    probabilities = model.probabilities(text, features)
    if "refusal" in features or "discomfort" in features:
        probabilities[HardStop.STOP_REQUEST.value] = 0.0
    if "topic_change" in features:
        probabilities["pause"] = 0.0
    top = max(probabilities, key=probabilities.__getitem__)
    if top == "none" or probabilities[top] < model.thresholds[top]:
        return None, False
    if top == "pause":
        return None, True
    return HardStop(top), False


def learned_emotion(
    model: LocalModel, text: str, features: Mapping[str, float], scale: EmotionScale
) -> float:
    """The probability that the answer is heavy with feeling, as an emotion score, once it reaches
    the model's bound (chosen at training so that few answers labelled low or moderate reach it):
    the bound maps to the router's threshold and 1 to the ceiling, linearly in between. Below the
    bound the model says nothing (0), and the lexicon's score stands."""
    probability = model.probabilities(text, features)["high"]
    bound = model.thresholds["high"]
    if probability < bound:
        return 0.0
    return round(
        scale.reads_high + (scale.ceiling - scale.reads_high) * (probability - bound) / (1 - bound), 2
    )
