"""The scenario and persona model: the JSON a case author writes, validated strictly.

A scenario is the case: who the patient is, what they present with, every fact a learner can
ask for (the subjective catalog), every measurement (the objective catalog) and examination
(objective scripts), what the patient must never do (guardrails, objective guardrails,
contraindications), and the case's one-off behaviours (hidden agenda, DOB challenge,
misunderstandings). A persona is how the patient talks: tone, verbosity, quirks, privacy and the
phrase pools the variation rules draw from. Both are versioned JSON with JSON Schemas generated
from these models (`config/schemas/`). Patterns are Python regular expressions, matched
case-insensitively on text whose apostrophes are straightened (and, in Chinese, read as
Simplified).
"""

from __future__ import annotations

import re
import string
from datetime import date
from enum import StrEnum
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationInfo, model_validator

from sps_encounter.engine.backtracking import catastrophic
from sps_encounter.engine.state import Rapport, Verbosity


def _compiles(pattern: str, info: ValidationInfo) -> str:
    if isinstance(info.context, dict) and info.context.get("sealed"):
        return pattern  # verified by the build (persona_rails.config_seal); compiled on first use
    try:
        compiled = re.compile(pattern, re.IGNORECASE)
    except re.error as exc:
        raise ValueError(f"not a valid regular expression ({exc})") from None
    if compiled.search(""):
        raise ValueError("matches the empty string, so it would match every turn")
    if compiled.search(_PROBE):
        raise ValueError("matches text that asks nothing at all, so it would match every turn")
    # Patterns of one list are matched as one alternation (a transcript of 10,000 turns is
    # validated in milliseconds), so each must still mean itself inside `(?:…)|(?:…)`.
    if _BACKREFERENCE.search(pattern):
        raise ValueError("backreferences are not supported")
    if "(?P<" in pattern:
        raise ValueError("named groups are not supported (the loader names the groups it combines)")
    if catastrophic(pattern):
        raise ValueError(
            "a repetition inside an unbounded repetition (like (x+)+) can take exponential time on "
            "learner text; write it without the nesting"
        )
    try:
        re.compile(f"(?:x)|(?:{pattern})", re.IGNORECASE)
    except re.error as exc:
        raise ValueError(f"cannot be combined with other patterns ({exc}); drop inline flags") from None
    return pattern


_BACKREFERENCE = re.compile(r"\\[1-9]|\(\?P=")
# Text no sensible pattern matches, in which a zero-width match shows a pattern matches anything.
_PROBE = "zqx vwk 兀"


Pattern = Annotated[str, Field(min_length=1, max_length=300), AfterValidator(_compiles)]
Patterns = Annotated[list[Pattern], Field(min_length=1, max_length=40)]
Id = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]{0,63}$")]
Line = Annotated[str, Field(min_length=1, max_length=400)]
Lines = Annotated[list[Line], Field(min_length=1, max_length=30)]
Version = Annotated[str, Field(min_length=1, max_length=40)]


class Language(StrEnum):
    EN = "en"
    ZH = "zh"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# The scenario


class Elaboration(_Model):
    text: Line
    emotional: bool = Field(
        default=False, description="Carries an emotional adjective: told only when rapport allows one."
    )


class Slot(_Model):
    """One subjective fact: the questions that ask for it, its canonical value and its phrasings."""

    id: Id
    category: Id = Field(default="history", description="For the persona's privacy (e.g. substance_use).")
    patterns: Patterns = Field(description="Learner wordings that ask for this fact.")
    value: Line = Field(description="The fact itself, as the case states it; never contradicted.")
    answers: Lines = Field(description="The patient's phrasings of the fact; one is drawn per answer.")
    elaborations: list[Elaboration] = Field(default_factory=list, max_length=20)
    conflicts: list[Pattern] = Field(
        default_factory=list,
        max_length=20,
        description="Wordings that would contradict the fact: a patient turn matching one is an error.",
    )
    present_illness: bool = Field(
        default=False,
        description=(
            "A fact of the illness that brought the patient in: a conflict said of a time long past "
            '("when I was pregnant", 小时候) tells another episode and does not contradict it.'
        ),
    )


class ObjectiveSlot(_Model):
    """A measurement (vital sign, test result): its number is told only when it is measured."""

    id: Id
    patterns: Patterns
    value: Annotated[str, Field(min_length=1, max_length=40)]
    unit: Annotated[str, Field(max_length=20)] = ""
    finding: Line = Field(description="What the learner is told when they measure it, with the number.")
    lay_answers: list[Line] = Field(
        default_factory=list,
        max_length=10,
        description="What the patient says when asked without measuring (no numbers).",
    )
    conflicts: list[Pattern] = Field(default_factory=list, max_length=20)


