"""How the validator reads a patient turn: once, into `_Patient` (its text folded and normalised,
its meta when this runtime's, its sentences), against the case's stored phrases (`_Phrases`),
with the few text readings the rules share."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sps_encounter.engine.compiled import Case
from sps_encounter.engine.text import sentence_spans

# Ignored at the end of a stored phrase, and around a matched clause.
_EDGE = " .!?。！？…,，;；:：~～\"'”’)）"
_CLAUSE_BREAK = re.compile(r"[.!?。！？…,，;；:：\n]")
_WORD = re.compile(r"[^\W\d_]+(?:['-][^\W\d_]+)*|\d+")
_CJK = re.compile(r"[\u4e00-\u9fff]")

# In words (Chinese: pairs of characters): a sentence shorter than this is a piece of speech, and
# a turn this long or shorter is a short answer or a backchannel.
SPOKEN_SENTENCE = 3
SHORT_TURN = 3
# Longer than this, a turn holds more than SHORT_TURN words (or pairs of Chinese characters)
# whatever its words: the count is skipped.
SHORT_TEXT_CHARS = 60
# Someone who came with the patient, named by who they are before their words inside a patient
# turn ("Wife: And the cholesterol ones.", "女儿：他晚上也疼。"): a transcript of two roles writes them
# so. Not a parent or a sibling: "Mother: diabetes. Father: heart attack." is the patient reading
# out a family history. An interpreter's words are the patient's story in translation, but are not
# the persona's own telling, which is what the narrative length bounds: they are left out too.
_COMPANION_SPEAKS = re.compile(
    r"\s*(?:(?:his|her|the)\s+)?(?:wife|husband|partner|son|daughter|friend|carer|caregiver|interpreter"
    r"|妻子|老婆|爱人|老伴|丈夫|老公|女儿|儿子|家属|护工|陪护|翻译)"
    r"(?:\s*[(（][^)）]{0,20}[)）])?\s*[:：]",
    re.IGNORECASE,
)
# The patient named as the speaker again ("Patient: Well, it started…", "Mr Evans:", "患者：").
_PATIENT_SPEAKS = re.compile(
    r"\s*(?:patient|pt|me|(?:mr|mrs|ms|miss)\.?\s+[^\W\d_]+|患者|病人)\s*[:：]", re.IGNORECASE
)
# Or, unnamed, after a pause or a dash and in the first person ("...I stopped them."): the
# companion's own pause ("He's been up all night... he was sick") goes on in the third.
_PATIENT_RESUMES = re.compile(r"(?:\.\.\.|…|—|–)\s*$")
_FIRST_PERSON = re.compile(r"\s*(?:i\b|i'|我)", re.IGNORECASE)
# A stage direction in brackets ("(Looks at the phone, then puts it down.)"): no one's telling.
_STAGE_DIRECTION = re.compile(r"[(（][^()（）\n]{0,200}[)）]")
# An item of a list read out: a count set apart ("One, can I keep driving."), an ordinal, a
# weekday ("Wednesday, one fifty-five over ninety-five."), 第二/二是/周三. Items in a row are one
# answer read from a list or a diary, not a story told at length.
_LIST_ITEM = re.compile(
    r"\W{0,3}(?:and\s+)?(?:(?:one|two|three|four|five|six|seven|eight|nine|ten|\d{1,2})\s?[,.:)]"
    r"|(?:first|second|third|fourth|fifth|sixth)(?:ly)?\b|(?:mon|tues|wednes|thurs|fri|satur|sun)day\b"
    r"|第[一二三四五六七八九十]|[一二三四五六七八九十][是、]|周[一二三四五六日天]|星期[一二三四五六日天])",
    re.IGNORECASE,
)
# Speakers named in brackets ("(Daniel:) It's my chest. (Ryan:) And he gets it in bed, Dad —
# (Daniel:) No.", "[Tom:]", "(Mary-Jane):"): when one of them is the patient (by name, a short form
# of it, or "Patient"), the others are companions. Starts on its bracket, so a run of spaces is
# never tried twice.
_PATIENT_LABELS = frozenset({"Patient", "Pt", "患者", "病人"})
_NAMED_SPEAKER = re.compile(
    r"[(（\[]\s*(?P<name>[A-Z][a-z]+(?:-[A-Z][a-z]+)?|[\u4e00-\u9fff]{1,4})\s*(?:[:：]\s*[)）\]]|[)）\]]\s*[:：])"
)
# A question handed back to the learner has no tag before its mark, and is short ("Was that
# stupid?") or asks the learner ("I was hoping you'd send me for a scan?"); "It started on
# Monday, you know?" still tells.
HANDED_BACK_WORDS = 6
_TO_THE_LEARNER = re.compile(r"\byou(?:'d|'re|'ll|r)?\b|\bdoctor\b|\bdoc\b|你|您|医生|大夫", re.IGNORECASE)


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

    def spoken_sentences(self, patient_names: frozenset[str]) -> int:
        """The patient's telling, in sentences of at least a few words (what the narrative length
        counts): "Erm." "Sixteen?" "It's been... a lot." are pieces of one spoken sentence. A short
        question handed back to the learner ("Was that stupid?") tells nothing, and a companion's
        words in the turn ("Wife: And the cholesterol ones. Go on, tell her.", "(Tom:) She's been
        up at night…" when the patient is Emma) are not the patient's, until the patient is named
        again or speaks again in the first person after a pause or a dash. Items of a list read out
        one after another count as one sentence."""
        text = self.text
        count = 0
        companion = False
        previous_end = 0
        labels = list(_NAMED_SPEAKER.finditer(text)) if "(" in text or "（" in text or "[" in text else []
        if not any(_names_patient(label, patient_names) for label in labels):
            labels = []
        next_label = 0
        # A stage direction ("(Looks at the phone, then puts it down.)") is no telling: its words
        # are blanked for the count, in place, so that the sentences keep their positions.
        said = (
            _STAGE_DIRECTION.sub(lambda found: " " * len(found.group()), text)
            if "(" in text or "（" in text
            else text
        )
        listing = False
        for start, end in sentence_spans(text):
            opening = start + len(text[start:end]) - len(text[start:end].lstrip())
            # The labels up to this sentence's first word say who speaks it.
            labelled = False
            while next_label < len(labels) and labels[next_label].start() <= opening:
                companion = not _names_patient(labels[next_label], patient_names)
                labelled = True
                next_label += 1
            if not labelled:
                companion = self._companion_speaks(companion, start, previous_end)
            previous_end = end
            counted = not companion and not self._handed_back(start, end)
            item = _LIST_ITEM.match(said, opening, end) is not None
            if counted and item and listing:
                counted = False
            listing = item
            if counted and _length(said[start:end], self.chinese) >= SPOKEN_SENTENCE:
                count += 1
            # A name inside the sentence hands the next ones to whoever it names.
            while next_label < len(labels) and labels[next_label].start() < end:
                companion = not _names_patient(labels[next_label], patient_names)
                next_label += 1
        return max(1, count)

    def _companion_speaks(self, companion: bool, start: int, previous_end: int) -> bool:
        """Whether a companion speaks the sentence at `start`, named by who they are ("Wife:"),
        or goes on speaking until the patient is named or resumes in the first person."""
        text = self.text
        if _COMPANION_SPEAKS.match(text, start):
            return True
        resumes = _PATIENT_RESUMES.search(text, previous_end, start) and _FIRST_PERSON.match(text, start)
        if _PATIENT_SPEAKS.match(text, start) or (companion and resumes):
            return False
        return companion

    def _handed_back(self, start: int, end: int) -> bool:
        sentence = self.text[start:end]
        if "?" not in self.text[end : end + 2] and "？" not in self.text[end : end + 2]:
            return False
        if "," in sentence or "，" in sentence:
            return False
        return _length(sentence, self.chinese) <= HANDED_BACK_WORDS or bool(_TO_THE_LEARNER.search(sentence))

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


def _sentence_around(text: str, at: int) -> tuple[int, int]:
    """The span of the sentence holding position `at` (the whole text when none does)."""
    starts, spans = _sentences(text)
    position = bisect_right(starts, at) - 1
    if position >= 0 and at < spans[position][1]:
        return spans[position]
    return (0, len(text))


def _next_sentence_end(text: str, end: int) -> int:
    """Where the sentence after the one ending at `end` ends (`end` when none follows)."""
    starts, spans = _sentences(text)
    position = bisect_left(starts, end)
    return spans[position][1] if position < len(spans) else end


@lru_cache(maxsize=8)
def _sentences(text: str) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
    """The sentence spans of `text` and their starts, found once per text: the rules ask for the
    sentence around every number or conflict they read, and a long turn of many numbers would
    otherwise be split into sentences once per number."""
    spans = tuple(sentence_spans(text))
    return tuple(start for start, _ in spans), spans


def _length(text: str, chinese: bool) -> int:
    """Words, or in Chinese characters counted in pairs (a word is about two)."""
    if chinese:
        return (len(_CJK.findall(text)) + 1) // 2
    return len(_WORD.findall(text))


def _names_patient(label: re.Match[str], patient_names: frozenset[str]) -> bool:
    """Whether a bracketed speaker's name is the patient's (a Chinese label may be part of the
    full name: 晓雯 of 林晓雯)."""
    name = label.group("name")
    if name in _PATIENT_LABELS or name in patient_names:
        return True
    if name.isascii():
        # A short form of the name ("Em" for Emma).
        return len(name) >= 2 and any(whole.startswith(name) for whole in patient_names)
    return any(name in whole for whole in patient_names)
