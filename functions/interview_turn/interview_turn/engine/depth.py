"""The depth governor (spec: Depth Governor), binding on every turn.

Depth is per topic, 0..3. It goes up by at most one level, and only through the escalation gate:
the narrator elaborated on their own or consented, emotion is below the distress hard-stop
threshold, and the topic has depth and escalation budget left. It never goes up on refusal or
discomfort, and never twice in a row without the narrator's own elaboration. Level 3 (the
sensitive core) also needs the session's sensitive-topics consent.
"""

from __future__ import annotations

from dataclasses import dataclass

from interview_turn.engine.model import DepthChange, Rule, TopicPlanItem, TopicState
from interview_turn.engine.policy import DepthGovernor
from interview_turn.engine.signals import Signals

# Rules whose turn is about getting the facts straight, not about going deeper.
_DEPTH_NEUTRAL_RULES = frozenset({Rule.CONTRADICTION_RESOLUTION, Rule.VAGUENESS})


class Reason:
    HARD_STOP = "hard_stop"
    REFUSAL = "refusal_or_discomfort"
    CONSENT_WITHDRAWN = "sensitive_consent_withdrawn"
    DEPTH_NEUTRAL_ROUTE = "route_holds_depth"
    NOT_REQUESTED = "no_elaboration_or_consent"
    CONSECUTIVE = "no_consecutive_increase_without_elaboration"
    DISTRESS = "emotion_at_distress_threshold"
    DEPTH_BUDGET = "depth_budget_exhausted"
    ESCALATION_BUDGET = "escalation_budget_exhausted"
    ESCALATED = "escalation_gate_passed"


@dataclass(frozen=True)
class Budget:
    max_depth: int
    max_escalations: int


@dataclass(frozen=True)
class DepthDecision:
    before: int
    after: int
    change: DepthChange
    reason: str
    budget: Budget

    @property
    def escalated(self) -> bool:
        return self.change is DepthChange.INCREASE


def budget_for(governor: DepthGovernor, plan: TopicPlanItem | None, sensitive_consent: bool) -> Budget:
    """Consent to sensitive topics opens `max_sensitive_depth`; without it a topic the plan marks
    sensitive stays at `sensitive_topic_depth_without_consent`. A plan item may tighten the
    budget, never loosen it."""
    default = governor.default_budget
    ceiling = default.max_sensitive_depth if sensitive_consent else default.max_depth
    escalations = default.max_escalations_per_topic
    if plan is not None:
        if plan.sensitive and not sensitive_consent:
            ceiling = min(ceiling, governor.sensitive_topic_depth_without_consent)
        if plan.max_depth is not None:
            ceiling = min(ceiling, plan.max_depth)
        if plan.max_escalations is not None:
            escalations = min(escalations, plan.max_escalations)
    return Budget(ceiling, escalations)


def govern(
    governor: DepthGovernor,
    signals: Signals,
    rule: Rule,
    topic: TopicState,
    budget: Budget,
    *,
    last_turn_increased: bool,
    go_deeper: bool,
) -> DepthDecision:
    before = topic.depth

    def decided(after: int, reason: str) -> DepthDecision:
        change = (
            DepthChange.INCREASE
            if after > before
            else DepthChange.DECREASE
            if after < before
            else DepthChange.HOLD
        )
        return DepthDecision(before, after, change, reason, budget)

    if signals.hard_stop is not None:
        return decided(before, Reason.HARD_STOP)
    if signals.refusal_or_discomfort:
        return decided(max(0, before - governor.refusal_decrease), Reason.REFUSAL)
    if before > budget.max_depth:
        return decided(budget.max_depth, Reason.CONSENT_WITHDRAWN)
    if rule in _DEPTH_NEUTRAL_RULES:
        return decided(before, Reason.DEPTH_NEUTRAL_ROUTE)
    if not (signals.user_initiated_elaboration or go_deeper):
        return decided(before, Reason.NOT_REQUESTED)
    if last_turn_increased and not signals.user_initiated_elaboration:
        return decided(before, Reason.CONSECUTIVE)
    if signals.emotion_score >= governor.distress_hard_stop_threshold:
        return decided(before, Reason.DISTRESS)
    target = before + governor.max_increase_per_turn
    if target > budget.max_depth:
        return decided(before, Reason.DEPTH_BUDGET)
    if topic.escalations >= budget.max_escalations:
        return decided(before, Reason.ESCALATION_BUDGET)
    return decided(target, Reason.ESCALATED)
