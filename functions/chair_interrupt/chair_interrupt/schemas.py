"""Request and response bodies of the interruption routes.

Field names are the spec's, in snake_case: `InterruptEvaluationContext` (`current_speaker`,
`other_chairs`, `recent_content`, `debate_so_far`, `topic`), the debate's `interruptions` config
and the `ChairInterruptCandidate`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated
from uuid import UUID

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    StrictBool,
    StrictInt,
    ValidationInfo,
    field_validator,
)

from chair_interrupt.artifacts import chair_config
from chair_interrupt.engine.model import Reason
from persona_rails.text import PrintableText, user_text

# Control characters (but newline, tab and carriage return) and lone surrogates.
_UNPRINTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")


def _debate_text(value: str) -> str:
    if _UNPRINTABLE.search(value):
        raise ValueError("control characters and lone surrogates are not allowed")
    return value


MAX_CHAIRS = 8
RECENT_MAX_CHARS = 4000
DEBATE_MAX_CHARS = 50_000

if TYPE_CHECKING:
    Content = str
    DebateText = str
    Topic = str
    QuickContent = str
else:
    Content = user_text(1, RECENT_MAX_CHARS)
    # The whole debate so far may be empty at the first chunk; only its last 800 characters are
    # used, so it is checked with one regular expression instead of character by character.
    DebateText = Annotated[str, Field(max_length=DEBATE_MAX_CHARS), AfterValidator(_debate_text)]
    Topic = user_text(1, 300)
    QuickContent = user_text(1, RECENT_MAX_CHARS)

Position = Annotated[
    str, Field(pattern=r"^[A-Za-z0-9_-]{1,40}$", description="The chair's seat, e.g. `chair_1`.")
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ChairIn(_Strict):
    position: Position
    framework: PrintableText = Field(
        max_length=100,
        json_schema_extra=lambda schema: schema.update(
            enum=list[JsonValue](sorted(chair_config().frameworks.frameworks))
        ),
        description="A key of the frameworks catalogue (PHILOSOPHICAL_CHAIR_INFO).",
    )
    model_id: Annotated[PrintableText, Field(min_length=1, max_length=100)]
    model_display_name: Annotated[PrintableText, Field(min_length=1, max_length=100)] | None = None

    @field_validator("framework")
    @classmethod
    def _known_framework(cls, framework: str) -> str:
        if framework not in chair_config().frameworks.frameworks:
            raise ValueError(f"unknown framework; one of {sorted(chair_config().frameworks.frameworks)}")
        return framework


class InterruptionsIn(_Strict):
    enabled: StrictBool
    allow_chair_interruptions: StrictBool
    aggressiveness: StrictInt = Field(ge=1, le=5)
    cooldown_seconds: StrictInt = Field(ge=0, le=86_400)


class EvaluateRequest(_Strict):
    user_id: UUID | None = Field(
        default=None, description="The debate's owner a service-role caller acts for."
    )
    current_speaker: ChairIn
    other_chairs: list[ChairIn] = Field(min_length=1, max_length=MAX_CHAIRS - 1)
    recent_content: Content
    debate_so_far: DebateText = ""
    topic: Topic
    interruptions: InterruptionsIn

    @field_validator("other_chairs")
    @classmethod
    def _distinct_positions(cls, chairs: list[ChairIn], info: ValidationInfo) -> list[ChairIn]:
        positions = [chair.position for chair in chairs]
        if len(set(positions)) != len(positions):
            raise ValueError("chair positions must be unique")
        speaker = info.data.get("current_speaker")
        if speaker is not None and speaker.position in positions:
            raise ValueError(
                "the current speaker cannot interrupt itself: its position is among other_chairs"
            )
        return chairs


class QuickCheckRequest(_Strict):
    content: QuickContent


class QuickCheckResult(BaseModel):
    potential_trigger: bool
    likely_reason: Reason | None


class ChairOut(BaseModel):
    position: str
    framework: str
    model_id: str
    model_display_name: str | None


class CandidateOut(BaseModel):
    """The spec's ChairInterruptCandidate."""

    interrupting_chair: ChairOut
    interrupted_chair: ChairOut
    trigger_reason: Reason
    trigger_content: str
    urgency: float = Field(ge=0, le=1)
    suggested_opener: str


class StatsOut(BaseModel):
    total_interrupts: int
    by_chair: dict[str, int]
    by_reason: dict[Reason, int]


class ResetOut(BaseModel):
    debate_id: UUID
    cleared: list[str] = Field(description="The chairs whose cooldown was running.")
