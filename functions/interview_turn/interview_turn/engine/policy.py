"""The schemas of the interview engine's configuration artifacts (spec: Configuration Artifacts).

Each artifact is a pydantic model; `make interview-schemas` writes their JSON Schemas beside the
artifacts (Appendix A), and a test keeps the two in step. What the spec fixes is enforced here,
so a designer can tune every threshold and template but cannot reorder the router, loosen a
recursion cap or allow more than +1 depth per turn: such a file fails the cold start.
"""

from __future__ import annotations

import re
import string
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from interview_turn.engine.model import SPEC_PRIORITY, Persona

Score = Annotated[float, Field(ge=0, le=1)]
Depth = Annotated[int, Field(ge=0, le=3)]
Version = Annotated[str, Field(min_length=1, max_length=40)]
# Every language the engine speaks needs its own lines; a missing one is a broken artifact.
LANGUAGES = ("en", "zh")
SPEC_RECURSION_CAPS = {"precision_narrowing": 2, "emotional_expansion": 2, "inconsistency_resolution": 1}
SPEC_ROUTES = {
    "safety_override": (Persona.SAFETY_FALLBACK, None),
    "contradiction_resolution": (Persona.LOGIC_CLARIFY, "inconsistency_resolution"),
    "high_emotion": (Persona.EMPATHY_EXPAND, "emotional_expansion"),
    "vagueness": (Persona.PRECISION_NARROW, "precision_narrowing"),
    "default": (Persona.EMPATHY_BASE, None),
}
PLACEHOLDERS = frozenset({"name", "topic", "next_topic", "earlier", "current"})


class _Artifact(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _sealed(info: ValidationInfo) -> bool:
    """The artifact was verified by `make package` (persona_rails.config_seal): compile on first use."""
    return isinstance(info.context, dict) and bool(info.context.get("sealed"))


def _compiles(pattern: str, info: ValidationInfo) -> str:
    if _sealed(info):
        return pattern
    try:
        re.compile(pattern, re.IGNORECASE)
    except re.error as exc:
        raise ValueError(f"not a valid regular expression ({exc})") from None
    return pattern


# Compiled where it is declared, so a bad expression is reported at its own JSON path.
Pattern = Annotated[str, Field(min_length=1, max_length=2000), AfterValidator(_compiles)]


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def _checked_template(template: str) -> str:
    try:
        unknown = _placeholders(template) - PLACEHOLDERS
    except ValueError as exc:
        raise ValueError(f"not a valid template ({exc})") from None
    if unknown:
        raise ValueError(f"unknown placeholder(s) {sorted(unknown)}; allowed: {sorted(PLACEHOLDERS)}")
    return template


Template = Annotated[str, Field(min_length=1, max_length=600)]


class Lines(_Artifact):
    """Alternative lines per language; the engine picks one with the turn's seed."""

    en: list[Template] = Field(min_length=1)
    zh: list[Template] = Field(min_length=1)

    @field_validator("en", "zh")
    @classmethod
    def _templates(cls, lines: list[str]) -> list[str]:
        return [_checked_template(line) for line in lines]

    def for_language(self, language: str) -> list[str]:
        return self.en if language == "en" else self.zh


# router-policy.json


class Thresholds(_Artifact):
    contradiction: Score
    emotion: Score
    vagueness: Score


class Route(_Artifact):
    persona: Persona
    state_machine: str | None


class SessionLimits(_Artifact):
    default_topic_id: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]{0,63}$")
    default_topic_titles: dict[Literal["en", "zh"], str]
    max_turns: int = Field(ge=10, le=5000)
    max_topics: int = Field(ge=1, le=200)
    retry_window_seconds: int = Field(ge=0, le=3600)


