"""The engine's vocabulary: the spec's six reasons, chairs, the evaluation context and the candidate."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

ENGINE_VERSION = "chair-interrupt-1"


class Reason(StrEnum):
    FACTUAL_CORRECTION = "factual_correction"
    STRAW_MAN_DETECTED = "straw_man_detected"
    DIRECT_CHALLENGE = "direct_challenge"
    CLARIFICATION_NEEDED = "clarification_needed"
    STRONG_AGREEMENT = "strong_agreement"
    PIVOTAL_POINT = "pivotal_point"


@dataclass(frozen=True)
class Chair:
    position: str
    framework: str
    model_id: str
    model_display_name: str | None = None

    @property
    def display_name(self) -> str:
        return self.model_display_name or self.model_id


@dataclass(frozen=True)
class Interruptions:
    enabled: bool
    allow_chair_interruptions: bool
    aggressiveness: int
    cooldown_seconds: int


@dataclass(frozen=True)
class EvaluationContext:
    current_speaker: Chair
    other_chairs: tuple[Chair, ...]
    recent_content: str
    debate_so_far: str
    topic: str


@dataclass(frozen=True)
class QuickCheck:
    potential_trigger: bool
    likely_reason: Reason | None = None
    # Where the trigger is in the text, for the offline evaluator's `trigger_content`.
    span: tuple[int, int] | None = None


@dataclass(frozen=True)
class Candidate:
    interrupting_chair: Chair
    interrupted_chair: Chair
    trigger_reason: Reason
    trigger_content: str
    urgency: float
    suggested_opener: str
