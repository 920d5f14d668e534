"""`validateTranscript` (spec §10–12): QA issues and metrics for any transcript.

The input is §11's: turns `{turnIndex, role: 'learner'|'patient', text, meta?}` with the
scenario and persona they were played with. A transcript from this runtime carries `meta`, and
the validator reads what it records (elaboration, clarification, refusal, agenda reveals, DOB
challenge, facts stated); a transcript from elsewhere has none, and the same rules run on the
text against the case's stored phrases and patterns. Issue codes and severities:

| code | severity | rule |
|---|---|---|
| NUMERIC_LEAKAGE | ERROR | a measured number (with a unit, or an objective value), nothing measured |
| AGENDA_REVEALED_TWICE | ERROR | a hidden agenda item revealed again |
| CLARIFICATION_REPEATED | ERROR | a clarification phrase used in the last 3 clarifications |
| DIAGNOSIS_OR_COACHING | ERROR | diagnosis or coaching lexicon, or the case's diagnosis terms |
| DOB_CHALLENGE_REPEATED | ERROR | more than one DOB challenge |
| FACT_CONTRADICTION | ERROR | a slot stated with another value, or a wording contradicting a fact |
| OPENER_ECHO | WARN | the same opening bigram as the previous patient turn |
| REFUSAL_REPEATED | WARN | the previous patient turn's refusal phrase, consecutively |
| ELABORATION_RATE_HIGH | WARN | more than 45% of eligible turns elaborated |
| DISFLUENCY_EXCESS | WARN | more than 1 disfluency token in a turn |
| NARRATIVE_TOO_LONG | INFO | more sentences than the persona's narrative maximum |
| NO_CLARIFICATION_FOR_VAGUE_PROMPTS | INFO | more than 5 vague prompts and not one clarification |
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sps_encounter.engine.compiled import Case
from sps_encounter.engine.learner import guardrails_hit, question_type
from sps_encounter.engine.state import QuestionType
from sps_encounter.engine.text import numbers, opening_bigram, sentence_count

ROLES = ("learner", "patient")
MAX_ISSUES = 1000
ELIGIBLE = (QuestionType.OPEN, QuestionType.NARRATIVE)


class TranscriptError(ValueError):
    """A transcript the validator cannot read; `path` names the turn and field."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


def check_shape(transcript: Sequence[Mapping[str, Any]]) -> None:
    """Roles are 'learner' or 'patient', turn indexes are integers that strictly increase."""
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
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise TranscriptError(f"transcript[{position}].turnIndex", "must be a non-negative integer")
        if previous is not None and index <= previous:
            raise TranscriptError(
                f"transcript[{position}].turnIndex", f"must increase: {index} follows {previous}"
            )
        if not isinstance(turn.get("text"), str):
            raise TranscriptError(f"transcript[{position}].text", "must be a string")
        meta = turn.get("meta")
        if meta is not None and not isinstance(meta, Mapping):
            raise TranscriptError(f"transcript[{position}].meta", "must be an object when present")
        previous = index


def _issue(severity: str, code: str, turn_index: int, message: str, details: Any = None) -> dict[str, Any]:
    issue = {"severity": severity, "code": code, "turnIndex": turn_index, "message": message}
    if details is not None:
        issue["details"] = details
    return issue


@dataclass(slots=True)
class _Patient:
    """One patient turn, read once."""

    index: int
    text: str
    folded: str
    meta: Mapping[str, Any] | None
    sentences: int


def _meta_value(meta: Mapping[str, Any] | None, key: str, kind: type) -> Any:
    if meta is None:
        return None
    value = meta.get(key)
    return value if isinstance(value, kind) and not (kind is int and isinstance(value, bool)) else None


def _recorded(meta: Mapping[str, Any] | None, key: str) -> bool:
    """Whether the turn's meta speaks to `key` at all (a null there means "none this turn")."""
    return meta is not None and key in meta


def _first_phrase(folded: str, phrases: tuple[str, ...]) -> str | None:
    for phrase in phrases:
        if phrase in folded:
            return phrase
    return None


