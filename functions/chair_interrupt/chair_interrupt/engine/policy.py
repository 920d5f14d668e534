"""The schemas of the engine's artifacts: frameworks (PHILOSOPHICAL_CHAIR_INFO), quick-check
patterns, openers (INTERRUPT_OPENERS) and the policy. What the spec fixes is enforced here: the
six reasons, the thresholds 1→0.9 … 5→0.5, and the spec's seven quick-check patterns, first and
unchanged. A file that breaks them fails the cold start."""

from __future__ import annotations

import re
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

from chair_interrupt.engine.model import Reason

Score = Annotated[float, Field(ge=0, le=1)]
Version = Annotated[str, Field(min_length=1, max_length=40)]
SPEC_THRESHOLDS = {"1": 0.9, "2": 0.8, "3": 0.7, "4": 0.6, "5": 0.5}
# quickInterruptCheck's patterns, in the spec's order (JavaScript /i regexes, same syntax here).
SPEC_PATTERNS = (
    ("they (just|only|simply) want", Reason.STRAW_MAN_DETECTED),
    ("that's (ridiculous|absurd|naive)", Reason.STRAW_MAN_DETECTED),
    ("utilitarians? (don't|never) care about", Reason.FACTUAL_CORRECTION),
    ("virtue ethics (ignores?|has no)", Reason.FACTUAL_CORRECTION),
    ("the (real|fundamental|core) (issue|question|problem) is", Reason.PIVOTAL_POINT),
    ("this is (exactly|precisely) (where|why)", Reason.PIVOTAL_POINT),
    ("(obviously|clearly|undeniably|certainly) (wrong|false|mistaken)", Reason.DIRECT_CHALLENGE),
)


def _compiles(pattern: str, info: ValidationInfo) -> str:
    """A pattern must compile, unless the folder was verified by `make package` (persona_rails.
    config_seal): then the cold start skips a hundred compiles, and the patterns are compiled by
    the first evaluation that needs them."""
    if isinstance(info.context, dict) and info.context.get("sealed"):
        return pattern
    try:
        re.compile(pattern, re.IGNORECASE)
    except re.error as exc:
        raise ValueError(f"not a valid regular expression ({exc})") from None
    return pattern


