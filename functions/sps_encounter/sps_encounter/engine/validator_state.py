"""What a validation run keeps across a transcript, and how it records an issue: the base that
the three families of rules (validator_numbers, validator_facts, validator_speech) extend as
mixins and `validator._Run` composes. The readings more than one family makes live here too."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from sps_encounter.engine.compiled import Case
from sps_encounter.engine.gates import Gated
from sps_encounter.engine.text_rules import TextRules
from sps_encounter.engine.validator_turns import (
    _EDGE,
    _clause,
    _first_phrase,
    _normal,
    _Patient,
    _Phrases,
    _sentence_around,
)

MAX_ISSUES = 1000
# A learner turn this short that asks about no fact follows up the one before ("Just that?"), up
# to this many turns back.
FOLLOW_UP_WORDS = 4
FOLLOW_UP_DEPTH = 3


def _issue(severity: str, code: str, turn_index: int, message: str, details: Any = None) -> dict[str, Any]:
    issue = {"severity": severity, "code": code, "turnIndex": turn_index, "message": message}
    if details is not None:
        issue["details"] = details
    return issue


@dataclass(slots=True)
class _RunState:
    case: Case
    phrases: _Phrases
    rules: TextRules
    errors: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[dict[str, Any]] = field(default_factory=list)
    info: list[dict[str, Any]] = field(default_factory=list)
    # What the previous learner turn asked (folded); its kind of question is read only when a
    # patient turn without the runtime's meta needs it (`elaboration`).
    asked: str | None = None
    # The learner's last few turns (folded), newest last: a short follow-up ("Just that?",
    # "Anything else?", "还有吗？") is on the facts of the turn it follows. Read only when a
    # patient turn matches a fact's conflicts, so that other turns pay nothing for it.
    learner_turns: deque[str] = field(default_factory=lambda: deque(maxlen=FOLLOW_UP_DEPTH + 1))
    # Across the transcript.
    # Every learner turn (folded), and the numbers of the readings read out in the first
    # `read_out_upto` of them: a reading said aloud in the room (a nurse doing the observations
    # in a learner turn) is one the patient may repeat any time after. Read only when a patient
    # turn would leak a number.
    learner_history: list[str] = field(default_factory=list)
    read_out_before: set[str] = field(default_factory=set)
    read_out_upto: int = 0
    revealed: set[str] = field(default_factory=set)
    recent_clarifications: list[str] = field(default_factory=list)
    previous_bigram: str | None = None
    previous_opening: _Patient | None = None
    previous_said: str | None = None
    previous_refusal: str | None = None
    dob_challenges: int = 0
    stated: dict[str, Any] = field(default_factory=dict)
    last_patient_index: int = 0
    said: tuple[str, ...] | None = None
    # Metrics.
    patient_turns: int = 0
    sentences: int = 0
    eligible: int = 0
    elaborated: int = 0
    clarifications: int = 0
    refusals: int = 0
    unsafe_requests: int = 0
    agenda_reveals: int = 0
    opener_repeats: int = 0
    clarification_repeats: int = 0
    vague_prompts: int = 0
    first_vague_over_limit: int | None = None

    counts: dict[str, int] = field(default_factory=lambda: {"errors": 0, "warnings": 0, "info": 0})

    def _add(self, bucket: str, issue: dict[str, Any]) -> None:
        # Every issue is counted; the lists keep the first MAX_ISSUES of each severity, so a
        # transcript of junk cannot make an answer too large to send back.
        self.counts[bucket] += 1
        listed: list[dict[str, Any]] = getattr(self, bucket)
        if len(listed) < MAX_ISSUES:
            listed.append(issue)

    def error(self, code: str, index: int, message: str, details: Any = None) -> None:
        self._add("errors", _issue("ERROR", code, index, message, details))

    def warn(self, code: str, index: int, message: str, details: Any = None) -> None:
        self._add("warnings", _issue("WARN", code, index, message, details))

    def note(self, code: str, index: int, message: str, details: Any = None) -> None:
        self._add("info", _issue("INFO", code, index, message, details))

    # Readings shared by more than one family of rules

    def _recorded_phrase(self, value: str) -> str:
        return _normal(self.case.lexicon.fold(value)).rstrip(_EDGE)

    def _said_phrase(self, turn: _Patient, stored: tuple[str, ...], lexicon: Gated) -> str | None:
        """The stored phrase the turn says, else the clause a lexicon pattern matched, else None."""
        phrase = _first_phrase(turn.normal, stored)
        if phrase is None:
            found = lexicon.search(turn.normal)
            if found is not None:
                phrase = _clause(turn.normal, found)
        return phrase

    def _not_own(self, text: str, start: int) -> bool:
        """Whether the sentence, before `start`, imagines what follows ("if I'm off for six
        weeks") or gives it to someone else ("my sister gets the stabbing kind"): then it says
        nothing of the patient's own case."""
        sentence_start, _ = _sentence_around(text, start)
        rules = self.rules
        return (
            rules.hypothetical.search(text, sentence_start, start) is not None
            or rules.someone_else.search(text, sentence_start, start) is not None
        )
