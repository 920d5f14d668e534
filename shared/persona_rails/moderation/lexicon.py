"""The intimacy plugin's versioned data: keywords, patterns and the stage-aware policy.

Loaded and validated once per cold start from `config/intimacy.json`; a broken file fails the
start with the file and JSON path. The scoring functions receive the loaded value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Annotated, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from persona_rails.config import Artifact, load_artifact
from persona_rails.folding import fold, fold_pattern

LEXICON_FILE = Path(__file__).with_name("config") / "intimacy.json"
STAGES = (1, 2, 3, 4, 5)

Keyword = Annotated[str, Field(min_length=1, max_length=50)]


class Thresholds(BaseModel):
    """Where a fused score becomes warn, rewrite and reject (pass below `warn`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    warn: float = Field(gt=0, le=1)
    rewrite: float = Field(gt=0, le=1)
    reject: float = Field(gt=0, le=1)

    @model_validator(mode="after")
    def _ordered(self) -> Thresholds:
        if not self.warn < self.rewrite < self.reject:
            raise ValueError("thresholds must rise: warn < rewrite < reject")
        return self


class StageRules(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    thresholds: Thresholds
    forbidden: list[Keyword] = Field(default_factory=list)


class StageAware(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    comment: str | None = None
    stages: dict[int, StageRules]

    @field_validator("stages")
    @classmethod
    def _every_stage(cls, stages: dict[int, StageRules]) -> dict[int, StageRules]:
        if sorted(stages) != list(STAGES):
            raise ValueError("stages must be exactly 1, 2, 3, 4 and 5")
        return stages


class Keywords(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    high: list[Keyword] = Field(min_length=1)
    medium: list[Keyword] = Field(min_length=1)
    low: list[Keyword] = Field(min_length=1)


class ScorerCues(BaseModel):
    """Cue words the local model weighs as features (one count per group), beside its n-grams."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    comment: str | None = None
    sexual: list[Keyword] = Field(min_length=1)
    romantic: list[Keyword] = Field(min_length=1)
    affection: list[Keyword] = Field(min_length=1)
    care: list[Keyword] = Field(min_length=1)

    def groups(self) -> dict[str, list[str]]:
        return {
            "sexual": self.sexual,
            "romantic": self.romantic,
            "affection": self.affection,
            "care": self.care,
        }


@dataclass(frozen=True)
class KeywordIndex:
    """Keyword lists split once into their Chinese words (substrings of the folded text) and
    their English ones (substrings of its casefolded form, tested only on a text holding a Latin
    letter): the rule score's hot loop tests a word, not what kind of word it is."""

    lists: tuple[tuple[tuple[str, ...], tuple[str, ...], dict[str, int]], ...]

    @classmethod
    def of(cls, lists: tuple[list[str], ...]) -> KeywordIndex:
        return cls(
            tuple(
                (
                    tuple(word for word in words if not word.isascii()),
                    tuple(word for word in words if word.isascii()),
                    {word: position for position, word in enumerate(words)},
                )
                for words in lists
            )
        )

    def find(self, folded: str) -> tuple[tuple[str, ...], ...]:
        """Each list's words present, in list order."""
        lowered = folded.casefold() if LATIN_LETTER.search(folded) else ""
        found = []
        for chinese, latin, order in self.lists:
            hits = [word for word in chinese if word in folded]
            if lowered:
                english = [word for word in latin if word in lowered]
                if english:
                    hits = sorted(hits + english, key=order.__getitem__)
            found.append(tuple(hits))
        return tuple(found)


class Lexicon(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    comment: str | None = None
    version: str = Field(min_length=1, max_length=50)
    keywords: Keywords
    high_patterns: list[Annotated[str, Field(min_length=1, max_length=200)]] = Field(min_length=1)
    stage_aware: StageAware
    scorer_cues: ScorerCues

    @field_validator("high_patterns")
    @classmethod
    def _compiles(cls, patterns: list[str]) -> list[str]:
        for index, pattern in enumerate(patterns):
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"pattern {index} does not compile: {exc}") from exc
        return patterns

    @model_validator(mode="after")
    def _folded(self) -> Lexicon:
        # The text is matched folded: a word that folds to something else could never match.
        words = [
            *self.keywords.high,
            *self.keywords.medium,
            *self.keywords.low,
            *(word for rules in self.stage_aware.stages.values() for word in rules.forbidden),
            *(word for words in self.scorer_cues.groups().values() for word in words),
        ]
        for word in words:
            if fold(word) != word:
                raise ValueError(f"write '{word}' as it folds: '{fold(word)}'")
        return self

    @cached_property
    def keyword_index(self) -> KeywordIndex:
        return KeywordIndex.of((self.keywords.high, self.keywords.medium, self.keywords.low))

    @cached_property
    def compiled_cues(self) -> tuple[tuple[str, tuple[str, ...], re.Pattern[str] | None], ...]:
        """Per cue group: its Chinese words (substrings) and one pattern of its Latin ones (whole
        words, on casefolded text)."""
        compiled = []
        for name, words in self.scorer_cues.groups().items():
            latin = sorted((word for word in words if word.isascii()), key=len, reverse=True)
            pattern = (
                re.compile(rf"(?<![a-z0-9])(?:{'|'.join(re.escape(word) for word in latin)})(?![a-z0-9])")
                if latin
                else None
            )
            compiled.append((name, tuple(word for word in words if not word.isascii()), pattern))
        return tuple(compiled)

    @cached_property
    def compiled_patterns(self) -> tuple[HighPattern, ...]:
        # DOTALL: a reply may hold newlines, and "好想\n你" is the same reply as "好想你". Patterns
        # match the folded text, so they are folded too.
        return tuple(
            HighPattern(
                pattern,
                re.compile(fold_pattern(pattern), re.DOTALL),
                _LATIN_WORDS.fullmatch(pattern) is not None,
            )
            for pattern in self.high_patterns
        )


class HighPattern(NamedTuple):
    source: str
    compiled: re.Pattern[str]
    # Whether the pattern can match only a text holding a Latin letter (see `_LATIN_WORDS`): an
    # English pattern searched through a Chinese reply costs more than the Chinese ones together.
    needs_latin: bool


# A pattern of ASCII letters, spaces, apostrophes and \b, \s, \s+, \s* only (after an optional
# "(?i)"), with at least one letter, needs every one of its letters, so it cannot match a text
# holding no Latin letter (`LATIN_LETTER`). Any other pattern is always searched.
_LATIN_WORDS = re.compile(r"(?:\(\?i\))?(?:\\b|\\s[+*]?|[' ])*[A-Za-z](?:\\b|\\s[+*]?|[A-Za-z' ])*")
# What such a letter matches even under IGNORECASE: a Latin letter, or one of the three characters
# Python's `re` holds equal to one (ı to i, ſ to s, the Kelvin sign to k).
LATIN_LETTER = re.compile("[A-Za-z\u0131\u017f\u212a]")


@cache
def lexicon_artifact() -> Artifact[Lexicon]:
    return load_artifact(LEXICON_FILE, Lexicon)
