"""The moderation check's contract (spec §3.1 in, §4 and §10 out), shared by library and HTTP mode."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Annotated
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from persona_rails.moderation.scoring import Label, Policy
from persona_rails.text import PrintableText, identifier, user_text

MAX_TEXT_CHARS = 4000
MAX_PERSONA_CHARS = 8000
PROFILE_VERSION = "v1.0"

if TYPE_CHECKING:
    CheckedText = str
else:
    CheckedText = user_text(1, MAX_TEXT_CHARS)


class Dimension(StrEnum):
    INTIMACY = "intimacy"


class Profile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    persona: Annotated[PrintableText, StringConstraints(max_length=MAX_PERSONA_CHARS)] = ""
    intimacy_stage: int = Field(ge=1, le=5, strict=True)


class CheckContext(BaseModel):
    model_config = ConfigDict(extra="forbid")

    profile: Profile
    profile_version: identifier(20) = PROFILE_VERSION  # type: ignore[valid-type]


class CheckRequest(BaseModel):
    """§3.1's payload; a service-role caller also names the `user_id` it acts for."""

    model_config = ConfigDict(extra="forbid")

    text: CheckedText
    dimensions: list[Dimension] = Field(min_length=1, max_length=20)
    context: CheckContext
    policy: Policy = Policy.DEFAULT
    user_id: UUID | None = None

    @field_validator("dimensions")
    @classmethod
    def _each_once(cls, dimensions: list[Dimension]) -> list[Dimension]:
        # ["intimacy", "intimacy"] asks for one check, not two.
        return list(dict.fromkeys(dimensions))


class SourceScores(BaseModel):
    rule: float | None
    local_model: float | None
    third_party: float | None


class IntimacyResult(BaseModel):
    label: Label
    score: float
    reason: str
    sources: SourceScores
    # Reused from an earlier check of a near-identical text (spec §11), and which one.
    reused: bool
    reused_from: UUID | None = None
    similarity: float | None = None


class Results(BaseModel):
    intimacy: IntimacyResult


class FinalDecision(BaseModel):
    final: Label


class PolicyOut(BaseModel):
    name: Policy
    version: str


class CheckResponse(BaseModel):
    check_id: UUID
    decision: FinalDecision
    results: Results
    policy: PolicyOut
    stage: int
