"""Is an urgent keyword's mention urgent? The rule behind the emergency heuristic (docs/emergencies.md).

The text is cut into clauses at punctuation and at turning words (但是, but). Within its clause a
keyword mention is urgent unless a cue applies to it:

- negation (不需要, not), hypothetical (如果, what if), past (昨天, last week), routine (上班,
  排队, work at) or talking-about (电视剧, video about) cue, on the side of the keyword and
  within the window (in tokens: a Latin word or a CJK character) that its group sets;
- a cue inside a booster or a not-cue phrase ("not kidding", 是不是) is no cue;
- an urgency booster (现在, 马上, right now) standing between the keyword and a cue of an
  overridable kind (past, routine, talking-about) cancels that cue: the text has turned to now.
  Negation and hypothetical cues are never cancelled ("不需要马上去医院" stays negated).

The text is matched in its folded form (persona_rails.folding: Simplified Chinese, full-width as
ASCII, look-alike letters as Latin, a word spelled out or broken up by separators joined), so
the lexicon is written once and the spellings that dodge it are read too. Pure: the lexicon
arrives as an argument.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from intercept_session.engine.keywords import Hit, PhraseMatcher, english_alternation, find, phrase_matcher
from persona_rails.folding import fold

# The spec's own urgent keywords (LLM Decision Logic): the lexicon may add to them, never drop one.
SPEC_KEYWORDS = frozenset({"火警", "医院", "emergency"})

Phrase = Annotated[str, StringConstraints(min_length=1, max_length=40, pattern=r"^\S(.*\S)?$")]


class CueKind(StrEnum):
    NEGATION = "negation"
    HYPOTHETICAL = "hypothetical"
    PAST = "past"
    ROUTINE = "routine"
    TALKING_ABOUT = "talking_about"


# When several cues apply, the explanation names the strongest.
CUE_ORDER = tuple(CueKind)


class Side(StrEnum):
    BEFORE = "before"
    AFTER = "after"
    EITHER = "either"


class CueGroup(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: CueKind
    side: Side
    # Tokens allowed between the cue and the keyword; null: anywhere in the clause.
    window: int | None = Field(default=None, ge=0, le=40)
    # The keywords the group speaks to; null: all. Routine cues concern places, not events.
    keywords: list[Phrase] | None = None
    phrases: list[Phrase] = Field(min_length=1)
    comment: str | None = None


class UrgencyLexicon(BaseModel):
    """`config/urgency-lexicon.json`: the data of the urgency rule."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: str = Field(min_length=1)
    comment: str = Field(min_length=1)
    keywords: list[Phrase] = Field(min_length=1)
    boosters: list[Phrase]
    overridable: list[CueKind]
    not_cues: list[Phrase]
    clause_breaks: list[Phrase]
    cues: list[CueGroup] = Field(min_length=1)
    # Exaggeration and entertainment ("笑死", "went live", "flash sale"): no rule of their own, a
    # feature the emergency scorer weighs (engine/emergency.py).
    hyperbole: list[Phrase] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> UrgencyLexicon:
        missing = sorted(SPEC_KEYWORDS - set(self.keywords))
        if missing:
            raise ValueError(f"the spec's urgent keywords {missing} are missing")
        for name in ("keywords", "boosters", "not_cues", "clause_breaks", "hyperbole"):
            values: list[str] = getattr(self, name)
            duplicates = sorted({value for value in values if values.count(value) > 1})
            if duplicates:
                raise ValueError(f"{name} lists {duplicates} twice")
        for index, group in enumerate(self.cues):
            unknown = sorted(set(group.keywords or ()) - set(self.keywords))
            if unknown:
                raise ValueError(f"cues[{index}] names {unknown}, which are not keywords")
        cue_phrases = {phrase for group in self.cues for phrase in group.phrases}
        both = sorted(cue_phrases & set(self.boosters + self.not_cues))
        if both:
            raise ValueError(f"{both} cannot be both a cue and a booster or not-cue")
        strong = {CueKind.NEGATION, CueKind.HYPOTHETICAL} & set(self.overridable)
        if strong:
            raise ValueError(f"{sorted(strong)} cues cannot be overridable: no booster undoes them")
        return self

    def phrases(self) -> list[tuple[str, str]]:
        """(JSON path, phrase) for every phrase, for checks made where the lexicon is loaded."""
        found = [
            (f"$.{name}[{index}]", phrase)
            for name in ("keywords", "boosters", "not_cues", "clause_breaks", "hyperbole")
            for index, phrase in enumerate(getattr(self, name))
        ]
        for group_index, group in enumerate(self.cues):
            found += [
                (f"$.cues[{group_index}].phrases[{index}]", phrase)
                for index, phrase in enumerate(group.phrases)
            ]
        return found


