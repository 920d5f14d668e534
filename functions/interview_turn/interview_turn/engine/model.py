"""The engine's vocabulary: the spec's enums, and the per-session state the engine reads and returns.

State is plain frozen data that round-trips through JSON, because it lives in Postgres between
turns and is kept in each decision record for replay. It grows with what the narrator says (the
distinct anchored facts of each topic), not with the number of turns, and everything in it is
bounded: topics by the session limit, facts per topic by the lexicon's cap.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

ENGINE_VERSION = "interview-1"


class Persona(StrEnum):
    EMPATHY_BASE = "EMPATHY_BASE"
    EMPATHY_EXPAND = "EMPATHY_EXPAND"
    PRECISION_NARROW = "PRECISION_NARROW"
    LOGIC_CLARIFY = "LOGIC_CLARIFY"
    SAFETY_FALLBACK = "SAFETY_FALLBACK"


class Phase(StrEnum):
    WARMUP = "warmup"
    NARRATIVE = "narrative"
    DEPTH = "depth"
    REFLECTION = "reflection"
    CLOSE = "close"


class SafetyAction(StrEnum):
    NONE = "none"
    DEESCALATE = "deescalate"
    STOP = "stop"
    REDIRECT = "redirect"
    OVERRIDE = "override"


class Rule(StrEnum):
    """The router's rules, highest priority first (spec: Routing Policy)."""

    SAFETY_OVERRIDE = "safety_override"
    CONTRADICTION_RESOLUTION = "contradiction_resolution"
    HIGH_EMOTION = "high_emotion"
    VAGUENESS = "vagueness"
    DEFAULT = "default"


SPEC_PRIORITY = tuple(Rule)


class HardStop(StrEnum):
    SELF_HARM = "self_harm"
    ACUTE_DISTRESS = "acute_distress"
    STOP_REQUEST = "stop_request"


# The most severe hard stop wins: self-harm's crisis guidance must never be lost to a milder one.
SEVERITY = (HardStop.SELF_HARM, HardStop.ACUTE_DISTRESS, HardStop.STOP_REQUEST)


def graver(first: HardStop | None, second: HardStop | None) -> HardStop | None:
    found = [stop for stop in (first, second) if stop is not None]
    return min(found, key=SEVERITY.index, default=None)


class DepthChange(StrEnum):
    INCREASE = "increase"
    HOLD = "hold"
    DECREASE = "decrease"


class Language(StrEnum):
    EN = "en"
    ZH = "zh"


class FactKind(StrEnum):
    YEAR = "year"
    AGE = "age"
    PLACE = "place"
    NAME = "name"


@dataclass(frozen=True)
class Fact:
    """A checkable detail the narrator stated: a kind, what it is about (`anchor`, e.g. "moved";
    "*" when nothing anchored it) and its value, normalized for comparison."""

    kind: FactKind
    anchor: str
    value: str
    turn_no: int

    @property
    def key(self) -> str:
        return f"{self.kind.value}:{self.anchor}"


@dataclass(frozen=True)
class TopicPlanItem:
    topic_id: str
    title: str
    sensitive: bool = False
    max_depth: int | None = None
    max_escalations: int | None = None


@dataclass(frozen=True)
class TopicState:
    depth: int = 0
    escalations: int = 0
    facts: tuple[Fact, ...] = ()
    # Fact keys already clarified once: the inconsistency loop never asks about them again.
    clarified: tuple[str, ...] = ()


@dataclass(frozen=True)
class Loop:
    machine: str
    steps: int


@dataclass(frozen=True)
class SessionState:
    language: Language
    narrator_name: str | None
    locale: str | None
    topic_plan: tuple[TopicPlanItem, ...]
    sensitive_consent: bool
    topic_id: str
    topics: dict[str, TopicState] = field(default_factory=dict)
    turn_no: int = 0
    last_increase: bool = False
    loop: Loop | None = None
    closed: bool = False
    # Digests of the interviewer's last lines (`render.LINE_MEMORY`), so that no line comes back
    # while an unsaid alternative is left. Digests, not text: the state stores no interview text.
    said: tuple[str, ...] = ()
    # The kinds of fact (year, age, place, name) the last answer gave: not to be asked for next.
    last_given: tuple[str, ...] = ()

    def topic(self, topic_id: str) -> TopicState:
        return self.topics.get(topic_id, TopicState())

    def with_topic(self, topic_id: str, topic: TopicState) -> SessionState:
        return replace(self, topics={**self.topics, topic_id: topic})

    def to_json(self) -> dict[str, Any]:
        # Built by hand: `dataclasses.asdict` deep-copies recursively and cost ~5 µs per fact.
        return {
            "language": self.language.value,
            "narrator_name": self.narrator_name,
            "locale": self.locale,
            "topic_plan": [
                {
                    "topic_id": item.topic_id,
                    "title": item.title,
                    "sensitive": item.sensitive,
                    "max_depth": item.max_depth,
                    "max_escalations": item.max_escalations,
                }
                for item in self.topic_plan
            ],
            "sensitive_consent": self.sensitive_consent,
            "topic_id": self.topic_id,
            "topics": {
                topic_id: {
                    "depth": topic.depth,
                    "escalations": topic.escalations,
                    # Compact rows, [kind, anchor, value, turn_no]: facts are most of a long session's state.
                    "facts": [[f.kind.value, f.anchor, f.value, f.turn_no] for f in topic.facts],
                    "clarified": list(topic.clarified),
                }
                for topic_id, topic in self.topics.items()
            },
            "turn_no": self.turn_no,
            "last_increase": self.last_increase,
            "loop": {"machine": self.loop.machine, "steps": self.loop.steps} if self.loop else None,
            "closed": self.closed,
            # One string of fixed-width digests: a third of the size of a JSON list of them.
            "said": "".join(self.said),
            "last_given": list(self.last_given),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SessionState:
        return cls(
            language=Language(data["language"]),
            narrator_name=data["narrator_name"],
            locale=data.get("locale"),
            topic_plan=tuple(TopicPlanItem(**item) for item in data["topic_plan"]),
            sensitive_consent=data["sensitive_consent"],
            topic_id=data["topic_id"],
            topics={
                topic_id: TopicState(
                    depth=topic["depth"],
                    escalations=topic["escalations"],
                    facts=tuple(
                        Fact(FactKind(kind), anchor, value, turn_no)
                        for kind, anchor, value, turn_no in topic["facts"]
                    ),
                    clarified=tuple(topic["clarified"]),
                )
                for topic_id, topic in data["topics"].items()
            },
            turn_no=data["turn_no"],
            last_increase=data["last_increase"],
            loop=Loop(**data["loop"]) if data.get("loop") else None,
            closed=data["closed"],
            said=_digests(data.get("said", "")),
            last_given=tuple(data.get("last_given", ())),
        )


@dataclass(frozen=True)
class TurnInput:
    """What the narrator sent: the answer, an optional topic switch and consent changes."""

    user_text: str
    topic_id: str | None = None
    go_deeper: bool = False
    sensitive_consent: bool | None = None


def _digests(stored: str | list[str]) -> tuple[str, ...]:
    """The line digests of a stored state: fixed-width hex runs in one string."""
    if isinstance(stored, list):
        return tuple(stored)
    width = 8
    return tuple(stored[start : start + width] for start in range(0, len(stored), width))
