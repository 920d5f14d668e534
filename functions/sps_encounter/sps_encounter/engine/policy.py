"""The engine's own artifacts: the language lexicons, the numbers of the rules, and the
baseline interaction rules (`GOLD_STANDARD_SPS_INSTRUCTIONS`). The spec's numbers are enforced
here: a file that changes one fails the cold start."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from sps_encounter.engine.case import Guardrail, Id, Language, Line, Lines, Pattern, Patterns, Version


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EmpathyCue(_Model):
    id: Id
    pattern: Pattern


class LanguageLexicon(_Model):
    """How learner and patient turns are read in one language."""

    narrative: Patterns = Field(description="Narrative prompts ('tell me about…'): elaboration-eligible.")
    open: Patterns = Field(description="Open questions (what, how, why…): elaboration-eligible.")
    closed: Patterns = Field(description="Yes/no questions; anything unmatched is closed too.")
    opening: Patterns = Field(description="'What brings you in today?'")
    empathy: Annotated[list[EmpathyCue], Field(min_length=2)] = Field(
        description="Reflection patterns; two distinct ones upgrade rapport."
    )
    dismissive: Patterns = Field(description="Dismissive interruptions; two degrade rapport.")
    vague: Patterns = Field(description="Prompts too vague to answer ('anything else?').")
    identity: Patterns = Field(description="Identity requests: name, date of birth.")
    reask: Patterns = Field(
        description="After a DOB challenge, what makes the next turn a clear re-ask even without "
        "naming the date of birth again ('it's hospital policy', 'so we don't mix you up')."
    )
    age: Patterns = Field(description="'How old are you?'")
    age_answers: Lines = Field(
        description="The default answers to it, {age} filled in from the demographics."
    )
    measurement: Patterns = Field(description="The learner measuring or examining.")
    role_question: Patterns = Field(
        description="The learner asking whether the patient is an actor, a real patient or part of an "
        "exam ('Are you an actor?'): the patient stays in role."
    )
    role_answers: Lines = Field(description="What the patient says to a role question, in role.")
    unsafe_requests: list[Guardrail] = Field(
        default_factory=list,
        description="Requests no patient of any case goes along with (take a tablet now, skip the "
        "examination and say today's readings, read another patient's notes): guardrails of every case, "
        "beside the scenario's own.",
    )
    reframe: Patterns = Field(description="The learner rephrasing ('I mean…').")
    diagnosis_coaching: Patterns = Field(description="Diagnosis or coaching a patient must never say.")
    clarification: Patterns = Field(description="A patient asking what the learner means.")
    refusal: Patterns = Field(description="A patient declining.")
    measured_number: Pattern = Field(description="A number with a unit of measurement.")
    disfluency_tokens: Annotated[
        list[Annotated[str, Field(min_length=1, max_length=12)]], Field(min_length=1)
    ]
    function_words: Annotated[
        list[Annotated[str, Field(min_length=1, max_length=20)]], Field(min_length=1)
    ] = Field(
        description="Words (Chinese: characters) that carry no fact; the LLM check ignores them when "
        "it looks for content the case does not hold."
    )
    number_words: list[Annotated[str, Field(min_length=1, max_length=20)]] = Field(
        default_factory=list,
        description="Numbers written out ('ninety'): a value the LLM may not invent either.",
    )
    fillers: Annotated[list[Annotated[str, Field(min_length=1, max_length=12)]], Field(min_length=1)] = Field(
        description="Left-trimmed by anti-echo when a repeated opening persists ('Well,', 'So,')."
    )
    conditions: list[Annotated[str, Field(min_length=1, max_length=30)]] = Field(
        default_factory=list,
        description="Conditions and medicines ('diabetes', '糖尿病'): an LLM reply naming one that the "
        "answer's own material does not is refused, however short the addition ('…and I have diabetes').",
    )
    affirmatives: list[Annotated[str, Field(min_length=1, max_length=12)]] = Field(
        default_factory=list,
        description="Openers that say yes ('Yes,', 'Okay,', '好的，'): never put before a negative answer or "
        "a refusal, where they would contradict it ('Yes, I don't feel feverish').",
    )
    negation: Patterns = Field(
        description="What makes an answer negative (not, never, n't; 不, 没): an affirmative opener "
        "does not go before it."
    )


class Lexicon(_Model):
    version: Version
    languages: dict[Language, LanguageLexicon]

    @model_validator(mode="after")
    def _every_language(self) -> Lexicon:
        missing = sorted(set(Language) - set(self.languages))
        if missing:
            raise ValueError(f"languages: missing {', '.join(missing)}")
        return self


class ElaborationPolicy(_Model):
    brief: float
    balanced: float
    talkative: float
    clamp: float = Field(description="At most this share of eligible turns elaborate, over the transcript.")

    @model_validator(mode="after")
    def _spec(self) -> ElaborationPolicy:
        if (self.brief, self.balanced, self.talkative, self.clamp) != (0.25, 0.40, 0.55, 0.40):
            raise ValueError("the spec fixes brief 0.25, balanced 0.40, talkative 0.55 and the clamp at 0.40")
        return self


class RapportPolicy(_Model):
    empathy_cues_to_upgrade: int
    dismissals_to_degrade: int
    cooldown_turns: int
    multipliers: dict[str, float]
    emotional_adjectives: dict[str, Annotated[int, Field(ge=0, le=5)]]

    @model_validator(mode="after")
    def _spec(self) -> RapportPolicy:
        if (self.empathy_cues_to_upgrade, self.dismissals_to_degrade, self.cooldown_turns) != (2, 2, 2):
            raise ValueError("the spec fixes 2 empathy cues, 2 dismissals and a cooldown of 2 turns")
        if self.multipliers != {"guarded": 0.9, "neutral": 1.0, "open": 1.1}:
            raise ValueError("multipliers: the spec fixes guarded 0.9, neutral 1.0, open 1.1")
        if set(self.emotional_adjectives) != {"guarded", "neutral", "open"}:
            raise ValueError("emotional_adjectives: one allowance per rapport level")
        return self


class ValidatorPolicy(_Model):
    elaboration_warn_rate: float
    vague_prompts_before_info: int
    max_disfluencies_per_turn: int

    @model_validator(mode="after")
    def _spec(self) -> ValidatorPolicy:
        if (self.elaboration_warn_rate, self.vague_prompts_before_info, self.max_disfluencies_per_turn) != (
            0.45,
            5,
            1,
        ):
            raise ValueError("the spec fixes the 45% elaboration warning, >5 vague prompts and 1 disfluency")
        return self


class Policy(_Model):
    version: Version
    window: int = Field(description="Rotating windows: clarifications, boundaries, openers.")
    misunderstanding_gap_turns: int
    hesitation_gap_turns: Annotated[int, Field(ge=0, le=10)] = Field(
        description="Patient turns between two disfluencies."
    )
    max_slots_per_answer: Annotated[int, Field(ge=1, le=5)]
    elaboration: ElaborationPolicy
    rapport: RapportPolicy
    validator: ValidatorPolicy
    encounter_ttl_minutes: Annotated[int, Field(ge=5, le=1440)]
    retry_window_seconds: Annotated[int, Field(ge=0, le=60)]

    @model_validator(mode="after")
    def _spec(self) -> Policy:
        if self.window != 3 or self.misunderstanding_gap_turns != 3:
            raise ValueError("the spec fixes the rotating window at 3 and one misunderstanding per 3 turns")
        return self


class GoldRule(_Model):
    id: Id
    text: Line


class GoldStandard(_Model):
    """GOLD_STANDARD_SPS_INSTRUCTIONS: the baseline rules (precedence layer 5), per language."""

    version: Version
    rules: dict[Language, Annotated[list[GoldRule], Field(min_length=1, max_length=40)]]