class _Artifact(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Framework(_Artifact):
    name: str = Field(min_length=1, max_length=60)
    core_principle: str = Field(min_length=1, max_length=300)
    aliases: list[Annotated[str, Field(min_length=2, max_length=40)]] = Field(min_length=1)


REQUIRED_FRAMEWORKS = (
    "utilitarianism",
    "deontology",
    "virtue_ethics",
    "contractualism",
    "pragmatism",
    "care_ethics",
)


class Frameworks(_Artifact):
    version: Version
    description: str = ""
    frameworks: dict[Annotated[str, Field(pattern=r"^[a-z][a-z_]{1,39}$")], Framework]

    @field_validator("frameworks")
    @classmethod
    def _required(cls, frameworks: dict[str, Framework]) -> dict[str, Framework]:
        missing = sorted(set(REQUIRED_FRAMEWORKS) - set(frameworks))
        if missing:
            raise ValueError(f"missing the frameworks {missing}")
        return frameworks


Literal_ = Annotated[str, Field(min_length=1, max_length=40)]
Pattern = Annotated[str, Field(min_length=1, max_length=500), AfterValidator(_compiles)]


class QuickPattern(_Artifact):
    pattern: Annotated[str, Field(min_length=1, max_length=500), AfterValidator(_compiles)]
    reason: Reason
    source: Literal["spec", "extension"]
    # Lowercase literals one of which every match contains: a chunk without any skips the pattern.
    requires: list[Literal_] = Field(min_length=1)
    example: str = Field(min_length=1, max_length=300)

    @model_validator(mode="after")
    def _example_triggers(self) -> QuickPattern:
        if any(literal != literal.lower() for literal in self.requires):
            raise ValueError(
                "requires: literals are matched against lowercased text, so write them lowercase"
            )
        text = self.example.lower()
        if re.search(self.pattern, text, re.IGNORECASE) is None:
            raise ValueError(f"example {self.example!r} does not match the pattern")
        if not any(literal in text for literal in self.requires):
            raise ValueError(f"example {self.example!r} holds none of the required literals {self.requires}")
        return self


class QuickCheckPatterns(_Artifact):
    version: Version
    description: str = ""
    patterns: list[QuickPattern] = Field(min_length=len(SPEC_PATTERNS))

    @field_validator("patterns")
    @classmethod
    def _spec_first(cls, patterns: list[QuickPattern]) -> list[QuickPattern]:
        head = tuple((p.pattern, p.reason) for p in patterns[: len(SPEC_PATTERNS)])
        if head != SPEC_PATTERNS:
            raise ValueError("must begin with the spec's seven patterns, unchanged and in order")
        return patterns


Opener = Annotated[str, Field(min_length=3, max_length=60)]


class Openers(_Artifact):
    version: Version
    description: str = ""
    openers: dict[Reason, list[Opener]]

    @field_validator("openers")
    @classmethod
    def _every_reason(cls, openers: dict[Reason, list[str]]) -> dict[Reason, list[str]]:
        missing = sorted(set(Reason) - set(openers))
        if missing:
            raise ValueError(f"every reason needs openers; missing {missing}")
        for reason, lines in openers.items():
            if not lines:
                raise ValueError(f"{reason} has no openers")
            for line in lines:
                if not 2 <= len(line.split()) <= 8:
                    raise ValueError(f"{reason}: an opener is 2 to 8 words ({line!r})")
        return openers


class LlmGate(_Artifact):
    description: str = ""
    always_from_aggressiveness: int = Field(ge=1, le=6)


class Offline(_Artifact):
    base_urgency: dict[Reason, Score]
    # The local scorer's urgency is at most this (below aggressiveness 1's threshold, 0.9).
    scorer_max_urgency: Score
    targets_a_chair_bonus: Score
    exclamation_bonus: Score
    trigger_content_max_chars: int = Field(ge=20, le=1000)
    # "I'm not saying…", "Critics claim '…'", 不是说…: the chunk reports or denies what it says, and
    # never interrupts below this aggressiveness; from it, its trigger loses `hedged_penalty`.
    hedged_from_aggressiveness: int = Field(ge=1, le=6)
    hedged_penalty: Score
    hedges: list[Pattern]

    @field_validator("base_urgency")
    @classmethod
    def _every_reason(cls, urgency: dict[Reason, float]) -> dict[Reason, float]:
        missing = sorted(set(Reason) - set(urgency))
        if missing:
            raise ValueError(f"every reason needs a base urgency; missing {missing}")
        return urgency


class Policy(_Artifact):
    version: Version
    description: str = ""
    urgency_thresholds: dict[str, Score]
    llm_gate: LlmGate
    context_chars: Literal[800]
    offline: Offline

    @field_validator("urgency_thresholds")
    @classmethod
    def _spec_thresholds(cls, thresholds: dict[str, float]) -> dict[str, float]:
        if thresholds != SPEC_THRESHOLDS:
            raise ValueError(f"must be the spec's thresholds {SPEC_THRESHOLDS}")
        return thresholds

    @model_validator(mode="after")
    def _scorer_below_the_most_conservative(self) -> Policy:
        if self.offline.scorer_max_urgency >= self.urgency_thresholds["1"]:
            raise ValueError("offline.scorer_max_urgency must stay below aggressiveness 1's threshold")
        return self


class Detectors(_Artifact):
    """What the offline evaluator reads besides the quick check (engine/detectors.py)."""

    version: Version
    description: str = ""
    thinkers: dict[str, list[Pattern]]
    claims: dict[str, list[Pattern]]
    # Books by a framework's thinkers ("Anarchy, State, and Utopia" is Nozick's): a thinker of
    # another framework credited with one is a misattribution. Not a claim of the framework.
    works: dict[str, list[Pattern]] = Field(default_factory=dict)
    attribution: list[Pattern] = Field(min_length=1)
    concessions: list[Pattern] = Field(min_length=1)
    loaded_terms: list[Pattern] = Field(min_length=1)
    definitions: list[Pattern] = Field(min_length=1)

    @model_validator(mode="after")
    def _same_frameworks(self) -> Detectors:
        if set(self.thinkers) != set(self.claims):
            raise ValueError("thinkers and claims must name the same frameworks")
        if not set(self.works) <= set(self.thinkers):
            raise ValueError("works must name frameworks the thinkers name")
        return self
