"""Request and response bodies of the interview routes.

The turn response is the spec's turn output contract, field for field, plus `signals`, the
`winning_rule` and a `turn` block (its id for `rails replay`, its number, the session's status
and the config version that produced it).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, field_validator

from interview_turn.engine.model import Language, Persona, Phase, SafetyAction
from persona_rails.text import user_text

ANSWER_MAX_CHARS = 4000
MAX_PLANNED_TOPICS = 20

if TYPE_CHECKING:
    Answer = str
    NarratorName = str
    TopicTitle = str
else:
    Answer = user_text(1, ANSWER_MAX_CHARS)
    NarratorName = user_text(1, 60)
    TopicTitle = user_text(1, 120)

TopicId = Annotated[
    str,
    Field(
        pattern=r"^[a-z0-9][a-z0-9_-]{0,63}$", description="A slug: lowercase letters, digits, `_` and `-`."
    ),
]
Locale = Annotated[
    str,
    Field(
        pattern=r"^[a-z]{2}(-[A-Z]{2})?$",
        description="Where the narrator is, for crisis guidance (`en-US`, `zh-CN`); "
        "defaults to the language's.",
    ),
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Narrator(_Strict):
    display_name: NarratorName


class PlannedTopic(_Strict):
    topic_id: TopicId
    title: TopicTitle
    sensitive: StrictBool = Field(
        default=False,
        description="Touches the sensitive core (grief, illness, conflict): stays at the narrative level "
        "until the narrator consents to sensitive topics.",
    )
    max_depth: StrictInt | None = Field(
        default=None, ge=0, le=3, description="Tightens the default depth budget."
    )
    max_escalations: StrictInt | None = Field(
        default=None, ge=0, le=10, description="Tightens the escalation budget."
    )


class SessionConsent(_Strict):
    sensitive_topics: StrictBool = Field(
        default=False, description="Allows depth 3 (the sensitive core) up to `max_sensitive_depth`."
    )


class StartSessionRequest(_Strict):
    user_id: UUID | None = Field(default=None, description="The narrator a service-role caller acts for.")
    narrator: Narrator
    language: Language
    locale: Locale | None = None
    topic_plan: list[PlannedTopic] = Field(default_factory=list, max_length=MAX_PLANNED_TOPICS)
    consent: SessionConsent = Field(default_factory=SessionConsent)

    @field_validator("topic_plan")
    @classmethod
    def _unique_topics(cls, plan: list[PlannedTopic]) -> list[PlannedTopic]:
        ids = [topic.topic_id for topic in plan]
        if len(set(ids)) != len(ids):
            raise ValueError("topic ids must be unique")
        return plan


class TurnConsent(_Strict):
    go_deeper: StrictBool = Field(
        default=False, description="Explicit consent to go one level deeper on this turn."
    )
    sensitive_topics: StrictBool | None = Field(
        default=None, description="Grant (true) or withdraw (false) the session's sensitive-topics consent."
    )


class TurnRequest(_Strict):
    user_text: Answer
    topic_id: TopicId | None = None
    consent: TurnConsent | StrictBool | None = Field(
        default=None, description='`true` is shorthand for `{"go_deeper": true}`.'
    )

    def turn_consent(self) -> TurnConsent:
        if isinstance(self.consent, bool):
            return TurnConsent(go_deeper=self.consent)
        return self.consent or TurnConsent()


class Metrics(BaseModel):
    model_config = ConfigDict(extra="forbid")

    response_tokens: int
    question_count: int
    question_tokens_mean: float


class TurnContract(BaseModel):
    """The spec's Turn Output Contract, exactly."""

    model_config = ConfigDict(extra="forbid")

    persona_used: Persona
    topic_id: str
    conversation_phase: Phase
    depth_level_before: int = Field(ge=0, le=3)
    depth_level_after: int = Field(ge=0, le=3)
    tactic_used: str
    loop_state: str | None
    safety_action: SafetyAction
    metrics: Metrics
    response_text: str


class Contradiction(BaseModel):
    kind: Literal["year", "age", "place", "name"]
    anchor: str
    earlier: str
    current: str
    earlier_turn: int


class SignalsOut(BaseModel):
    vagueness_score: float = Field(ge=0, le=1)
    emotion_score: float = Field(ge=0, le=1)
    contradiction_score: float = Field(ge=0, le=1)
    refusal_or_discomfort: bool
    conversation_phase: Phase
    user_initiated_elaboration: bool
    topic_id: str
    prior_depth_level: int
    hard_stop: Literal["stop_request", "acute_distress", "self_harm"] | None
    topic_change_requested: bool
    contradiction: Contradiction | None


WinningRule = Literal["safety_override", "contradiction_resolution", "high_emotion", "vagueness", "default"]
SessionStatus = Literal["open", "closed"]


class TurnMeta(BaseModel):
    turn_id: UUID = Field(
        description="Also the id of its decision record: `rails replay InterviewTurnFunction ID`."
    )
    turn_no: int
    session_id: UUID
    session_status: SessionStatus
    config_version: str
    source: Literal["llm", "offline"]
    created_at: datetime


class TurnResponse(TurnContract):
    signals: SignalsOut
    winning_rule: WinningRule
    turn: TurnMeta


class SessionStarted(BaseModel):
    session_id: UUID
    status: SessionStatus
    narrator: Narrator
    language: Language
    locale: str | None
    topic_plan: list[PlannedTopic]
    consent: SessionConsent
    topic_id: str
    opening: TurnContract
    opening_turn: TurnMeta
    created_at: datetime


class TopicOut(BaseModel):
    topic_id: str
    depth_level: int
    escalations: int
    facts: int = Field(description="How many checkable facts (years, ages, places, names) are noted.")


class LoopOut(BaseModel):
    machine: str
    steps: int


class SessionStateOut(BaseModel):
    topic_id: str
    depth_level: int
    turn_count: int
    last_turn_increased_depth: bool
    loop: LoopOut | None
    sensitive_consent: bool
    topics: list[TopicOut]


class HistoryTurn(TurnContract):
    turn_no: int
    turn_id: UUID
    user_text: str | None
    signals: SignalsOut | None
    winning_rule: Literal[WinningRule, "opening"]
    depth_decision: Literal["increase", "hold", "decrease"]
    depth_reason: str
    violated_rule_ids: list[str]
    source: Literal["llm", "offline"]
    config_version: str
    created_at: datetime


class SessionOut(BaseModel):
    session_id: UUID
    status: SessionStatus
    closed_reason: Literal["stop_request", "acute_distress", "self_harm"] | None
    narrator: Narrator
    language: Language
    locale: str | None
    topic_plan: list[PlannedTopic]
    state: SessionStateOut
    turns: list[HistoryTurn]
    created_at: datetime
    closed_at: datetime | None
