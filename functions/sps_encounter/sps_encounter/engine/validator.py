"""`validateTranscript` (spec §10–12): QA issues and metrics for any transcript.

The input is §11's: turns `{turnIndex, role: 'learner'|'patient', text, meta?: any}` with the
scenario and persona they were played with. A transcript from this runtime carries `meta`, and
the validator reads what it records (elaboration, clarification, refusal, agenda reveals, DOB
challenge, facts stated). Meta that is not recognisably this runtime's (`runtime_meta`: a
string, a list, another system's object) is read as absent: a transcript from elsewhere gets the
same rules on the text, against the case's stored phrases (whitespace and trailing punctuation
aside) and patterns. Keys a turn carries beyond §11's are ignored. Issue codes and severities:

| code | severity | rule |
|---|---|---|
| NUMERIC_LEAKAGE | ERROR | a measured number (a vital sign, a unit, an objective value), nothing measured |
| AGENDA_REVEALED_TWICE | ERROR | a hidden agenda item revealed again |
| CLARIFICATION_REPEATED | ERROR | a clarification phrase used in the last 3 clarifications |
| DIAGNOSIS_OR_COACHING | ERROR | diagnosis or coaching lexicon or case terms, in the patient's own words |
| DOB_CHALLENGE_REPEATED | ERROR | more than one DOB challenge |
| FACT_CONTRADICTION | ERROR | a slot stated with another value, or a wording contradicting a fact |
| OPENER_ECHO | WARN | the same opening bigram as the previous patient turn |
| REFUSAL_REPEATED | WARN | the previous patient turn's refusal phrase, consecutively |
| ELABORATION_RATE_HIGH | WARN | more than 45% of eligible turns elaborated |
| DISFLUENCY_EXCESS | WARN | more than 1 disfluency token in a turn |
| NARRATIVE_TOO_LONG | INFO | more sentences than the persona's narrative maximum |
| NO_CLARIFICATION_FOR_VAGUE_PROMPTS | INFO | more than 5 vague prompts and not one clarification |

The rules live in one module per family, mixins over one state (`validator_state`): the numbers
(`validator_numbers`), what the patient tells (`validator_facts`) and how they speak
(`validator_speech`), each turn read once (`validator_turns`). `_Run` composes them; everything
public is imported from here.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from persona_rails.user_patterns import matching_budget
from sps_encounter.engine.case import Language
from sps_encounter.engine.compiled import Case
from sps_encounter.engine.learner import guardrails_hit
from sps_encounter.engine.respond import Kind
from sps_encounter.engine.text import sentence_count
from sps_encounter.engine.text_rules import text_rules
from sps_encounter.engine.validator_facts import _FactRules
from sps_encounter.engine.validator_numbers import _NumberRules, asks_for_measurement
from sps_encounter.engine.validator_speech import _SpeechRules
from sps_encounter.engine.validator_state import MAX_ISSUES
from sps_encounter.engine.validator_turns import _first_phrase, _normal, _Patient, _Phrases

# What other modules import from here, wherever it is defined.
__all__ = [
    "MAX_ISSUES",
    "TranscriptError",
    "ValidationTooSlow",
    "asks_for_measurement",
    "check_shape",
    "reads_as_clarification",
    "reads_as_refusal",
    "runtime_meta",
    "validate_transcript",
]

ROLES = ("learner", "patient")
# Transcripts come from TypeScript systems too: a turn index must be a safe JavaScript integer.
MAX_TURN_INDEX = 2**53 - 1
RUNTIME_KINDS = frozenset(kind.value for kind in Kind)


class TranscriptError(ValueError):
    """A transcript the validator cannot read; `path` names the turn and field."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


def check_shape(transcript: Sequence[Mapping[str, Any]]) -> None:
    """An array of turns; roles are 'learner' or 'patient', turn indexes are integers (at most
    2**53 − 1) that strictly increase. Other keys of a turn, and `meta` of any type, are allowed."""
    if not isinstance(transcript, Sequence) or isinstance(transcript, str | bytes | bytearray):
        raise TranscriptError("transcript", f"must be an array of turns, not {type(transcript).__name__}")
    previous: int | None = None
    for position, turn in enumerate(transcript):
        if type(turn) is not dict and not isinstance(turn, Mapping):
            raise TranscriptError(f"transcript[{position}]", "must be an object")
        role = turn.get("role")
        if role not in ROLES:
            raise TranscriptError(
                f"transcript[{position}].role", f"must be 'learner' or 'patient', not {role!r}"
            )
        index = turn.get("turnIndex")
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index <= MAX_TURN_INDEX:
            raise TranscriptError(
                f"transcript[{position}].turnIndex",
                f"must be a non-negative integer no greater than {MAX_TURN_INDEX} (2**53 - 1)",
            )
        if previous is not None and index <= previous:
            raise TranscriptError(
                f"transcript[{position}].turnIndex", f"must increase: {index} follows {previous}"
            )
        if not isinstance(turn.get("text"), str):
            raise TranscriptError(f"transcript[{position}].text", "must be a string")
        previous = index


def runtime_meta(meta: Any) -> Mapping[str, Any] | None:
    """`meta` when it is recognisably this runtime's, else None (the text rules apply).

    §11 types meta as `any`: another system's may be a string, a list, or an object whose keys
    mean something else. This runtime's meta always records the turn's `kind` (one of its own),
    its RNG draws (`rng`, a list) and the precedence layers applied (`layers`, a list); meta
    without all three is not read at all."""
    if not isinstance(meta, Mapping):
        return None
    kind = meta.get("kind")
    if not isinstance(kind, str) or kind not in RUNTIME_KINDS:
        return None
    if not isinstance(meta.get("rng"), list) or not isinstance(meta.get("layers"), list):
        return None
    return meta


