"""Checkable facts in a narrator's answer (years, ages, places, names) and conflicts between them.

A fact is anchored to the life event its sentence names and to whose event it is ("born@self",
"lost@father", "married@brother"): "my father died in 1990" and "my father died in 1992"
conflict, while "my mother died in 2001" and "I was born in 1950" do not. Events that happen more
than once in a life (moves, jobs, schools) are told apart by their place or year (see
`extract_facts`). Unanchored facts are never compared: "I was 12" in one sentence and "I was 15"
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


SELF = "self"
# Someone the lexicon cannot tell apart ("he", "she", "Frank"): their events are never compared,
# neither with the narrator's nor with each other's ("He died in 1980", "She died in 1985").
OTHER = "other"


def _subject(sentence: str, event_at: int, lexicon: CompiledLexicon) -> str:
    """Whose event it is: the person named nearest before the event's word ("we moved", "I
    remember my father died", "Frank was born"), else the first named after it ("born in 1950
    was my sister"; a name after it is more often the event's place or partner: "moved to
    Boston"), else the narrator."""
    mentions = [
        (match.start(), name)
        for name, patterns in lexicon.subjects
        for pattern in patterns
        for match in pattern.finditer(sentence)
    ]
    before = [mention for mention in mentions if mention[0] < event_at]
    if before:
        return max(before)[1]
    after = [mention for mention in mentions if mention[0] >= event_at and mention[1] != OTHER]
    return min(after)[1] if after else SELF


def _event(sentence: str, lexicon: CompiledLexicon) -> tuple[str, int] | None:
    """The life event the sentence names, and where its word starts; None when it names two
    ("Frank died in 1996, the same spring our granddaughter was born"): its date belongs to
    neither for sure, so it is never compared."""
    found: tuple[str, int] | None = None
    for name, patterns in lexicon.anchors:
        for pattern in patterns:
            match = pattern.search(sentence)
            if match:
                if found is not None:
                    return None
                found = (name, match.start())
                break
    return found


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


def comparable(anchor: str) -> bool:
    return anchor != UNANCHORED


def _anchor(event: str | None, subject: str, qualifier: str | None, lexicon: CompiledLexicon) -> str:
    """`event@subject` for a once-in-a-life event ("lost@father"); `event>qualifier@subject` for a
    repeatable one, told apart by the other detail of its sentence ("moved>boston@self",
    "moved>1985@self"); "*" when nothing can tell which event it is."""
    if event is None or subject == OTHER:
        return UNANCHORED
    if event not in lexicon.repeatable_anchors:
        return f"{event}@{subject}"
    return f"{event}>{qualifier}@{subject}" if qualifier else UNANCHORED


def extract_facts(text: str, lexicon: CompiledLexicon, turn_no: int) -> list[Fact]:
    """Facts per sentence; a sentence stating two values of one kind is ambiguous and skipped.

    Moves, jobs and schools happen more than once, so their dates and ages are compared only for
    the same place ("we moved to Boston in 1985" against "in 1987"), and their places only for the
    same year: two moves in two years are two events, not a contradiction."""
    facts: list[Fact] = []
    for match in _SENTENCE.finditer(text):
        sentence = match.group(0)
        found_event = _event(sentence, lexicon)
        event = found_event[0] if found_event else None
        subject = _subject(sentence, found_event[1], lexicon) if found_event else SELF
        found = {kind: _values(kind, sentence, lexicon) for kind in FactKind}
        single = {kind: values[0] for kind, values in found.items() if len(values) == 1}
        for kind, value in single.items():
            qualifier = single.get(FactKind.YEAR) if kind is FactKind.PLACE else single.get(FactKind.PLACE)
            facts.append(Fact(kind, _anchor(event, subject, qualifier, lexicon), value, turn_no))
    return facts


def conflicts(current: list[Fact], earlier: tuple[Fact, ...]) -> list[FactConflict]:
    """Comparable facts of this answer whose value differs from every earlier value for the same
    kind, event and person on the same topic (a value said before, even once, is no conflict)."""
    known: dict[str, list[Fact]] = {}
    for fact in earlier:
        if comparable(fact.anchor):
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
    """The topic's facts after this answer: new comparable ones appended, repeats dropped, the
    newest `limit` kept. Facts that are never compared are not kept: the state grows only with
    distinct events the narrator dates or places, not with every answer."""
    seen = {(f.kind, f.anchor, f.value) for f in earlier}
    fresh = [f for f in current if comparable(f.anchor) and (f.kind, f.anchor, f.value) not in seen]
    return (*earlier, *fresh)[-limit:]