class ObjectiveScript(_Model):
    """An examination manoeuvre and the patient's scripted response to it."""

    id: Id
    patterns: Patterns
    lines: Lines


class Guardrail(_Model):
    id: Id
    patterns: Patterns
    note: Line = Field(description="Why the patient declines; given to the LLM, never said aloud.")


class AgendaItem(_Model):
    id: Id
    triggers: Patterns
    variants: Lines = Field(description="Stored subtle clauses; one is appended to the next relevant answer.")
    relevant_slots: list[Id] = Field(
        default_factory=list, description="Answers that may carry the clause; empty means any factual answer."
    )
    category: Id | None = Field(
        default=None,
        description="A privacy category (as a slot's): the clause waits while the persona guards it.",
    )


class DobChallengeStyle(StrEnum):
    DEFLECT = "deflect"
    QUESTION_BACK = "question_back"
    PARTIAL = "partial"


class DobChallenge(_Model):
    style: DobChallengeStyle
    lines: Lines


class Misunderstanding(_Model):
    id: Id
    triggers: Patterns
    misreadings: Lines = Field(description="The patient's answer to the question they misheard.")
    intended_slot: Id
    reframes: list[Pattern] = Field(
        default_factory=list, description="Beyond the lexicon's generic reframes, wordings that clarify."
    )


class Demographics(_Model):
    name: Line
    age: Annotated[int, Field(ge=0, le=120)]
    sex: Annotated[str, Field(min_length=1, max_length=20)]
    date_of_birth: date
    dob_spoken: Line = Field(description="The date of birth as the patient says it.")
    occupation: Line = ""


class PresentingProblem(_Model):
    chief_complaint: Line
    opening_statements: Lines = Field(description="Answers to 'what brings you in today?'.")
    narrative: Lines = Field(description="Answers to a narrative prompt no slot matches ('tell me more').")


class Scenario(_Model):
    id: Id
    version: Version
    title: Line
    specialty: Id
    language: Language
    learner_brief: Line = Field(description="What the learner is told before the encounter.")
    default_persona: Id
    demographics: Demographics
    presenting_problem: PresentingProblem
    subjective_catalog: Annotated[list[Slot], Field(min_length=1, max_length=200)]
    objective_catalog: list[ObjectiveSlot] = Field(default_factory=list, max_length=100)
    objective_scripts: list[ObjectiveScript] = Field(default_factory=list, max_length=100)
    guardrails: list[Guardrail] = Field(default_factory=list, max_length=50)
    objective_guardrails: list[Guardrail] = Field(default_factory=list, max_length=50)
    contraindications: list[Guardrail] = Field(default_factory=list, max_length=50)
    hidden_agenda: list[AgendaItem] = Field(default_factory=list, max_length=20)
    allow_agenda_stacking: bool = Field(
        default=False, description="Lets one answer carry several agenda clauses (spec §7's exception)."
    )
    dob_challenge: DobChallenge | None = None
    misunderstandings: list[Misunderstanding] = Field(default_factory=list, max_length=20)
    identity_answers: Lines = Field(description="Full identity answers; {name} and {dob} are filled in.")
    age_answers: Lines | None = Field(
        default=None,
        description="Answers to 'how old are you?' with {age} filled in; the language's default when absent.",
    )
    diagnosis_terms: list[Pattern] = Field(
        default_factory=list, max_length=50, description="The case's diagnoses: a patient never names them."
    )

    @model_validator(mode="after")
    def _references(self) -> Scenario:
        slots = [slot.id for slot in self.subjective_catalog]
        _unique("subjective_catalog", slots)
        _unique("objective_catalog", [slot.id for slot in self.objective_catalog])
        _unique("objective_scripts", [script.id for script in self.objective_scripts])
        _unique(
            "guardrails",
            [g.id for g in (*self.guardrails, *self.objective_guardrails, *self.contraindications)],
        )
        _unique("hidden_agenda", [item.id for item in self.hidden_agenda])
        _unique("misunderstandings", [item.id for item in self.misunderstandings])
        known = set(slots)
        for index, item in enumerate(self.hidden_agenda):
            for slot in item.relevant_slots:
                if slot not in known:
                    raise ValueError(f"hidden_agenda[{index}].relevant_slots: unknown slot {slot!r}")
        for index, misreading in enumerate(self.misunderstandings):
            if misreading.intended_slot not in known:
                raise ValueError(
                    f"misunderstandings[{index}].intended_slot: unknown slot {misreading.intended_slot!r}"
                )
        for index, line in enumerate(self.identity_answers):
            fields = _placeholders(line, f"identity_answers[{index}]")
            if fields != {"name", "dob"}:
                raise ValueError(
                    f"identity_answers[{index}]: must say {{name}} and {{dob}}, and nothing else in braces"
                )
        for index, line in enumerate(self.age_answers or ()):
            if _placeholders(line, f"age_answers[{index}]") != {"age"}:
                raise ValueError(f"age_answers[{index}]: must say {{age}}, and nothing else in braces")
        return self