class _Run(_NumberRules, _FactRules, _SpeechRules):
    """One validation: the state of `_RunState`, every family's rules, read turn by turn."""

    # Empty, as in its bases: attributes stay slots, as when the rules were one class.
    __slots__ = ()

    @classmethod
    def of(cls, case: Case) -> _Run:
        return cls(case, _Phrases.of(case), text_rules(case.language))

    # Learner turns

    def learner(self, index: int, folded: str) -> None:
        lexicon = self.case.lexicon
        # Whether it asked for a measurement is read only when the answer holds a number.
        self.asked = folded
        self.learner_turns.append(folded)
        self.learner_history.append(folded)
        if lexicon.vague.search(folded):
            self.vague_prompts += 1
            if self.vague_prompts == self.case.policy.validator.vague_prompts_before_info + 1:
                self.first_vague_over_limit = index
        if guardrails_hit(self.case, folded):
            self.unsafe_requests += 1

    # Patient turns: one method per rule

    def patient(self, turn: _Patient) -> None:
        self.last_patient_index = turn.index
        self.patient_turns += 1
        self.sentences += turn.sentences
        self.numeric_leakage(turn)
        self.agenda(turn)
        self.clarification(turn)
        self.diagnosis(turn)
        self.dob_challenge(turn)
        self.contradictions(turn)
        self.opener_echo(turn)
        self.refusal(turn)
        self.disfluency(turn)
        self.narrative_length(turn)
        self.elaboration(turn)
        self.asked = None

    # The whole transcript

    def finish(self) -> dict[str, Any]:
        rules = self.case.policy.validator
        rate = self.elaborated / self.eligible if self.eligible else 0.0
        if rate > rules.elaboration_warn_rate:
            self.warn(
                "ELABORATION_RATE_HIGH",
                self.last_patient_index,
                f"{rate:.0%} of eligible turns elaborated, over {rules.elaboration_warn_rate:.0%}",
                {"eligible": self.eligible, "elaborated": self.elaborated},
            )
        if self.vague_prompts > rules.vague_prompts_before_info and self.clarifications == 0:
            self.note(
                "NO_CLARIFICATION_FOR_VAGUE_PROMPTS",
                self.first_vague_over_limit or 0,
                f"{self.vague_prompts} vague prompts and no clarification asked",
                {"vaguePrompts": self.vague_prompts},
            )
        total = self.patient_turns
        return {
            "errors": self.errors,
            "warnings": self.warnings,
            "info": self.info,
            "summaryMetrics": {
                # Beyond §12: how many issues there were, when the lists stop at MAX_ISSUES.
                "issueCounts": dict(self.counts),
                "totalPatientTurns": total,
                "avgSentencesPerTurn": round(self.sentences / total, 4) if total else 0.0,
                "elaborationRate": round(rate, 4),
                "clarificationRate": round(self.clarifications / total, 4) if total else 0.0,
                "refusalCount": self.refusals,
                "unsafeRequests": self.unsafe_requests,
                "agendaRevealCount": self.agenda_reveals,
                "duplicationScores": {
                    "openers": round(self.opener_repeats / (total - 1), 4) if total > 1 else 0.0,
                    "clarifications": round(self.clarification_repeats / self.clarifications, 4)
                    if self.clarifications
                    else 0.0,
                },
            },
        }


def reads_as_refusal(case: Case, text: str) -> bool:
    """Whether a patient turn reads, with no meta, as declining what was asked (as `refusal`)."""
    normal = _normal(case.lexicon.fold(text))
    return _first_phrase(normal, _Phrases.of(case).refusals) is not None or bool(
        case.lexicon.refusal.search(normal)
    )


def reads_as_clarification(case: Case, text: str) -> bool:
    """Whether a patient turn reads, with no meta, as asking the learner to clarify."""
    normal = _normal(case.lexicon.fold(text))
    return _first_phrase(normal, _Phrases.of(case).clarifications) is not None or bool(
        case.lexicon.clarification.search(normal)
    )


class ValidationTooSlow(RuntimeError):
    """The transcript did not validate within the caller's time budget."""

    def __init__(self, turns_read: int) -> None:
        super().__init__(f"stopped after {turns_read} turns: over the time budget")
        self.turns_read = turns_read


def validate_transcript(
    transcript: Sequence[Mapping[str, Any]], case: Case, *, deadline: float | None = None
) -> dict[str, Any]:
    """The `ValidationResult` of §11: `{errors, warnings, info, summaryMetrics}`.

    `deadline` (a `time.monotonic()` instant) bounds the time: an inline scenario's patterns run
    unreviewed, and one unbounded repetition is still quadratic in a long text, so a service
    stops between turns rather than run into its function's timeout."""
    check_shape(transcript)
    fold = case.lexicon.fold
    run = _Run.of(case)
    for position, turn in enumerate(transcript):
        if deadline is not None and time.monotonic() > deadline:
            raise ValidationTooSlow(position)
        if case.untrusted:
            # Patterns a request brought: one turn may not spend the whole transcript's budget.
            with matching_budget():
                _read(run, turn, fold)
        else:
            _read(run, turn, fold)
    return run.finish()


def _read(run: _Run, turn: Mapping[str, Any], fold: Callable[[str], str]) -> None:
    text: str = turn["text"]
    folded = fold(text)
    if turn["role"] == "learner":
        run.learner(turn["turnIndex"], folded)
        return
    run.patient(
        _Patient(
            turn["turnIndex"],
            text,
            folded,
            _normal(folded),
            runtime_meta(turn.get("meta")),
            sentence_count(text),
            run.case.language is Language.ZH,
        )
    )
