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
"""

from __future__ import annotations

import re
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from persona_rails.user_patterns import matching_budget
from sps_encounter.engine.case import Language
from sps_encounter.engine.compiled import Case
from sps_encounter.engine.gates import Gated
from sps_encounter.engine.learner import guardrails_hit, question_type
from sps_encounter.engine.lint import _said as said_lines
from sps_encounter.engine.respond import Kind
from sps_encounter.engine.state import QuestionType
from sps_encounter.engine.text import opening_tokens, sentence_count, sentence_spans, with_arabic_numerals
from sps_encounter.engine.text_rules import TextRules, number_end, text_rules

ROLES = ("learner", "patient")
MAX_ISSUES = 1000
# Transcripts come from TypeScript systems too: a turn index must be a safe JavaScript integer.
MAX_TURN_INDEX = 2**53 - 1
ELIGIBLE = (QuestionType.OPEN, QuestionType.NARRATIVE)
RUNTIME_KINDS = frozenset(kind.value for kind in Kind)
# Ignored at the end of a stored phrase, and around a matched clause.
_EDGE = " .!?。！？…,，;；:：~～\"'”’)）"
_CLAUSE_BREAK = re.compile(r"[.!?。！？…,，;；:：\n]")
_NUMBER = re.compile(r"(?<![\d.])\d+(?:\.\d+)?")
_DIGIT = re.compile(r"\d")
_PERCENT = re.compile(r"(?:%|percent)$")
_WORD = re.compile(r"[^\W\d_]+(?:['-][^\W\d_]+)*|\d+")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_WORDLIKE = re.compile(r"[^\W_]")
_TAG_QUESTION = re.compile(
    r"[,，]\s*(?:isn'?t it|is it|aren'?t they|right|yeah|don'?t i|haven'?t i|isn'?t that|wouldn'?t it|eh"
    r"|surely|是吧|对吧|是不是|对不对|没错吧)\s*$"
)


# In words (Chinese: pairs of characters): a sentence shorter than this is a piece of speech, and
# a turn this long or shorter is a short answer or a backchannel.
SPOKEN_SENTENCE = 3
SHORT_TURN = 3
# A learner turn this short that asks about no fact follows up the one before ("Just that?"), up
# to this many turns back.
FOLLOW_UP_WORDS = 4
FOLLOW_UP_DEPTH = 3
# Longer than this, a turn holds more than SHORT_TURN words (or pairs of Chinese characters)
# whatever its words: the count is skipped.
SHORT_TEXT_CHARS = 60


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


def _issue(severity: str, code: str, turn_index: int, message: str, details: Any = None) -> dict[str, Any]:
    issue = {"severity": severity, "code": code, "turnIndex": turn_index, "message": message}
    if details is not None:
        issue["details"] = details
    return issue


def _normal(folded: str) -> str:
    """Whitespace runs as one space, none at the ends."""
    return " ".join(folded.split())


@dataclass(slots=True)
class _Patient:
    """One patient turn, read once."""

    index: int
    text: str
    folded: str
    normal: str
    meta: Mapping[str, Any] | None
    sentences: int
    chinese: bool

    @property
    def spoken_sentences(self) -> int:
        """Sentences of at least a few words: "Erm." "Sixteen?" "It's been... a lot." are pieces
        of one spoken sentence, not sentences of their own (what the narrative length counts)."""
        spans = sentence_spans(self.text)
        return max(1, sum(1 for a, b in spans if _length(self.text[a:b], self.chinese) >= SPOKEN_SENTENCE))

    @property
    def short(self) -> bool:
        """A few words at most ("Mm-hmm.", "No.", "没有。"): an answer or a backchannel, no opener."""
        if len(self.text) > SHORT_TEXT_CHARS:
            return False
        return _length(self.text, self.chinese) <= SHORT_TURN


def _meta_value(meta: Mapping[str, Any] | None, key: str, kind: type) -> Any:
    if meta is None:
        return None
    value = meta.get(key)
    return value if isinstance(value, kind) and not (kind is int and isinstance(value, bool)) else None


def _recorded(meta: Mapping[str, Any] | None, key: str) -> bool:
    """Whether the turn's meta speaks to `key` at all (a null there means "none this turn")."""
    return meta is not None and key in meta


def _first_phrase(normal: str, phrases: tuple[str, ...]) -> str | None:
    for phrase in phrases:
        if phrase in normal:
            return phrase
    return None


