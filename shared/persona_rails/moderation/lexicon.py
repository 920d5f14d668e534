"""The intimacy plugin's versioned data: keywords, patterns and the stage-aware policy.

Loaded and validated once per cold start from `config/intimacy.json`; a broken file fails the
start with the file and JSON path. The scoring functions receive the loaded value.
"""

from __future__ import annotations

import re
from functools import cache, cached_property
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from persona_rails.config import Artifact, load_artifact

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


class Lexicon(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    comment: str | None = None
    version: str = Field(min_length=1, max_length=50)
    keywords: Keywords
    high_patterns: list[Annotated[str, Field(min_length=1, max_length=200)]] = Field(min_length=1)
    stage_aware: StageAware

    @field_validator("high_patterns")
    @classmethod
    def _compiles(cls, patterns: list[str]) -> list[str]:
        for index, pattern in enumerate(patterns):
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"pattern {index} does not compile: {exc}") from exc
        return patterns

    @cached_property
    def compiled_patterns(self) -> tuple[re.Pattern[str], ...]:
        # DOTALL: a reply may hold newlines, and "好想\n你" is the same reply as "好想你".
        return tuple(re.compile(pattern, re.DOTALL) for pattern in self.high_patterns)


@cache
def lexicon_artifact() -> Artifact[Lexicon]:
    return load_artifact(LEXICON_FILE, Lexicon)
