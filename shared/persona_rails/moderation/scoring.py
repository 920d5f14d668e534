"""The intimacy plugin's arithmetic, pure and deterministic (spec §2, §12–§15).

No I/O, no clock: the lexicon comes in as an argument. Keywords and patterns are matched on the
folded text (persona_rails.folding: "做 ❤ 爱", "ｓｅｘｙ" and "ѕеху" read as what they spell). Scores
are rounded to four decimals before they are compared, so 0.2 + 4 × 0.15 is 0.8 (a reject) and not
0.8000000000000002.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from persona_rails.folding import fold
from persona_rails.moderation.lexicon import LATIN_LETTER, Lexicon, Thresholds

# intimacy-2: folded text, the local model's score fused (docs/judges.md).
ENGINE_VERSION = "intimacy-2"

# §12.1
BASE_SCORE = 0.2
HIGH_KEYWORD = 0.15
MEDIUM_KEYWORD = 0.08
LOW_KEYWORD = 0.03
HIGH_PATTERN = 0.15
# §13
FUSION_WEIGHTS = {"third_party": 0.7, "local_model": 0.6, "rule": 0.4}
NEUTRAL_SCORE = 0.5
# §14.1
DEFAULT_THRESHOLDS = Thresholds(warn=0.4, rewrite=0.6, reject=0.8)
# §2: intimacy level 0–100 (inclusive) to stage 1–5.
STAGE_UPPER_BOUNDS = ((20, 1), (40, 2), (60, 3), (80, 4), (100, 5))
STAGE_NAMES = {1: "stranger", 2: "acquaintance", 3: "friend", 4: "intimate", 5: "bonded"}
ROUNDING = 4


class Label(StrEnum):
    PASS = "pass"  # noqa: S105 - a label, not a password
    WARN = "warn"
    REWRITE = "rewrite"
    REJECT = "reject"


# §14.2: PolicyEngine priority, strongest first.
PRIORITY = (Label.REJECT, Label.REWRITE, Label.WARN, Label.PASS)


class Policy(StrEnum):
    DEFAULT = "default"
    STAGE_AWARE = "stage_aware"


@dataclass(frozen=True)
class RuleScore:
    score: float
    high: tuple[str, ...] = ()
    medium: tuple[str, ...] = ()
    low: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()

    @property
    def hits(self) -> dict[str, list[str]]:
        return {
            "high": list(self.high),
            "medium": list(self.medium),
            "low": list(self.low),
            "patterns": list(self.patterns),
        }


@dataclass(frozen=True)
class Verdict:
    label: Label
    score: float
    reason: str
    thresholds: Thresholds
    forbidden: tuple[str, ...] = field(default_factory=tuple)


def stage_for_level(level: int) -> int:
    """§2: 0–20 → 1, 21–40 → 2, 41–60 → 3, 61–80 → 4, 81–100 → 5; anything else is refused."""
    if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= 100:
        raise ValueError("intimacy_level must be a whole number from 0 to 100")
    return next(stage for bound, stage in STAGE_UPPER_BOUNDS if level <= bound)


def _found(folded: str, keywords: Iterable[str]) -> tuple[str, ...]:
    # Chinese matches as folded; English case-insensitively (the lexicon lists it in lower case).
    lowered = folded.casefold()
    return tuple(word for word in keywords if (word in lowered if word.isascii() else word in folded))


def rule_score(text: str, lexicon: Lexicon) -> RuleScore:
    """§12.1: 0.2 for non-empty text, +0.15/+0.08/+0.03 per high/medium/low keyword found,
    +0.15 per high pattern that matches, clamped to [0, 1]. Each keyword and pattern counts once."""
    if not text.strip():
        return RuleScore(0.0)
    folded = fold(text)
    high, medium, low = lexicon.keyword_index.find(folded)
    latin = LATIN_LETTER.search(folded) is not None
    patterns = tuple(
        pattern.source
        for pattern in lexicon.compiled_patterns
        if (latin or not pattern.needs_latin) and pattern.compiled.search(folded)
    )
    raw = (
        BASE_SCORE
        + HIGH_KEYWORD * len(high)
        + MEDIUM_KEYWORD * len(medium)
        + LOW_KEYWORD * len(low)
        + HIGH_PATTERN * len(patterns)
    )
    return RuleScore(round(min(1.0, max(0.0, raw)), ROUNDING), high, medium, low, patterns)


def fuse(rule: float | None, local_model: float | None, third_party: float | None) -> float:
    """§13: the weighted mean of the sources present (0.7 third party, 0.6 local, 0.4 rule); one
    source alone is itself; none at all is the neutral 0.5."""
    present = {
        name: score
        for name, score in (("rule", rule), ("local_model", local_model), ("third_party", third_party))
        if score is not None
    }
    if not present:
        return NEUTRAL_SCORE
    total = sum(FUSION_WEIGHTS[name] for name in present)
    return round(sum(FUSION_WEIGHTS[name] * score for name, score in present.items()) / total, ROUNDING)


def label_for(score: float, thresholds: Thresholds = DEFAULT_THRESHOLDS) -> Label:
    """§14.1: below warn → pass; [warn, rewrite) → warn; [rewrite, reject) → rewrite; else reject."""
    if score >= thresholds.reject:
        return Label.REJECT
    if score >= thresholds.rewrite:
        return Label.REWRITE
    if score >= thresholds.warn:
        return Label.WARN
    return Label.PASS


def decide(labels: Iterable[Label]) -> Label:
    """§14.2, the PolicyEngine: the strongest label of all dimensions (pass when there is none)."""
    found = set(labels)
    return next((label for label in PRIORITY if label in found), Label.PASS)


def thresholds_for(policy: Policy, stage: int, lexicon: Lexicon) -> Thresholds:
    if policy is Policy.STAGE_AWARE:
        return lexicon.stage_aware.stages[stage].thresholds
    return DEFAULT_THRESHOLDS


def forbidden_words(text: str, stage: int, lexicon: Lexicon) -> tuple[str, ...]:
    """The stage-aware policy's words that reject at this stage, found in the text."""
    return _found(fold(text), lexicon.stage_aware.stages[stage].forbidden)


def verdict(
    score: float, rule: RuleScore, text: str, *, policy: Policy, stage: int, lexicon: Lexicon
) -> Verdict:
    """The plugin's label for a fused score, with a reason naming what decided it."""
    thresholds = thresholds_for(policy, stage, lexicon)
    forbidden = forbidden_words(text, stage, lexicon) if policy is Policy.STAGE_AWARE else ()
    label = Label.REJECT if forbidden else label_for(score, thresholds)
    return Verdict(
        label,
        score,
        _reason(label, score=score, thresholds=thresholds, rule=rule, forbidden=forbidden, stage=stage),
        thresholds,
        forbidden,
    )


def _reason(
    label: Label,
    *,
    score: float,
    thresholds: Thresholds,
    rule: RuleScore,
    forbidden: tuple[str, ...],
    stage: int,
) -> str:
    if forbidden:
        return f"forbidden at stage {stage} ({STAGE_NAMES[stage]}): {', '.join(forbidden)}"
    bounds: Mapping[Label, str] = {
        Label.PASS: f"< {thresholds.warn}",
        Label.WARN: f">= {thresholds.warn}",
        Label.REWRITE: f">= {thresholds.rewrite}",
        Label.REJECT: f">= {thresholds.reject}",
    }
    hits = [f"{tier}: {', '.join(words)}" for tier, words in rule.hits.items() if words]
    return f"intimacy score {score:.2f} {bounds[label]} ({label})" + (f"; {'; '.join(hits)}" if hits else "")