@dataclass(slots=True)
class _Run:
    case: Case
    errors: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[dict[str, Any]] = field(default_factory=list)
    info: list[dict[str, Any]] = field(default_factory=list)
    # What the previous learner turn asked.
    measuring: bool = False
    question: QuestionType | None = None
    # Across the transcript.
    revealed: set[str] = field(default_factory=set)
    recent_clarifications: list[str] = field(default_factory=list)
    previous_bigram: str | None = None
    previous_refusal: str | None = None
    dob_challenges: int = 0
    stated: dict[str, Any] = field(default_factory=dict)
    last_patient_index: int = 0
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

    # Learner turns

    def learner(self, index: int, folded: str) -> None:
        lexicon = self.case.lexicon
        self.measuring = bool(lexicon.measurement.search(folded))
        self.question = question_type(self.case, folded)
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
        self.measuring, self.question = False, None

    def numeric_leakage(self, turn: _Patient) -> None:
        if self.measuring:
            return
        leaked = self.case.lexicon.measured_number.search(turn.folded)
        objective = [n for n in numbers(turn.text) if n in self.case.objective_numbers]
        if leaked or objective:
            self.error(
                "NUMERIC_LEAKAGE",
                turn.index,
                "a measured value was said without the learner measuring anything",
                {"values": [leaked.group(0)] if leaked else objective},
            )

    def agenda(self, turn: _Patient) -> None:
        told = _meta_value(turn.meta, "agendaRevealed", list)
        if told is not None:
            told = [item for item in told if isinstance(item, str)]
        else:
            told = list(
                dict.fromkeys(item for item, variant in self.case.agenda_variants if variant in turn.folded)
            )
        for item in told:
            if item in self.revealed:
                self.error(
                    "AGENDA_REVEALED_TWICE",
                    turn.index,
                    f"hidden agenda item {item} was revealed before",
                    {"id": item},
                )
            self.revealed.add(item)
        self.agenda_reveals += len(told)

    def clarification(self, turn: _Patient) -> None:
        fold = self.case.lexicon.fold
        phrase = _meta_value(turn.meta, "clarification", str)
        if phrase is not None:
            phrase = fold(phrase)
        elif not _recorded(turn.meta, "clarification"):
            phrase = _first_phrase(turn.folded, self.case.clarification_phrases)
            if phrase is None and self.case.lexicon.clarification.search(turn.folded):
                phrase = turn.folded
        if phrase is None:
            return
        self.clarifications += 1
        if phrase in self.recent_clarifications:
            self.clarification_repeats += 1
            self.error(
                "CLARIFICATION_REPEATED",
                turn.index,
                "this clarification was used in the last 3 clarifications",
            )
        self.recent_clarifications.append(phrase)
        del self.recent_clarifications[:-3]

    def diagnosis(self, turn: _Patient) -> None:
        found = self.case.diagnosis.first(turn.folded)
        if found:
            self.error(
                "DIAGNOSIS_OR_COACHING",
                turn.index,
                "the patient diagnosed or coached",
                {"match": found[1].group(0)},
            )

    def dob_challenge(self, turn: _Patient) -> None:
        challenge = _meta_value(turn.meta, "dobChallenge", bool)
        if challenge is None:
            challenge = _first_phrase(turn.folded, self.case.dob_lines) is not None
        if challenge:
            self.dob_challenges += 1
            if self.dob_challenges > 1:
                self.error("DOB_CHALLENGE_REPEATED", turn.index, "the DOB challenge was used more than once")

    def contradictions(self, turn: _Patient) -> None:
        for slot, value in (_meta_value(turn.meta, "slots", Mapping) or {}).items():
            known = self.stated.get(slot, self.case.fact_values.get(slot))
            if known is not None and known != value:
                self.error(
                    "FACT_CONTRADICTION",
                    turn.index,
                    f"slot {slot} was stated with a value other than the case's or an earlier turn's",
                    {"slot": slot, "before": known, "now": value},
                )
            self.stated.setdefault(slot, value)
        reported: set[str] = set()
        for slot, match in self.case.conflicts.matches(turn.folded):
            # One issue per slot and turn, however often the turn repeats the contradiction.
            if slot in reported:
                continue
            reported.add(slot)
            self.error(
                "FACT_CONTRADICTION",
                turn.index,
                f"this contradicts the case's {slot}",
                {"slot": slot, "match": match.group(0)},
            )

    def opener_echo(self, turn: _Patient) -> None:
        bigram = opening_bigram(turn.folded, self.case.language)
        if bigram and bigram == self.previous_bigram:
            self.opener_repeats += 1
            self.warn(
                "OPENER_ECHO", turn.index, "the same opening as the previous patient turn", {"bigram": bigram}
            )
        self.previous_bigram = bigram

    def refusal(self, turn: _Patient) -> None:
        phrase = _meta_value(turn.meta, "refusal", str)
        if phrase is not None:
            phrase = self.case.lexicon.fold(phrase)
        elif not _recorded(turn.meta, "refusal"):
            phrase = _first_phrase(turn.folded, self.case.boundary_phrases)
            if phrase is None and self.case.lexicon.refusal.search(turn.folded):
                phrase = turn.folded
        if phrase is not None:
            self.refusals += 1
            if phrase == self.previous_refusal:
                self.warn("REFUSAL_REPEATED", turn.index, "the previous turn's refusal phrase again")
        self.previous_refusal = phrase

    def disfluency(self, turn: _Patient) -> None:
        tokens = len(self.case.lexicon.disfluency.findall(turn.folded))
        if tokens > self.case.policy.validator.max_disfluencies_per_turn:
            self.warn(
                "DISFLUENCY_EXCESS", turn.index, f"{tokens} disfluency tokens in one turn", {"count": tokens}
            )

    def narrative_length(self, turn: _Patient) -> None:
        limit = self.case.persona.narrative_max_sentences
        if turn.sentences > limit:
            self.note(
                "NARRATIVE_TOO_LONG",
                turn.index,
                f"{turn.sentences} sentences, over the persona's {limit}",
                {"sentences": turn.sentences},
            )

    def elaboration(self, turn: _Patient) -> None:
        """Counted on eligible turns: after an open or narrative question."""
        asked = _meta_value(turn.meta, "questionType", str)
        eligible = asked in ("open", "narrative") if asked is not None else self.question in ELIGIBLE
        if not eligible:
            return
        self.eligible += 1
        elaborated = _meta_value(turn.meta, "elaborated", bool)
        if elaborated is None:
            elaborated = self._reads_as_elaborated(turn)
        self.elaborated += elaborated

    def _reads_as_elaborated(self, turn: _Patient) -> bool:
        """With no meta: one of the case's stored elaborations is said, or the turn runs longer
        than a plain answer once its agenda clauses and a realization ("Oh, you mean…") are set
        aside."""
        case = self.case
        if _first_phrase(turn.folded, case.elaboration_phrases) is not None:
            return True
        aside = sum(1 for _, variant in case.agenda_variants if variant in turn.folded)
        aside += sum(sentence_count(phrase) for phrase in case.realization_phrases if phrase in turn.folded)
        return turn.sentences - aside > case.persona.answer_sentences

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


def validate_transcript(transcript: Sequence[Mapping[str, Any]], case: Case) -> dict[str, Any]:
    """The `ValidationResult` of §11: `{errors, warnings, info, summaryMetrics}`."""
    check_shape(transcript)
    fold = case.lexicon.fold
    run = _Run(case)
    for turn in transcript:
        text: str = turn["text"]
        folded = fold(text)
        if turn["role"] == "learner":
            run.learner(turn["turnIndex"], folded)
            continue
        meta = turn.get("meta")
        run.patient(
            _Patient(
                turn["turnIndex"],
                text,
                folded,
                meta if isinstance(meta, Mapping) else None,
                sentence_count(text),
            )
        )
    return run.finish()
