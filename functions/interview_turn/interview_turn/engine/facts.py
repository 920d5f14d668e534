"""Checkable facts in a narrator's answer (years, ages, places, names) and conflicts between them.

A fact is anchored to the life event its sentence names ("born", "moved", "married"...): "we
moved in 1985" and "we moved in 1987" conflict, while "born in 1950" and "moved in 1985" do not.
Unanchored facts are kept but never compared, because "I was 12" in one sentence and "I was 15"
in another usually describe two moments, not one memory told twice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from interview_turn.engine.config import CompiledLexicon
from interview_turn.engine.model import Fact, FactKind

UNANCHORED = "*"
_SENTENCE = re.compile(r"[^.!?。！？;；\n]+")
_CHINESE_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
# How sure a conflict of each kind is: an anchored year or age rarely has two true values, while
# a brother may well have two names if there are two brothers.
CONFLICT_CONFIDENCE = {FactKind.YEAR: 0.9, FactKind.AGE: 0.85, FactKind.PLACE: 0.8, FactKind.NAME: 0.5}


@dataclass(frozen=True)
class FactConflict:
    kind: FactKind
    anchor: str
    earlier: str
    current: str
    earlier_turn: int
    confidence: float

    @property
    def key(self) -> str:
        return f"{self.kind.value}:{self.anchor}"


def chinese_number(text: str) -> int | None:
    """一..九十九 as an integer (ages are written this way as often as in digits)."""
    if text.isdigit():
        return int(text)
    tens, ten, ones = text.partition("十")
    if not ten:
        return _CHINESE_DIGITS.get(text) if len(text) == 1 else None
    if any(part and part not in _CHINESE_DIGITS for part in (tens, ones)):
        return None
    return (_CHINESE_DIGITS[tens] if tens else 1) * 10 + (_CHINESE_DIGITS[ones] if ones else 0)


def _anchor(sentence: str, lexicon: CompiledLexicon) -> str:
    for name, patterns in lexicon.anchors:
        if any(pattern.search(sentence) for pattern in patterns):
            return name
    return UNANCHORED


def _values(kind: FactKind, sentence: str, lexicon: CompiledLexicon) -> list[str]:
    found: list[str] = []
    if kind is FactKind.YEAR:
        found = [m.group(1) for p in lexicon.years for m in p.finditer(sentence)]
    elif kind is FactKind.AGE:
        for pattern in lexicon.ages:
            for match in pattern.finditer(sentence):
                age = chinese_number(match.group(1))
                if age is not None and 0 < age < 120:
                    found.append(str(age))
    elif kind is FactKind.PLACE:
        found = [
            m.group(1).strip()
            for p in lexicon.places
            for m in p.finditer(sentence)
            if m.group(1).split()[0] not in lexicon.place_stopwords
        ]
    else:
        found = [m.group(1).strip() for p in lexicon.names for m in p.finditer(sentence)]
    return list(dict.fromkeys(value.casefold() if kind is FactKind.PLACE else value for value in found))


def extract_facts(text: str, lexicon: CompiledLexicon, turn_no: int) -> list[Fact]:
    """Facts per sentence; a sentence stating two values of one kind is ambiguous and skipped."""
    facts: list[Fact] = []
    for match in _SENTENCE.finditer(text):
        sentence = match.group(0)
        anchor = _anchor(sentence, lexicon)
        for kind in FactKind:
            values = _values(kind, sentence, lexicon)
            if len(values) == 1:
                facts.append(Fact(kind, anchor, values[0], turn_no))
    return facts


def conflicts(current: list[Fact], earlier: tuple[Fact, ...]) -> list[FactConflict]:
    """Anchored facts of this answer whose value differs from every earlier value for the same
    kind and anchor on the same topic (a value said before, even once, is not a conflict)."""
    known: dict[str, list[Fact]] = {}
    for fact in earlier:
        if fact.anchor != UNANCHORED:
            known.setdefault(fact.key, []).append(fact)
    found = []
    for fact in current:
        previous = known.get(fact.key)
        if not previous or any(p.value == fact.value for p in previous):
            continue
        last = previous[-1]
        found.append(
            FactConflict(
                fact.kind, fact.anchor, last.value, fact.value, last.turn_no, CONFLICT_CONFIDENCE[fact.kind]
            )
        )
    return found


def remember(earlier: tuple[Fact, ...], current: list[Fact], limit: int) -> tuple[Fact, ...]:
    """The topic's facts after this answer: new anchored ones appended, repeats dropped, the
    newest `limit` kept. Unanchored facts are never compared, so they are not kept: the state
    grows only with distinct events the narrator dates or places, not with every answer."""
    seen = {(f.kind, f.anchor, f.value) for f in earlier}
    fresh = [f for f in current if f.anchor != UNANCHORED and (f.kind, f.anchor, f.value) not in seen]
    return (*earlier, *fresh)[-limit:]