class RouterPolicy(_Artifact):
    version: Version
    description: str = ""
    thresholds: Thresholds
    priority: list[str] = Field(json_schema_extra={"const": [rule.value for rule in SPEC_PRIORITY]})
    routes: dict[str, Route] = Field(
        description="Each rule's persona and state machine, as the spec fixes them."
    )
    session: SessionLimits

    @field_validator("priority")
    @classmethod
    def _spec_order(cls, priority: list[str]) -> list[str]:
        expected = [rule.value for rule in SPEC_PRIORITY]
        if priority != expected:
            raise ValueError(f"must be the spec's priority order {expected}")
        return priority

    @field_validator("routes")
    @classmethod
    def _spec_routes(cls, routes: dict[str, Route]) -> dict[str, Route]:
        actual = {rule: (route.persona, route.state_machine) for rule, route in routes.items()}
        if actual != SPEC_ROUTES:
            raise ValueError("must map each rule to the spec's persona and state machine")
        return routes


# depth-governor.json


class Level(_Artifact):
    level: Depth
    name: str
    description: str


class Budget(_Artifact):
    max_depth: Depth
    max_sensitive_depth: Depth
    max_escalations_per_topic: int = Field(ge=0, le=10)

    @model_validator(mode="after")
    def _sensitive_is_deeper(self) -> Budget:
        if self.max_sensitive_depth < self.max_depth:
            raise ValueError("max_sensitive_depth must be at least max_depth")
        return self


class DepthGovernor(_Artifact):
    version: Version
    description: str = ""
    levels: list[Level]
    max_increase_per_turn: Literal[1]
    distress_hard_stop_threshold: Score
    step_sideways_emotion_threshold: Score
    refusal_decrease: int = Field(ge=0, le=3)
    # A topic the plan marks sensitive stays this shallow until the narrator consents.
    sensitive_topic_depth_without_consent: Depth
    default_budget: Budget

    @field_validator("levels")
    @classmethod
    def _four_levels(cls, levels: list[Level]) -> list[Level]:
        if [level.level for level in levels] != [0, 1, 2, 3]:
            raise ValueError("must list the levels 0, 1, 2 and 3 in order")
        return levels


# state-machines.json


class MachineState(_Artifact):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]{0,40}$")
    tactic: str = Field(pattern=r"^[a-z][a-z0-9_]{0,40}$")
    templates: Lines
    # The kinds of fact this state's question asks for: it is skipped when the narrator gave one
    # in this answer or the one before, so the interviewer never asks for what it was just told.
    asks: list[Literal["year", "age", "place", "name"]] = Field(default_factory=list)


class ExitFallback(_Artifact):
    persona: Persona
    tactic: str = Field(pattern=r"^[a-z][a-z0-9_]{0,40}$")
    templates: Lines


class MachineExit(_Artifact):
    when: list[Literal["rule_no_longer_wins", "max_steps", "refusal", "topic_change"]]
    fallback: ExitFallback


class Machine(_Artifact):
    persona: Persona
    entry_rule: str
    max_steps: int = Field(ge=1)
    states: list[MachineState] = Field(min_length=1)
    exit: MachineExit


class StateMachines(_Artifact):
    version: Version
    description: str = ""
    machines: dict[str, Machine]

    @field_validator("machines")
    @classmethod
    def _spec_caps(cls, machines: dict[str, Machine]) -> dict[str, Machine]:
        if set(machines) != set(SPEC_RECURSION_CAPS):
            raise ValueError(f"must define exactly {sorted(SPEC_RECURSION_CAPS)}")
        for name, machine in machines.items():
            cap = SPEC_RECURSION_CAPS[name]
            if machine.max_steps > cap:
                raise ValueError(f"{name}.max_steps is capped at {cap} by the spec")
            if len(machine.states) < machine.max_steps:
                raise ValueError(f"{name} needs one state per step ({machine.max_steps})")
            if machine.persona != SPEC_ROUTES[machine.entry_rule][0]:
                raise ValueError(f"{name}.persona must be the persona of its entry rule")
        return machines


# negative-constraints.json


class Constraint(_Artifact):
    id: str = Field(pattern=r"^[A-Z]{2}-[A-Z]+-\d{2}$")
    failure_mode: Literal[
        "diagnostic_language", "coercive_disclosure", "leading_trauma_assumption", "accusatory_contradiction"
    ]
    instruction: str = Field(min_length=1, max_length=400)
    applies_to: list[Persona] = Field(min_length=1)
    patterns: list[Pattern] = Field(min_length=1)
    fallback: str


