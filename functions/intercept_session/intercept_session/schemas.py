"""Request and response bodies of the interception routes (separate models, as in the FastAPI template)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Annotated, Literal
from uuid import UUID

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    StringConstraints,
    ValidationInfo,
    field_validator,
)

from intercept_session.engine.model import (
    Category,
    Decision,
    RecommendedAction,
    Source,
    State,
    Trigger,
    Verdict,
)
from intercept_session.personas import personas
from persona_rails.text import PrintableText, user_text

COUNTDOWN_SECONDS = 20
REASON_MIN_CHARS = 10
REASON_MAX_CHARS = 200
# Every body of these routes fits in a few hundred bytes; 16 KB leaves room and refuses junk.
MAX_BODY_BYTES = 16 * 1024
# How far a start's `timestamp` may be from the server clock: a phone's clock drifts, a replayed
# or invented payload from another day does not belong.
TIMESTAMP_TOLERANCE = timedelta(hours=24)
RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})")


if TYPE_CHECKING:
    UserText = str
else:
    UserText = user_text(REASON_MIN_CHARS, REASON_MAX_CHARS)
Name = PrintableText


class StartSessionRequest(BaseModel):
    """The spec's trigger payload, every field required, plus an optional client session_id for
    idempotent retries. Unknown fields are refused (422 naming them), and bodies over
    MAX_BODY_BYTES never get here (413)."""

    model_config = ConfigDict(extra="forbid")

    session_id: UUID | None = None
    user_id: UUID
    rule_id: UUID
    app_identifier: Annotated[Name, StringConstraints(strip_whitespace=True, min_length=1, max_length=255)]
    app_display_name: Annotated[Name, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]
    trigger: Trigger
    timestamp: AwareDatetime = Field(
        description="RFC 3339 with a UTC offset (e.g. 2026-11-23T09:30:00+08:00), within 24 hours of the "
        "server clock; the offset is the user's local time"
    )
    # The valid keys are the personas config's: listed in the OpenAPI document, checked below.
    persona_key: Name = Field(
        max_length=64, json_schema_extra=lambda schema: schema.update(enum=list[JsonValue](personas().keys))
    )
    # Client hints, required by the contract: stored for comparison, never used to grant anything.
    streak: int = Field(ge=0, le=100_000, strict=True)
    override_count_today: int = Field(ge=0, le=10_000, strict=True)

    @field_validator("persona_key")
    @classmethod
    def _known_persona(cls, key: str) -> str:
        keys = personas().keys
        if key not in keys:
            # The key is not echoed back: it is the client's input, whatever it contains.
            raise ValueError(f"unknown persona_key; valid keys: {', '.join(keys)}")
        return key

    @field_validator("timestamp", mode="before")
    @classmethod
    def _rfc3339_text_only(cls, value: object) -> object:
        # A number (or a numeric string) would parse as seconds since 1970; a phone never means that.
        if not isinstance(value, str) or not RFC3339.fullmatch(value):
            raise ValueError(
                "timestamp must be an RFC 3339 string with a UTC offset, e.g. 2026-11-23T09:30:00+08:00"
            )
        return value

    @field_validator("timestamp")
    @classmethod
    def _real_utc_offset(cls, value: datetime) -> datetime:
        # Only the offset matters to the server: the user's local day is the server clock at it.
        offset = value.utcoffset() or timedelta(0)
        if not timedelta(hours=-12) <= offset <= timedelta(hours=14):
            raise ValueError("UTC offset must be between -12:00 and +14:00")
        return value


class ReasonRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason_text: UserText


class AppealRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    appeal_text: UserText


class DecisionRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user_decision: Decision
    accepted_delay: bool = Field(default=False, strict=True)
    auto_dismissed: bool = Field(default=False, validate_default=True, strict=True)
    emergency_reason: Annotated[
        Name | None, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)
    ] = Field(default=None, validate_default=True)

    @field_validator("emergency_reason", mode="before")
    @classmethod
    def _blank_is_no_reason(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("auto_dismissed")
    @classmethod
    def _auto_dismiss_means_comply(cls, value: bool, info: ValidationInfo) -> bool:
        if value and info.data.get("user_decision") not in (None, Decision.COMPLY):
            raise ValueError("auto_dismissed is only valid with user_decision 'comply'")
        return value

    @field_validator("emergency_reason")
    @classmethod
    def _reason_only_for_emergencies(cls, value: str | None, info: ValidationInfo) -> str | None:
        # Optional even for an emergency: nobody should have to type while the house burns.
        decision = info.data.get("user_decision")
        if decision not in (None, Decision.EMERGENCY) and value is not None:
            raise ValueError("emergency_reason is only valid with user_decision 'emergency'")
        return value


class PersonaOut(BaseModel):
    key: str
    display_name: str
    avatar_asset_key: str
    version: int


class AttemptCounts(BaseModel):
    """The server's own counts, from stored sessions: what the app shows as feedback."""

    opens_today: int = Field(description="dialogs started for this app today (local day), this one included")
    overrides_today: int
    streak_days: int = Field(description="consecutive days without an override")
    emergencies_this_week: int = Field(description="emergency unlocks this ISO week (local time)")
    emergency_allowance: int = Field(description="emergency unlocks per week before they are flagged")


