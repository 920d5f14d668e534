"""`SPSRuntimeState` (spec §2) and `initRuntimeState`, plus what the spec's rules need tracked.

The spec's eleven fields keep their names in JSON (`rapport`, `personaVerbosity`,
`lastClarifications`, …, `turnIndex`), which is the form the state is stored in and returned
as. The rules of §5–8 need a few counters the interface leaves out (empathy cues since the last
rapport shift, eligible and elaborated turns, a pending challenge or misunderstanding, agenda
items triggered but not yet told); they live under `tracking`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from sps_encounter.engine.rng import ZeroSeed, to_uint32

ENGINE_VERSION = "sps-1.0.0"


class Rapport(StrEnum):
    GUARDED = "guarded"
    NEUTRAL = "neutral"
    OPEN = "open"


RAPPORT_ORDER = (Rapport.GUARDED, Rapport.NEUTRAL, Rapport.OPEN)


class Verbosity(StrEnum):
    BRIEF = "brief"
    BALANCED = "balanced"
    TALKATIVE = "talkative"


class QuestionType(StrEnum):
    CLOSED = "closed"
    OPEN = "open"
    NARRATIVE = "narrative"


@dataclass
class Tracking:
    empathy_cues: list[str] = field(default_factory=list)  # distinct cue ids since the last shift
    dismissals: int = 0  # dismissive interruptions since the last shift
    turns_since_rapport_shift: int = 2  # learner turns; a first shift needs no cooldown
    eligible_turns: int = 0  # patient turns answering an open or narrative question
    elaborated_turns: int = 0
    turns_since_misunderstanding: int = 3  # patient turns; a first misreading is allowed
    misunderstanding_pending: str | None = None
    misread: list[str] = field(default_factory=list)  # items misread once: never again, resolved or not
    dob_challenge_pending: bool = False
    agenda_pending: list[str] = field(default_factory=list)  # triggered, told with the next answer
    last_refusal: str | None = None
    # The last 3 short replies (acknowledgements, deferrals, declines, uncertainty): rotated too.
    recent_phrases: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "empathyCues": list(self.empathy_cues),
            "dismissals": self.dismissals,
            "turnsSinceRapportShift": self.turns_since_rapport_shift,
            "eligibleTurns": self.eligible_turns,
            "elaboratedTurns": self.elaborated_turns,
            "turnsSinceMisunderstanding": self.turns_since_misunderstanding,
            "misunderstandingPending": self.misunderstanding_pending,
            "misread": list(self.misread),
            "dobChallengePending": self.dob_challenge_pending,
            "agendaPending": list(self.agenda_pending),
            "lastRefusal": self.last_refusal,
            "recentPhrases": list(self.recent_phrases),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Tracking:
        return cls(
            empathy_cues=list(data["empathyCues"]),
            dismissals=data["dismissals"],
            turns_since_rapport_shift=data["turnsSinceRapportShift"],
            eligible_turns=data["eligibleTurns"],
            elaborated_turns=data["elaboratedTurns"],
            turns_since_misunderstanding=data["turnsSinceMisunderstanding"],
            misunderstanding_pending=data["misunderstandingPending"],
            misread=list(data.get("misread", [])),
            dob_challenge_pending=data["dobChallengePending"],
            agenda_pending=list(data["agendaPending"]),
            last_refusal=data["lastRefusal"],
            # States stored before this window existed read as an empty one.
            recent_phrases=list(data.get("recentPhrases", [])),
        )


@dataclass
class SPSRuntimeState:
    rapport: Rapport
    persona_verbosity: Verbosity
    last_clarifications: list[str]
    last_boundaries: list[str]
    last_openers: list[str]
    agenda_revealed: set[str]
    identity_verified: bool
    dob_challenge_used: bool
    turns_since_hesitation: int
    rng_seed: int
    turn_index: int
    tracking: Tracking = field(default_factory=Tracking)
    # This utterance's RNG draws, for its meta; not part of the stored state.
    draws: list[dict[str, Any]] = field(default_factory=list, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "rapport": self.rapport.value,
            "personaVerbosity": self.persona_verbosity.value,
            "lastClarifications": list(self.last_clarifications),
            "lastBoundaries": list(self.last_boundaries),
            "lastOpeners": list(self.last_openers),
            # A Set in the reference; sorted here so equal states serialize equally.
            "agendaRevealed": sorted(self.agenda_revealed),
            "identityVerified": self.identity_verified,
            "dobChallengeUsed": self.dob_challenge_used,
            "turnsSinceHesitation": self.turns_since_hesitation,
            "rngSeed": self.rng_seed,
            "turnIndex": self.turn_index,
            "tracking": self.tracking.to_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SPSRuntimeState:
        return cls(
            rapport=Rapport(data["rapport"]),
            persona_verbosity=Verbosity(data["personaVerbosity"]),
            last_clarifications=list(data["lastClarifications"]),
            last_boundaries=list(data["lastBoundaries"]),
            last_openers=list(data["lastOpeners"]),
            agenda_revealed=set(data["agendaRevealed"]),
            identity_verified=data["identityVerified"],
            dob_challenge_used=data["dobChallengeUsed"],
            turns_since_hesitation=data["turnsSinceHesitation"],
            rng_seed=data["rngSeed"],
            turn_index=data["turnIndex"],
            tracking=Tracking.from_json(data["tracking"]),
        )


def init_runtime_state(persona_verbosity: Verbosity | str, seed: int) -> SPSRuntimeState:
    """The reference's `initRuntimeState`; a seed that is 0 as `seed >>> 0` raises `ZeroSeed`, a
    verbosity other than brief, balanced or talkative a ValueError (not a KeyError turns later)."""
    if persona_verbosity not in tuple(Verbosity):
        choices = ", ".join(Verbosity)
        raise ValueError(f"personaVerbosity must be one of {choices}, not {persona_verbosity!r}")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError(f"seed must be an integer, not {type(seed).__name__}")
    rng_seed = to_uint32(seed)
    if rng_seed == 0:
        raise ZeroSeed()
    return SPSRuntimeState(
        rapport=Rapport.GUARDED,
        persona_verbosity=Verbosity(persona_verbosity),
        last_clarifications=[],
        last_boundaries=[],
        last_openers=[],
        agenda_revealed=set(),
        identity_verified=False,
        dob_challenge_used=False,
        turns_since_hesitation=0,
        rng_seed=rng_seed,
        turn_index=0,
    )