def _clause(normal: str, match: re.Match[str]) -> str:
    """The clause holding `match` (between , ; : and sentence breaks), its edges trimmed."""
    start = match.start()
    end = start + len(match.group().rstrip(_EDGE)) or match.end()
    before = [found.end() for found in _CLAUSE_BREAK.finditer(normal, 0, start)]
    after = _CLAUSE_BREAK.search(normal, end)
    clause = normal[before[-1] if before else 0 : after.start() if after else len(normal)]
    return clause.strip(_EDGE) or match.group().strip(_EDGE)


@dataclass(frozen=True)
class _Phrases:
    """The case's stored phrases, folded and normalised: whitespace collapsed, no trailing
    punctuation, so that a transcript typed by hand still matches them."""

    clarifications: tuple[str, ...]
    refusals: tuple[str, ...]
    dob_lines: tuple[str, ...]
    agenda_variants: tuple[tuple[str, str], ...]
    elaborations: tuple[str, ...]
    realizations: tuple[str, ...]

    @classmethod
    def of(cls, case: Case) -> _Phrases:
        fold = case.lexicon.fold
        stored = lambda texts: tuple(p for p in (_normal(fold(t)).rstrip(_EDGE) for t in texts) if p)  # noqa: E731
        pools = case.persona.pools
        dob = case.scenario.dob_challenge
        return cls(
            clarifications=stored(pools.clarifications),
            # Boundaries and privacy declines alike: the patient declining what was asked.
            refusals=stored((*pools.boundaries, *pools.declines)),
            dob_lines=stored(dob.lines) if dob else (),
            agenda_variants=tuple(
                (item.id, phrase) for item in case.scenario.hidden_agenda for phrase in stored(item.variants)
            ),
            elaborations=stored(
                (
                    *(e.text for slot in case.scenario.subjective_catalog for e in slot.elaborations),
                    *(quirk.text for quirk in case.persona.quirks),
                )
            ),
            realizations=stored(pools.realizations),
        )