def _placeholders(line: str, where: str) -> set[str]:
    """The `{field}` names of a template, refusing what `str.format` would fail on at answer time."""
    try:
        parsed = list(string.Formatter().parse(line))
    except ValueError as exc:
        raise ValueError(f"{where}: not a valid template ({exc}); write a brace as {{{{ or }}}}") from None
    fields = set()
    for _, name, spec, conversion in parsed:
        if name is None:
            continue
        if not name.isidentifier() or spec or conversion:
            raise ValueError(f"{where}: only plain placeholders like {{name}} are allowed")
        fields.add(name)
    return fields


def _unique(where: str, ids: list[str]) -> None:
    seen: set[str] = set()
    for index, item in enumerate(ids):
        if item in seen:
            raise ValueError(f"{where}[{index}].id: the id {item!r} is used twice")
        seen.add(item)


# The persona


class Tone(StrEnum):
    RESERVED = "reserved"
    FRIENDLY = "friendly"
    ANXIOUS = "anxious"
    IRRITABLE = "irritable"
    STOIC = "stoic"


class Opener(_Model):
    text: Annotated[str, Field(min_length=1, max_length=40)]
    synonyms: list[Annotated[str, Field(min_length=1, max_length=40)]] = Field(
        default_factory=list, max_length=10
    )


class Privacy(_Model):
    guarded_categories: list[Id] = Field(
        default_factory=list, description="Slot categories the patient declines to discuss below `open_at`."
    )
    open_at: Rapport = Rapport.NEUTRAL


class Pools(_Model):
    clarifications: Annotated[list[Line], Field(min_length=4, max_length=30)] = Field(
        description="The patient asking what the learner means; at least 4, so the window of 3 leaves one."
    )
    boundaries: Annotated[list[Line], Field(min_length=4, max_length=30)] = Field(
        description="Safety refusals; at least 4."
    )
    declines: Lines = Field(description="Privacy deflections ('I'd rather not get into that').")
    uncertain: Lines = Field(description="Said instead of inventing a fact the case does not hold.")
    realizations: Lines = Field(description="Said when a misunderstanding is cleared up ('Oh, you mean…').")
    acknowledgements: Lines = Field(
        description="Said to an empathic remark that asks nothing ('Yeah. It has been hard.')."
    )
    deferrals: Lines = Field(description="Said to a dismissive remark that asks nothing ('Okay. Sorry.').")
    openers: Annotated[list[Opener], Field(min_length=4, max_length=30)]
    disfluencies: list[Annotated[str, Field(min_length=1, max_length=12)]] = Field(default_factory=list)


class Rates(_Model):
    opener: Annotated[float, Field(ge=0, le=1)] = 0.3
    disfluency: Annotated[float, Field(ge=0, le=1)] = 0.1


class Quirk(_Model):
    """A line of the persona's, told as an elaboration in any scenario it plays: so it states no
    fact (a spouse, a job, a condition) that a scenario could contradict."""

    id: Id
    text: Line
    emotional: bool = False


class Persona(_Model):
    id: Id
    version: Version
    language: Language
    label: Line
    tone: Tone
    verbosity: Verbosity
    quirks: list[Quirk] = Field(default_factory=list, max_length=20)
    privacy: Privacy = Privacy()
    pools: Pools
    rates: Rates = Rates()
    answer_sentences: Annotated[int, Field(ge=1, le=10)] = Field(
        default=2,
        description="Sentences in a plain answer; with no meta, the validator reads more as elaboration.",
    )
    narrative_max_sentences: Annotated[int, Field(ge=1, le=30)] = 5
