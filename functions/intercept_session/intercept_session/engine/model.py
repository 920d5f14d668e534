"""Vocabulary of the interception dialog, exactly as the spec names it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Trigger(StrEnum):
    QUOTA_EXCEEDED = "quota_exceeded"
    BLOCKED_WINDOW = "blocked_window"
    COOLDOWN_ACTIVE = "cooldown_active"


class Verdict(StrEnum):
    DENY = "deny"
    DELAY = "delay"
    ALLOW = "allow"


class Category(StrEnum):
    WORK = "work"
    STUDY = "study"
    MENTAL_BREAK = "mental_break"
    EMERGENCY = "emergency"
    OTHER = "other"


class Decision(StrEnum):
    COMPLY = "comply"
    OVERRIDE = "override"
    EMERGENCY = "emergency"


class State(StrEnum):
    AWAITING_REASON = "awaiting_reason"
    AWAITING_DECISION = "awaiting_decision"
    CLOSED = "closed"


class RecommendedAction(StrEnum):
    COMPLY = "comply"
    ACCEPT_DELAY = "accept_delay"
    UNLOCK = "unlock"


class Source(StrEnum):
    LLM = "llm"
    OFFLINE = "offline"


@dataclass(frozen=True)
class RuleContext:
    """The parts of the user's rule that the evaluation and the templates use."""

    summary: str
    app_display_name: str
    next_action: str
    remaining_minutes: int
    delay_minutes: int


@dataclass(frozen=True)
class EvaluationInput:
    reason_text: str
    trigger: Trigger
    rule: RuleContext
    streak: int
    override_count_today: int
    # On the appeal turn: the first turn's text and verdict, which the appeal disputes.
    appeal_of: tuple[str, Verdict] | None = None

    @property
    def full_text(self) -> str:
        return self.reason_text if self.appeal_of is None else f"{self.appeal_of[0]}\n{self.reason_text}"


@dataclass(frozen=True)
class Evaluation:
    verdict: Verdict
    confidence: float
    category: Category
    justification: str
    emergency: bool = False
    # The emergency judge could not rule an emergency out: the reply points to the emergency button.
    emergency_doubt: bool = False