_PUNCTUATION = r"[,!?;:，。！？；：、…~～|\n\r\t]|\.(?!\d)"
_TOKEN = re.compile(r"[A-Za-z0-9']+|[\u3400-\u9fff\uf900-\ufaff]")


@dataclass(frozen=True)
class _Group:
    kind: CueKind
    side: Side
    window: int | None
    keywords: frozenset[str] | None
    matcher: PhraseMatcher


@dataclass(frozen=True)
class UrgencyRules:
    """The lexicon compiled for matching; built once per cold start (see urgency_config.py)."""

    version: str
    breaks: re.Pattern[str]
    keywords: PhraseMatcher
    boosters: PhraseMatcher
    masks: PhraseMatcher
    overridable: frozenset[CueKind]
    groups: tuple[_Group, ...]
    hyperbole: PhraseMatcher


def compile_rules(lexicon: UrgencyLexicon) -> UrgencyRules:
    words = phrase_matcher(tuple(lexicon.clause_breaks))
    alternatives = [_PUNCTUATION, *(re.escape(word) for word in words.chinese)]
    english = english_alternation(tuple(lexicon.clause_breaks))
    if english is not None:
        alternatives.append(english)
    return UrgencyRules(
        version=lexicon.version,
        breaks=re.compile("|".join(alternatives)),
        keywords=phrase_matcher(tuple(lexicon.keywords)),
        boosters=phrase_matcher(tuple(lexicon.boosters)),
        # A booster ("not kidding", 不是开玩笑) and a not-cue (是不是) void any cue inside them.
        masks=phrase_matcher(tuple(lexicon.boosters + lexicon.not_cues)),
        overridable=frozenset(lexicon.overridable),
        groups=tuple(
            _Group(
                group.kind,
                group.side,
                group.window,
                frozenset(group.keywords) if group.keywords is not None else None,
                phrase_matcher(tuple(group.phrases)),
            )
            for group in lexicon.cues
        ),
        hyperbole=phrase_matcher(tuple(lexicon.hyperbole)),
    )


@dataclass(frozen=True)
class Cue:
    kind: CueKind
    phrase: str


@dataclass(frozen=True)
class Mention:
    """One occurrence of an urgent keyword and the verdict on it."""

    keyword: str
    start: int
    end: int
    # The cue that makes the mention not urgent; None when it is urgent.
    cue: Cue | None = None
    # A weak cue a booster cancelled, and that booster: why a mention near a cue is still urgent.
    overridden: Cue | None = None
    booster: str | None = None

    @property
    def urgent(self) -> bool:
        return self.cue is None

    def explain(self) -> str:
        """Lexicon words only, never the user's: it goes into the stored justification.

        "urgent keyword 医院", "urgent keyword 流血 (past: 昨天, overridden by 现在)",
        "urgent keyword 医院 (routine: 上班) not urgent".
        """
        if self.cue is not None:
            return f"urgent keyword {self.keyword} ({self.cue.kind.value}: {self.cue.phrase}) not urgent"
        if self.overridden is not None:
            return (
                f"urgent keyword {self.keyword} "
                f"({self.overridden.kind.value}: {self.overridden.phrase}, overridden by {self.booster})"
            )
        return f"urgent keyword {self.keyword}"


def clauses(text: str, rules: UrgencyRules) -> list[tuple[int, int]]:
    """The (start, end) of each clause of an already folded text."""
    spans, start = [], 0
    for cut in rules.breaks.finditer(text):
        if cut.start() > start:
            spans.append((start, cut.start()))
        start = max(start, cut.end())
    if start < len(text):
        spans.append((start, len(text)))
    return spans


def _tokens(text: str) -> int:
    return len(_TOKEN.findall(text))


@dataclass(frozen=True)
class _Applied:
    cue: Cue
    gap: tuple[int, int]
    distance: int