class Monologue(_Artifact):
    id: str
    failure_mode: Literal["monologue"]
    instruction: str
    max_response_tokens: int = Field(ge=20, le=1000)
    max_sentences: int = Field(ge=1, le=20)
    fallback: str


class QuestionDensity(_Artifact):
    id: str
    instruction: str
    max_questions: int = Field(ge=1, le=5)
    max_question_tokens_mean: int = Field(ge=5, le=200)
    fallback: str


class TherapyFraming(_Artifact):
    id: str
    instruction: str
    patterns: list[Pattern] = Field(min_length=1)
    fallback: str


class HardStopLines(_Artifact):
    stop_request: Lines
    acute_distress: Lines
    self_harm: Lines


class NegativeConstraints(_Artifact):
    version: Version
    description: str = ""
    constraints: list[Constraint]
    monologue: Monologue
    question_density: QuestionDensity
    therapy_framing: TherapyFraming
    fallbacks: dict[str, Lines]
    deescalate: Lines
    # The answer to a request to slow down or pause.
    pause: Lines
    redirect: Lines
    step_sideways: Lines
    hard_stops: HardStopLines
    # Per locale ("en-US", "zh-CN"), falling back to the language ("en", "zh"), which must exist.
    crisis_guidance: dict[str, Annotated[str, Field(min_length=1, max_length=400)]]

    @model_validator(mode="after")
    def _complete(self) -> NegativeConstraints:
        modes = {constraint.failure_mode for constraint in self.constraints}
        missing_modes = {
            "diagnostic_language",
            "coercive_disclosure",
            "leading_trauma_assumption",
            "accusatory_contradiction",
        } - modes
        if missing_modes:
            raise ValueError(f"constraints must cover {sorted(missing_modes)}")
        named = [c.fallback for c in self.constraints] + [
            self.monologue.fallback,
            self.question_density.fallback,
            self.therapy_framing.fallback,
        ]
        unknown = sorted(set(named) - set(self.fallbacks))
        if unknown:
            raise ValueError(f"fallbacks {unknown} are named but not defined")
        ids = [c.id for c in self.constraints] + [
            self.monologue.id,
            self.question_density.id,
            self.therapy_framing.id,
        ]
        if len(set(ids)) != len(ids):
            raise ValueError("rule ids must be unique")
        if not set(LANGUAGES) <= set(self.crisis_guidance):
            raise ValueError(f"crisis_guidance needs an entry for each language {list(LANGUAGES)}")
        return self


# persona-profiles.json


class Verbosity(_Artifact):
    target_response_tokens: int = Field(ge=1, le=500)
    max_response_tokens: int = Field(ge=1, le=1000)
    mean_question_tokens: int = Field(ge=1, le=200)


class Softener(_Artifact):
    text: str = Field(min_length=1, max_length=80)
    language: Literal["en", "zh"]
    tags: list[str]


class PersonaProfile(_Artifact):
    summary: str
    style: str = Field(min_length=1, max_length=600)
    verbosity: Verbosity
    sentence_types: dict[str, Score]
    softeners: list[Softener]
    tactics: dict[str, Lines]

    @field_validator("sentence_types")
    @classmethod
    def _distribution(cls, types: dict[str, float]) -> dict[str, float]:
        if abs(sum(types.values()) - 1) > 0.01:
            raise ValueError("sentence type shares must add up to 1")
        return types


BASE_TACTICS = ("warm_open", "narrative_facilitation", "invite_reflection", "sensitive_with_consent")