@dataclass(slots=True)
class _Run:
    case: Case
    phrases: _Phrases
    rules: TextRules
    errors: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[dict[str, Any]] = field(default_factory=list)
    info: list[dict[str, Any]] = field(default_factory=list)
    # What the previous learner turn asked (folded), and its kind of question.
    asked: str | None = None
    question: QuestionType | None = None
    # The learner's last few turns (folded), newest last: a short follow-up ("Just that?",
    # "Anything else?", "还有吗？") is on the facts of the turn it follows. Read only when a
    # patient turn matches a fact's conflicts, so that other turns pay nothing for it.
    learner_turns: deque[str] = field(default_factory=lambda: deque(maxlen=FOLLOW_UP_DEPTH + 1))
    # Across the transcript.
    revealed: set[str] = field(default_factory=set)
    recent_clarifications: list[str] = field(default_factory=list)
    previous_bigram: str | None = None
    previous_opening: _Patient | None = None
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

    @classmethod
    def of(cls, case: Case) -> _Run:
        return cls(case, _Phrases.of(case), text_rules(case.language))

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
        # Whether it asked for a measurement is read only when the answer holds a number.
        self.asked = folded
        self.question = question_type(self.case, folded)
        self.learner_turns.append(folded)
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
        self.asked, self.question = None, None

    def _measuring(self) -> bool:
        return self.asked is not None and asks_for_measurement(self.case, self.asked)

    def numeric_leakage(self, turn: _Patient) -> None:
        normal = with_arabic_numerals(turn.normal) if turn.chinese else turn.normal
        if not _DIGIT.search(normal):
            return
        # After a measurement request the patient may read its result out, unless they wave the
        # measurement away and say the number themselves ("不用量了，三十八度一").
        if self._measuring() and not self.rules.declines_measurement.search(normal):
            return
        leaked = self._leaked_numbers(normal)
        if leaked:
            self.error(
                "NUMERIC_LEAKAGE",
                turn.index,
                "a measured value was said without the learner measuring anything",
                {"values": leaked},
            )

    def _leaked_numbers(self, normal: str) -> list[str]:
        """What reads as a measurement: a vital sign or lab value with its number ("blood pressure
        160/95", "心率88", "152 over 94"); a number with a unit of measurement, unless it tells a
        change ("lost 5 kilos", "90 percent better"); a bare number equal to an objective value,
        unless a unit of time or count follows ("20个小时", "98岁") or it is someone's age."""
        rules = self.rules
        leaked: list[tuple[int, int]] = []
        told: list[tuple[int, int]] = []
        for match in rules.vital_reading.finditer(normal):
            told.append(match.span())
            if rules.count_unit.match(normal, number_end(match)) or self._not_now(normal, match):
                continue
            leaked.append(match.span())
        for match in self.case.lexicon.measured_number.finditer(normal):
            told.append(match.span())
            start, end = match.span()
            if (
                self._share(match)
                or rules.history_before.search(normal, max(0, start - 40), start)
                or rules.history_after.match(normal, end)
                or rules.load_before.search(normal, max(0, start - 40), start)
                or self._not_now(normal, match)
            ):
                continue
            leaked.append(match.span())
        for match in _NUMBER.finditer(normal):
            if match.group() not in self.case.objective_numbers:
                continue
            start, end = match.span()
            if any(a <= start < b for a, b in told):
                continue
            if rules.count_unit.match(normal, end) or rules.age_before.search(
                normal, max(0, start - 60), start
            ):
                continue
            leaked.append(match.span())
        # One value per reading: "blood pressure 152/94" and "152/94 mmHg" overlap, so the
        # longer stands for both.
        kept: list[tuple[int, int]] = []
        for start, end in sorted(set(leaked), key=lambda span: span[0] - span[1]):
            if all(end <= a or start >= b for a, b in kept):
                kept.append((start, end))
        return list(dict.fromkeys(normal[a:b].strip() for a, b in sorted(kept)))

    def _share(self, match: re.Match[str]) -> bool:
        """A percentage that is none of today's values tells a share ("they take the edge off,
        maybe 50 percent", "a 10% chance"), not a saturation: those are read by `vital_reading`
        with their word ("sats 94")."""
        return _PERCENT.search(match.group()) is not None and not self._todays(match.group())

    def _todays(self, value: str) -> bool:
        """Whether a value said is one of today's findings: a pair ("138 over 88") only as the
        whole reading, a single number as any of them."""
        numbers = _NUMBER.findall(value)
        if len(numbers) == 2 and self.case.objective_pairs:
            return "/".join(numbers) in self.case.objective_pairs
        return any(number in self.case.objective_numbers for number in numbers)

    def _not_now(self, normal: str, match: re.Match[str]) -> bool:
        """A value that is no reading taken now: its sentence places it in the past or elsewhere
        ("at the pharmacy in August", "the machine said", "I was 95 kilos at Christmas",
        "usually"), imagines it ("if it went up to 180…"), or gives it to someone else before it
        ("my husband's is high too, 150 over 95", "我爸血压高，六十多了"). Never one of today's
        findings: "my pulse was 88" is the case's 88 told before anyone measured it."""
        if self._todays(match.group()):
            return False
        start = match.start()
        sentence_start, sentence_end = _sentence_around(normal, start)
        remembered = self.rules.remembered.search(normal, sentence_start, sentence_end) is not None
        return remembered or self._not_own(normal, start)

    def agenda(self, turn: _Patient) -> None:
        told = _meta_value(turn.meta, "agendaRevealed", list)
        if told is not None:
            told = [item for item in told if isinstance(item, str)]
        else:
            told = list(
                dict.fromkeys(
                    item for item, variant in self.phrases.agenda_variants if variant in turn.normal
                )
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

    def clarification(self, turn: _Patient) -> None:
        phrase = _meta_value(turn.meta, "clarification", str)
        if phrase is not None:
            phrase = self._recorded_phrase(phrase)
        elif not _recorded(turn.meta, "clarification"):
            phrase = self._said_phrase(turn, self.phrases.clarifications, self.case.lexicon.clarification)
        if phrase is None:
            return
        self.clarifications += 1
        if phrase in self.recent_clarifications:
            self.clarification_repeats += 1
            self.error(
                "CLARIFICATION_REPEATED",
                turn.index,
                "this clarification was used in the last 3 clarifications",
                {"phrase": phrase},
            )
        self.recent_clarifications.append(phrase)
        del self.recent_clarifications[:-3]

    def diagnosis(self, turn: _Patient) -> None:
        for _, first in self.case.diagnosis.matches(turn.normal):
            for match in first.re.finditer(turn.normal, first.start()):
                if not self._excused(turn.normal, match):
                    self.error(
                        "DIAGNOSIS_OR_COACHING",
                        turn.index,
                        "the patient diagnosed or coached",
                        {"match": match.group(0)},
                    )
                    return

    def _excused(self, normal: str, match: re.Match[str]) -> bool:
        """A diagnosis or coaching match that is not the patient's own: inside one of the case's
        stored lines; in a question the patient asks the learner ("can you prescribe…?"); after
        someone else's words ("my GP said…") or the patient's fear ("I'm scared I'm having…")."""
        start, end = match.span()
        for line in self._said():
            at = normal.find(line)
            while at != -1:
                if at <= start and end <= at + len(line):
                    return True
                at = normal.find(line, at + 1)
        sentence_start, sentence_end = _sentence_around(normal, start)
        rules = self.rules
        lead = normal[sentence_start:start]
        if rules.reported.search(lead) or rules.fear.search(lead):
            return True
        closing = normal[sentence_end : sentence_end + 3]
        # A question the patient asks ("Is it angina?", "会不会是阑尾炎？", "can you prescribe…?")
        # is a worry or a request, not the patient diagnosing or coaching; a statement with a tag
        # ("It's probably angina, isn't it?") still states it.
        sentence = normal[sentence_start:sentence_end].rstrip()
        asked = "?" in closing or "？" in closing or sentence.endswith(("吗", "呢"))
        return asked and not _TAG_QUESTION.search(sentence)

    def _said(self) -> tuple[str, ...]:
        if self.said is None:
            fold = self.case.lexicon.fold
            lines = (_normal(fold(line)).rstrip(_EDGE) for _, line, _ in said_lines(self.case))
            self.said = tuple(dict.fromkeys(line for line in lines if line))
        return self.said

    def dob_challenge(self, turn: _Patient) -> None:
        phrase = _first_phrase(turn.normal, self.phrases.dob_lines)
        challenge = _meta_value(turn.meta, "dobChallenge", bool)
        if challenge is None:
            challenge = phrase is not None
        if challenge:
            self.dob_challenges += 1
            if self.dob_challenges > 1:
                self.error(
                    "DOB_CHALLENGE_REPEATED",
                    turn.index,
                    "the DOB challenge was used more than once",
                    {"phrase": phrase or turn.normal.rstrip(_EDGE)},
                )

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
        asked: set[str] | None = None
        for slot, match in self.case.conflicts.matches(turn.folded):
            # One issue per slot and turn, however often the turn repeats the contradiction.
            if slot in reported:
                continue
            if asked is None:
                asked = self._topic()
            # "No, it's not that bad" answers the question asked: it contradicts the severity only
            # when the learner asked about the severity (or about no fact at all). A short
            # follow-up ("Just that?") is still on the facts asked before it.
            if asked and slot not in asked:
                continue
            # "If I'm off for six weeks…" imagines, and "my sister gets the stabbing kind" tells
            # someone else's: neither states anything about the case.
            if self._not_own(turn.folded, match.start()):
                continue
            reported.add(slot)
            self.error(
                "FACT_CONTRADICTION",
                turn.index,
                f"this contradicts the case's {slot}",
                {"slot": slot, "match": match.group(0)},
            )

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

    def _topic(self) -> set[str]:
        """The facts the learner's turn before asked about or, when it was a short follow-up that
        asked about none, the facts of the turn it followed (at most FOLLOW_UP_DEPTH back)."""
        if self.asked is None:
            return set()
        chinese = self.case.language is Language.ZH
        for asked in reversed(self.learner_turns):
            slots = self._asked_slots(asked)
            follow_up = self.case.lexicon.vague.search(asked) or _length(asked, chinese) <= FOLLOW_UP_WORDS
            if slots or not follow_up:
                return slots
        return set()

    def _asked_slots(self, asked: str | None) -> set[str]:
        """The case facts a learner turn asked about (history or examination)."""
        if asked is None:
            return set()
        case = self.case
        return {slot for slot, pattern in (*case.slot_match, *case.objective_match) if pattern.search(asked)}

    def _opens_nothing(self, turn: _Patient) -> bool:
        return turn.short or self._answer_word_first(turn)

    def _answer_word_first(self, turn: _Patient) -> bool:
        """A Chinese turn opening with a yes or a no set apart ("没有，医院都没住过。", "对，…"):
        its first two characters are that answer, not an opener."""
        if self.case.language is not Language.ZH:
            return False
        clause = _CLAUSE_BREAK.split(turn.normal, maxsplit=1)[0].strip()
        lexicon = self.case.lexicon
        return len(_CJK.findall(clause)) <= 2 and (
            clause in lexicon.source.affirmatives or bool(lexicon.negation.match(clause))
        )

    def opener_echo(self, turn: _Patient) -> None:
        # A short answer or a backchannel ("Mm-hmm.", "No, never.", "没有。") opens nothing: two
        # in a row are no echo, and neither is a turn after one. Read only on a repeat (most turns
        # open differently), so it costs nothing per turn.
        tokens = opening_tokens(turn.folded, self.case.language)
        bigram = ("" if self.case.language is Language.ZH else " ").join(tokens) if len(tokens) == 2 else None
        previous, self.previous_opening = self.previous_opening, turn
        if (
            bigram
            and bigram == self.previous_bigram
            and previous is not None
            and not self._opens_nothing(turn)
            and not self._opens_nothing(previous)
        ):
            self.opener_repeats += 1
            self.warn(
                "OPENER_ECHO",
                turn.index,
                "the same opening as the previous patient turn",
                {"bigram": bigram},
            )
        self.previous_bigram = bigram

    def refusal(self, turn: _Patient) -> None:
        """A refusal is the patient declining what the learner asked: a safety boundary or a
        privacy decline, with meta or without."""
        meta = turn.meta
        phrase: str | None = None
        if _recorded(meta, "refusal") or _recorded(meta, "declined"):
            recorded = _meta_value(meta, "refusal", str)
            declined = _meta_value(meta, "declined", list)
            if recorded is not None:
                phrase = self._recorded_phrase(recorded)
            elif declined and any(isinstance(slot, str) for slot in declined):
                phrase = self._said_phrase(turn, self.phrases.refusals, self.case.lexicon.refusal)
                if phrase is None:
                    phrase = "declined: " + ", ".join(slot for slot in declined if isinstance(slot, str))
        else:
            phrase = self._said_phrase(turn, self.phrases.refusals, self.case.lexicon.refusal)
        if phrase is not None:
            self.refusals += 1
            if phrase == self.previous_refusal:
                self.warn(
                    "REFUSAL_REPEATED",
                    turn.index,
                    "the previous turn's refusal phrase again",
                    {"phrase": phrase},
                )
        self.previous_refusal = phrase

    def disfluency(self, turn: _Patient) -> None:
        """Tokens the runtime inserted, counted one by one. In a transcript from elsewhere, a
        hesitation is one however it is spelled ("uh… um,", "嗯……呃"): tokens with nothing but
        punctuation and spaces between them count once."""
        disfluency = self.case.lexicon.disfluency
        tokens = len(disfluency.findall(turn.folded))
        if tokens > 1 and turn.meta is None:
            found = list(disfluency.finditer(turn.folded))
            tokens -= sum(
                1
                for before, after in pairwise(found)
                if not _WORDLIKE.search(turn.folded, before.end(), after.start())
            )
        if tokens > self.case.policy.validator.max_disfluencies_per_turn:
            self.warn(
                "DISFLUENCY_EXCESS", turn.index, f"{tokens} disfluency tokens in one turn", {"count": tokens}
            )

    def narrative_length(self, turn: _Patient) -> None:
        limit = self.case.persona.narrative_max_sentences
        # Spoken sentences are never more than sentences: counted only when they may matter.
        if turn.sentences > limit and (spoken := turn.spoken_sentences) > limit:
            self.note(
                "NARRATIVE_TOO_LONG",
                turn.index,
                f"{spoken} sentences, over the persona's {limit}",
                {"sentences": spoken},
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
        """With no meta: one of the case's stored elaborations (or persona quirks) is said.

        Length is no sign of it: a person answering an open question at length is answering it.
        Micro-elaboration is the runtime adding one of its stored details; a transcript from
        elsewhere is measured on those details only."""
        return _first_phrase(turn.normal, self.phrases.elaborations) is not None

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


def asks_for_measurement(case: Case, folded: str) -> bool:
    """A learner turn that measures or examines ("Can we check your blood pressure?"), reads a
    result out ("152 over 94, pulse 88."), or asks for a reading the patient knows ("What's your
    usual blood pressure?", "What did your home monitor say?"): after it, the patient may say a
    number."""
    rules = text_rules(case.language)
    return bool(
        case.lexicon.measurement.search(folded)
        or rules.reading_request.search(folded)
        or rules.vital_reading.search(folded)
    )


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


def _sentence_around(text: str, at: int) -> tuple[int, int]:
    """The span of the sentence holding position `at` (the whole text when none does)."""
    return next(((a, b) for a, b in sentence_spans(text) if a <= at < b), (0, len(text)))


def _length(text: str, chinese: bool) -> int:
    """Words, or in Chinese characters counted in pairs (a word is about two)."""
    if chinese:
        return (len(_CJK.findall(text)) + 1) // 2
    return len(_WORD.findall(text))
