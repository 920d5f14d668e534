"""How the validator reads a patient turn: once, into `_Patient` (its text folded and normalised,
its meta when this runtime's, its sentences), against the case's stored phrases (`_Phrases`),
with the few text readings the rules share."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
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
# Someone else in the room, named by who they are before their words inside a patient turn
# ("Wife: And the cholesterol ones.", "女儿：他晚上也疼。"): a transcript of two roles writes them so.
_RELATIVE_SPEAKS = re.compile(
    r"\s*(?:(?:his|her|the)\s+)?(?:wife|husband|partner|son|daughter|mum|mom|mother|dad|father"
    r"|brother|sister|friend|carer|caregiver|interpreter|grandson|granddaughter"
    r"|妻子|老婆|爱人|老伴|丈夫|老公|女儿|儿子|妈妈|爸爸|家属|护工|陪护|翻译|姐姐|妹妹|哥哥|弟弟)"
    r"(?:\s*[(（][^)）]{0,20}[)）])?\s*[:：]",
    re.IGNORECASE,
)
# The patient speaking again after someone else: a pause or a dash before their words ("...I
# stopped them.").
_PATIENT_RESUMES = re.compile(r"\.\.\.|…|—|–")


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
        """The patient's telling, in sentences of at least a few words (what the narrative length
        counts): "Erm." "Sixteen?" "It's been... a lot." are pieces of one spoken sentence. A
        question handed back to the learner ("Was that stupid?") tells nothing, and a relative's
        words in the turn ("Wife: And the cholesterol ones. Go on, tell her.") are not the
        patient's, up to a pause or a dash before the patient's own again."""
        text = self.text
        count = 0
        relative = False
        previous_end = 0
        for start, end in sentence_spans(text):
            if _RELATIVE_SPEAKS.match(text, start):
                relative = True
            elif relative and _PATIENT_RESUMES.search(text, previous_end, start):
                relative = False
            previous_end = end
            if relative or (end < len(text) and text[end] in "?？"):
                continue
            count += _length(text[start:end], self.chinese) >= SPOKEN_SENTENCE
        return max(1, count)

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
    return next(((a, b) for a, b in sentence_spans(text) if a <= at < b), (0, len(text)))


def _length(text: str, chinese: bool) -> int:
    """Words, or in Chinese characters counted in pairs (a word is about two)."""
    if chinese:
        return (len(_CJK.findall(text)) + 1) // 2
    return len(_WORD.findall(text))