def _applies(group: _Group, cue: Hit, keyword: Hit, clause: str) -> _Applied | None:
    if group.keywords is not None and keyword.phrase not in group.keywords:
        return None
    if cue.overlaps(keyword):
        if keyword.start <= cue.start and cue.end <= keyword.end:
            # The keyword holds the cue: "not" in "not breathing" negates nothing.
            return None
        # "ER nurse": the cue holds the keyword itself.
        gap = (keyword.start, keyword.start)
    elif cue.end <= keyword.start and group.side is not Side.AFTER:
        gap = (cue.end, keyword.start)
    elif cue.start >= keyword.end and group.side is not Side.BEFORE:
        gap = (keyword.end, cue.start)
    else:
        return None
    distance = _tokens(clause[gap[0] : gap[1]])
    if group.window is not None and distance > group.window:
        return None
    return _Applied(Cue(group.kind, cue.phrase), gap, distance)


def _judge(
    keyword: Hit, clause: str, cues: list[tuple[_Group, Hit]], boosters: list[Hit], rules: UrgencyRules
) -> Mention:
    standing: list[_Applied] = []
    cancelled: tuple[Cue, str] | None = None
    for group, hit in cues:
        applied = _applies(group, hit, keyword, clause)
        if applied is None:
            continue
        between = [b for b in boosters if applied.gap[0] <= b.start and b.end <= applied.gap[1]]
        if group.kind in rules.overridable and between:
            cancelled = cancelled or (applied.cue, between[0].phrase)
            continue
        standing.append(applied)
    if standing:
        strongest = min(standing, key=lambda a: (CUE_ORDER.index(a.cue.kind), a.distance))
        return Mention(keyword.phrase, keyword.start, keyword.end, cue=strongest.cue)
    if cancelled is not None:
        return Mention(
            keyword.phrase, keyword.start, keyword.end, overridden=cancelled[0], booster=cancelled[1]
        )
    return Mention(keyword.phrase, keyword.start, keyword.end)


@dataclass(frozen=True)
class Reading:
    """What the rule reads in a text: every keyword mention with its verdict, and which cues,
    boosters and hyperbole appear anywhere (the emergency scorer's rule features)."""

    mentions: tuple[Mention, ...]
    cues: frozenset[CueKind]
    booster: bool
    hyperbole: bool


def _within(hits: list[Hit], start: int, end: int) -> list[Hit]:
    """The hits inside text[start:end], with offsets into that clause."""
    if not hits:
        return hits
    return [
        Hit(hit.phrase, hit.start - start, hit.end - start)
        for hit in hits
        if start <= hit.start and hit.end <= end
    ]


def read(text: str, rules: UrgencyRules) -> Reading:
    folded = fold(text)
    mentions: list[Mention] = []
    kinds: set[CueKind] = set()
    booster = False
    # Each list is searched for once in the whole text, and its hits shared out among the
    # clauses (a hit across a clause break belongs to none, as if each clause were searched).
    all_masks = find(folded, rules.masks)
    all_cues = [(group, hits) for group in rules.groups if (hits := find(folded, group.matcher))]
    all_boosters = find(folded, rules.boosters)
    all_keywords = find(folded, rules.keywords)
    for start, end in clauses(folded, rules):
        clause = folded[start:end]
        masks = _within(all_masks, start, end)
        cues = [
            (group, hit)
            for group, hits in all_cues
            for hit in _within(hits, start, end)
            if not any(mask.start <= hit.start and hit.end <= mask.end for mask in masks)
        ]
        kinds.update(group.kind for group, _ in cues)
        boosters = _within(all_boosters, start, end)
        booster = booster or bool(boosters)
        for keyword in _within(all_keywords, start, end):
            mention = _judge(keyword, clause, cues, boosters, rules)
            mentions.append(replace(mention, start=start + mention.start, end=start + mention.end))
    return Reading(tuple(mentions), frozenset(kinds), booster, bool(find(folded, rules.hyperbole)))


def urgent_mentions(text: str, rules: UrgencyRules) -> list[Mention]:
    """Every mention of an urgent keyword, urgent or not, in the order of the folded text."""
    return list(read(text, rules).mentions)


def is_urgent(text: str, rules: UrgencyRules) -> bool:
    return any(mention.urgent for mention in urgent_mentions(text, rules))


def urgent_keywords(text: str, rules: UrgencyRules) -> list[str]:
    """The distinct keywords with an urgent mention, in text order."""
    return list(dict.fromkeys(mention.keyword for mention in urgent_mentions(text, rules) if mention.urgent))