class PersonaProfiles(_Artifact):
    version: Version
    description: str = ""
    personas: dict[Persona, PersonaProfile]

    @field_validator("personas")
    @classmethod
    def _every_persona(cls, personas: dict[Persona, PersonaProfile]) -> dict[Persona, PersonaProfile]:
        missing = sorted(set(Persona) - set(personas))
        if missing:
            raise ValueError(f"missing personas {missing}")
        absent = sorted(set(BASE_TACTICS) - set(personas[Persona.EMPATHY_BASE].tactics))
        if absent:
            raise ValueError(f"EMPATHY_BASE needs the tactics {absent}")
        return personas


# signal-lexicon.json


class WeightedPattern(_Artifact):
    pattern: Pattern
    weight: Score


Patterns = Annotated[list[Pattern], Field(min_length=1)]


class HardStopPatterns(_Artifact):
    self_harm: Patterns
    acute_distress: Patterns
    stop_request: Patterns


class FactPatterns(_Artifact):
    anchors: dict[str, list[Pattern]]
    # Life events that happen more than once (moves, jobs, schools): two dates are no conflict.
    repeatable_anchors: list[str]
    # Whose event a sentence tells; "self" is the narrator, the default; "other" (he, she, a first
    # name) is someone who cannot be told apart, whose events are never compared.
    subjects: dict[str, list[Pattern]]
    year: Patterns
    age: Patterns
    place: Patterns
    name: Patterns
    place_stopwords: list[str]


class ExtractorThresholds(_Artifact):
    elaboration_min_tokens: int = Field(ge=1)
    elaboration_min_specifics: int = Field(ge=1)
    short_answer_tokens: int = Field(ge=1)
    correction_discount: Score
    max_facts_per_topic: int = Field(ge=1, le=200)


class SignalLexicon(_Artifact):
    version: Version
    description: str = ""
    hard_stops: HardStopPatterns
    # A stop phrase right after one of these ("I don't want to stop", 不想停) is not a stop.
    negation_before: Patterns
    # Read right after a pause or stop phrase: the narrator repeats an offer and declines it
    # ("Take a break? No, no, go on.", 歇会儿？不用不用). Optional: a lexicon without it declines none.
    declined_after: list[Pattern] = Field(default_factory=list)
    refusal: Patterns
    discomfort: Patterns
    # A request to slow down or pause ("Could we take a break?", 慢一点好吗？): de-escalates.
    pacing: Patterns
    # A return named ("tomorrow", "next time", 明天再聊): a stop request naming one that the signal
    # model reads as a pause is a pause ("Let's stop here for today, tomorrow we go on").
    resumption: Patterns
    # The narrator asks to go on ("I don't want to stop", "keep going", 我不想停): a stop request
    # only the signal model reads counts for none. Optional: a lexicon without it keeps them all.
    keep_going: list[Pattern] = Field(default_factory=list)
    # The narrator asks to carry on now ("so let's just continue", 我们接着聊吧): a pause only the
    # signal model reads counts for none. Optional, as `keep_going`.
    go_on: list[Pattern] = Field(default_factory=list)
    topic_change: Patterns
    hedges: Patterns
    emotion: list[WeightedPattern]
    intensifiers: Patterns
    elaboration: Patterns
    reflection: Patterns
    correction: Patterns
    specifics: Patterns
    facts: FactPatterns
    thresholds: ExtractorThresholds

    @model_validator(mode="after")
    def _known_anchors_and_subjects(self) -> SignalLexicon:
        unknown = sorted(set(self.facts.repeatable_anchors) - set(self.facts.anchors))
        if unknown:
            raise ValueError(f"facts.repeatable_anchors names unknown anchors {unknown}")
        if "self" not in self.facts.subjects:
            raise ValueError("facts.subjects needs a 'self' entry (the narrator)")
        return self

    @model_validator(mode="after")
    def _one_group_per_fact_pattern(self, info: ValidationInfo) -> SignalLexicon:
        if _sealed(info):
            return self
        for kind, patterns in (
            ("age", self.facts.age),
            ("year", self.facts.year),
            ("place", self.facts.place),
            ("name", self.facts.name),
        ):
            for pattern in patterns:
                if re.compile(pattern).groups != 1:
                    raise ValueError(f"facts.{kind}: each pattern captures exactly one group ({pattern!r})")
        return self
