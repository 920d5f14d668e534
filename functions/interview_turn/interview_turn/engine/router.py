"""The persona router (spec: Routing Policy): the first rule that holds wins, in the spec's order.

A hard stop is the strongest form of the safety override, so it routes there too.
"""

from __future__ import annotations

from interview_turn.engine.model import Rule
from interview_turn.engine.policy import Thresholds
from interview_turn.engine.signals import Signals


def route(signals: Signals, thresholds: Thresholds) -> Rule:
    if signals.refusal_or_discomfort or signals.hard_stop is not None:
        return Rule.SAFETY_OVERRIDE
    if signals.contradiction_score >= thresholds.contradiction:
        return Rule.CONTRADICTION_RESOLUTION
    if signals.emotion_score >= thresholds.emotion:
        return Rule.HIGH_EMOTION
    if signals.vagueness_score >= thresholds.vagueness:
        return Rule.VAGUENESS
    return Rule.DEFAULT