class SessionStarted(BaseModel):
    session_id: UUID
    persona: PersonaOut
    challenge_message: str
    countdown_seconds: int = COUNTDOWN_SECONDS
    state: State
    override_allowed: bool = Field(
        default=True, description="false when the rule disables overrides for its blocked window"
    )
    emergency_over_allowance_notice: bool = Field(
        default=False,
        description="the challenge tells the user their last emergency unlock went past the allowance",
    )
    counts: AttemptCounts


class StillUnlocked(BaseModel):
    """A start inside an unlock window: no dialog, the app stays open."""

    state: Literal["unlocked"] = "unlocked"
    unlocked_until: datetime
    counts: AttemptCounts


class StillDelayed(BaseModel):
    """A start before an accepted delay ended: no dialog, come back at retry_after."""

    state: Literal["delayed"] = "delayed"
    retry_after: datetime
    seconds_left: int
    message: str
    persona: PersonaOut
    counts: AttemptCounts


StartAnswer = SessionStarted | StillUnlocked | StillDelayed


class TurnResult(BaseModel):
    model_config = ConfigDict(use_enum_values=True)

    session_id: UUID
    turn_no: int
    ai_verdict: Verdict
    confidence: float
    reason_category: Category
    persona_response: str
    recommended_action: RecommendedAction
    verdict_badge: Literal["red", "amber", "green"]
    delay_minutes: int | None
    emergency: bool
    emergency_suggested: bool = Field(
        description="the reason may be an emergency: the reply points to the emergency button, "
        "which unlocks at once (show it prominently)"
    )
    appeal_used: bool
    can_appeal: bool
    state: State
    source: Source


class DecisionResult(BaseModel):
    session_id: UUID
    state: State
    user_decision: Decision
    final_verdict: Verdict | None
    accepted_delay: bool
    auto_dismissed: bool
    emergency: bool
    closed_at: datetime
    abandoned: bool = Field(
        description="closed by the server: the app left the dialog open past its countdown"
    )
    unlock_kind: Literal["allow", "override", "emergency"] | None
    unlocked_until: datetime | None = Field(
        description="the app is unlocked until then (allow, override, emergency)"
    )
    retry_after: datetime | None = Field(
        description="an accepted delay: a start before then answers 'delayed'"
    )
    emergency_over_allowance: bool
    message: str | None = Field(default=None, description="the persona's word on an emergency unlock")


class SessionOut(BaseModel):
    session_id: UUID
    state: State
    persona: PersonaOut
    challenge_message: str
    countdown_seconds: int = COUNTDOWN_SECONDS
    override_allowed: bool = True
    app_identifier: str
    app_display_name: str
    trigger: Trigger
    evaluation_turns: int
    can_appeal: bool
    turns: list[TurnResult]
    decision: DecisionResult | None
    created_at: datetime
