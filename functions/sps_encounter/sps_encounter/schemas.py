"""Request and response bodies of the SPS routes.

A patient turn answers the spec's `{text, meta}` (§13), with the turn's id (its decision record:
`rails replay SpsEncounterFunction ID`), its indexes and the runtime state after it. A
transcript is §11's input format, and `GET /sps/encounters/{id}` returns one ready to post to
`/sps/validate`.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, field_validator, model_validator

from persona_rails.text import printable

if TYPE_CHECKING:
    LearnerText = str
    TranscriptText = str
else:
    from persona_rails.text import user_text

    LearnerText = user_text(1, 2000)
    TranscriptText = user_text(0, 4000)

SEED_MAX = 0xFFFFFFFF
MAX_TRANSCRIPT_TURNS = 20_000
# Number.MAX_SAFE_INTEGER: transcripts come from TypeScript systems too.
MAX_TURN_INDEX = 2**53 - 1
# Validation stays well inside the function's timeout: about 1 s for this much text.
MAX_TRANSCRIPT_CHARS = 2_000_000
CatalogId = Annotated[
    str, Field(pattern=r"^[a-z][a-z0-9_-]{0,63}$", description="A catalog id (GET /sps/scenarios).")
]
Document = Annotated[
    dict[str, Any],
    Field(
        description="An inline document, validated against its JSON Schema (config/schemas/); "
        "errors name the path."
    ),
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _exactly_one(model: BaseModel, catalog: str, inline: str, *, required: bool) -> None:
    given = [name for name in (catalog, inline) if getattr(model, name) is not None]
    if len(given) > 1:
        raise ValueError(f"give {catalog} or {inline}, not both")
    if required and not given:
        raise ValueError(f"{catalog} (a catalog id) or {inline} (an inline document) is required")


class CaseChoice(_Strict):
    scenario_id: CatalogId | None = None
    scenario: Document | None = None
    persona_id: CatalogId | None = Field(
        default=None, description="Defaults to the scenario's default persona."
    )
    persona: Document | None = None

    @model_validator(mode="after")
    def _one_each(self) -> CaseChoice:
        _exactly_one(self, "scenario_id", "scenario", required=True)
        _exactly_one(self, "persona_id", "persona", required=False)
        return self


class StartEncounterRequest(CaseChoice):
    seed: Annotated[StrictInt, Field(ge=1, le=SEED_MAX)] | None = Field(
        default=None,
        description="xorshift32 seed, 1 to 4294967295 (0 is rejected: xorshift32 never leaves it). "
        "Omitted: a random one, returned. The same seed, case and learner turns replay identically.",
    )
    user_id: UUID | None = Field(default=None, description="The learner a service-role caller acts for.")


class CaseRef(BaseModel):
    id: str
    source: Literal["catalog", "inline"]
    version: str = Field(description="`version+hash` of the document the encounter runs.")


class ScenarioRef(CaseRef):
    title: str
    specialty: str
    language: str
    learner_brief: str


class PersonaRef(CaseRef):
    label: str
    verbosity: str


class EncounterOut(BaseModel):
    encounter_id: UUID
    scenario: ScenarioRef
    persona: PersonaRef
    seed: int
    state: dict[str, Any] | None = Field(description="SPSRuntimeState (spec §2); null once expired.")
    turn_index: int = Field(description="The next utterance's turnIndex.")
    expires_at: datetime = Field(description="Renewed by every turn; an expired encounter takes no turns.")
    expired: bool
    created_at: datetime


class TurnRequest(_Strict):
    learner_text: LearnerText


class PatientTurnOut(BaseModel):
    text: str
    meta: dict[str, Any] = Field(description="Every variation decision and RNG draw of this turn.")
    turn_id: UUID = Field(description="The turn's decision record: rails replay SpsEncounterFunction ID")
    learner_turn_index: int
    patient_turn_index: int
    state: dict[str, Any] = Field(description="SPSRuntimeState after the turn.")
    expires_at: datetime


def _clean(value: Any) -> None:
    """Storable as Postgres jsonb: printable text, and finite numbers (Python's JSON parser takes
    NaN and Infinity, which JSON, and so jsonb, has not)."""
    if isinstance(value, str):
        printable(value.replace("\n", " ").replace("\t", " "))
    elif isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{value} is not a JSON number")
    elif isinstance(value, dict):
        for key, item in value.items():
            _clean(key)
            _clean(item)
    elif isinstance(value, list):
        for item in value:
            _clean(item)


class TranscriptTurn(BaseModel):
    """A turn of §11: `{turnIndex, role, text, meta?: any}`. Transcripts come from other systems
    too: keys a turn carries beyond these (`timestamp`, `speaker`…) are accepted and dropped, and
    `meta` may be of any type (the validator reads it only when it is this runtime's). Turn
    indexes are JavaScript safe integers (at most 2**53 - 1)."""

    model_config = ConfigDict(extra="ignore")

    turnIndex: Annotated[StrictInt, Field(ge=0, le=MAX_TURN_INDEX)]
    role: Literal["learner", "patient"]
    text: TranscriptText
    meta: Any = None

    @field_validator("meta")
    @classmethod
    def _storable(cls, meta: Any) -> Any:
        _clean(meta)
        return meta


class EncounterDetail(EncounterOut):
    transcript: list[TranscriptTurn] = Field(description="§11's format: post it to /sps/validate as is.")


class ValidateRequest(CaseChoice):
    transcript: Annotated[list[TranscriptTurn], Field(max_length=MAX_TRANSCRIPT_TURNS)] = Field(
        description=f"At most {MAX_TRANSCRIPT_TURNS:,} turns and {MAX_TRANSCRIPT_CHARS:,} characters of text."
    )
    store: StrictBool = Field(default=False, description="Keep the result (it is not stored otherwise).")
    user_id: UUID | None = Field(default=None, description="The learner a service-role caller acts for.")

    @field_validator("transcript")
    @classmethod
    def _bounded(cls, transcript: list[TranscriptTurn]) -> list[TranscriptTurn]:
        total = sum(len(turn.text) for turn in transcript)
        if total > MAX_TRANSCRIPT_CHARS:
            raise ValueError(
                f"holds {total:,} characters of text, over {MAX_TRANSCRIPT_CHARS:,}: validate it in parts, "
                "or in-process with validateTranscript"
            )
        return transcript


class Issue(BaseModel):
    severity: Literal["ERROR", "WARN", "INFO"]
    code: str
    turnIndex: int
    message: str
    details: Any | None = None


class DuplicationScores(BaseModel):
    openers: float = Field(description="Share of patient turns opening with the previous turn's bigram.")
    clarifications: float = Field(description="Share of clarifications repeating one of the last 3.")


class IssueCounts(BaseModel):
    errors: int
    warnings: int
    info: int


class SummaryMetrics(BaseModel):
    issueCounts: IssueCounts = Field(
        description="Every issue found; each list holds the first 1,000 of its severity."
    )
    totalPatientTurns: int
    avgSentencesPerTurn: float
    elaborationRate: float = Field(description="Elaborated share of eligible (open or narrative) turns.")
    clarificationRate: float
    refusalCount: int
    unsafeRequests: int
    agendaRevealCount: int
    duplicationScores: DuplicationScores


class ValidationResult(BaseModel):
    errors: list[Issue]
    warnings: list[Issue]
    info: list[Issue]
    summaryMetrics: SummaryMetrics
    validation_id: UUID | None = Field(default=None, description="Set when the result was stored.")


class ScenarioSummary(BaseModel):
    id: str
    version: str
    title: str
    specialty: str
    language: str
    learner_brief: str
    default_persona: str
    personas: list[str] = Field(description="The catalog personas that can play it (same language).")


class PersonaSummary(BaseModel):
    id: str
    version: str
    label: str
    language: str
    tone: str
    verbosity: str


class Catalog(BaseModel):
    scenarios: list[ScenarioSummary]
    personas: list[PersonaSummary]
