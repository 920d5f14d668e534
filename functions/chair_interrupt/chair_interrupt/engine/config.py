"""The loaded configuration the engine runs on, its patterns compiled once."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from chair_interrupt.engine.detectors import CompiledDetectors, alternation, compile_detectors
from chair_interrupt.engine.model import Reason
from chair_interrupt.engine.policy import Detectors, Frameworks, Openers, Policy, QuickCheckPatterns
from persona_rails.folding import fold, fold_pattern


def _grouped(literals: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Greedily, the part (a literal, or a word of five letters or more of one) held by the most
    literals not yet grouped; a literal that shares nothing is a group of its own. Every literal
    holds its group's key, so a chunk without the key holds none of them."""
    parts = dict.fromkeys(
        [*literals, *(word for literal in literals for word in literal.split() if len(word) >= 5)]
    )
    holders = {part: {literal for literal in literals if part in literal} for part in parts}
    left = set(literals)
    groups: list[tuple[str, tuple[str, ...]]] = []
    while left:
        key = max(parts, key=lambda part: len(holders[part] & left))
        members = tuple(literal for literal in literals if literal in holders[key] & left)
        if len(members) < 2:
            groups.extend((literal, (literal,)) for literal in literals if literal in left)
            break
        groups.append((key, members))
        left -= holders[key]
    return tuple(groups)


@dataclass(frozen=True)
class ChairConfig:
    frameworks: Frameworks
    quick_check: QuickCheckPatterns
    openers: Openers
    policy: Policy
    detector_rules: Detectors
    version: str
    # The quick check, in the spec's order: (required literals, pattern, reason). A pattern runs
    # only on a chunk holding one of its literals, so a chunk with no trigger costs a few
    # substring searches instead of two dozen regular expressions.
    ordered: tuple[tuple[tuple[str, ...], re.Pattern[str], Reason], ...] = field(init=False)
    ascii_literals: tuple[str, ...] = field(init=False)
    # The ASCII literals in groups that share a word or a shorter literal: a group's members are
    # looked for only when that shared part is present ("fundamental" before "fundamental issue").
    ascii_groups: tuple[tuple[str, tuple[str, ...]], ...] = field(init=False)
    other_literals: tuple[str, ...] = field(init=False)
    aliases: tuple[tuple[str, re.Pattern[str]], ...] = field(init=False)

    def __post_init__(self) -> None:
        patterns = self.quick_check.patterns
        object.__setattr__(
            self,
            "ordered",
            # The chunk is folded before it is matched (quick.prepare): so are the patterns.
            tuple(
                (
                    tuple(fold(literal) for literal in p.requires),
                    re.compile(fold_pattern(p.pattern), re.IGNORECASE),
                    p.reason,
                )
                for p in patterns
            ),
        )
        literals = tuple(dict.fromkeys(literal for requires, _, _ in self.ordered for literal in requires))
        object.__setattr__(self, "ascii_literals", tuple(lit for lit in literals if lit.isascii()))
        object.__setattr__(self, "ascii_groups", _grouped(self.ascii_literals))
        object.__setattr__(self, "other_literals", tuple(lit for lit in literals if not lit.isascii()))
        object.__setattr__(
            self,
            "aliases",
            # Matched on the folded, lowercased chunk.
            tuple(
                (key, alternation([re.escape(fold(alias).lower()) for alias in framework.aliases]))
                for key, framework in self.frameworks.frameworks.items()
            ),
        )

    @cached_property
    def hedges(self) -> re.Pattern[str]:
        """Every hedge as one pattern for a folded, lowercased chunk, compiled by the first offline
        evaluation (the hedges are written lowercase: no IGNORECASE, ten times the search)."""
        return alternation(self.policy.offline.hedges)

    @cached_property
    def detectors(self) -> CompiledDetectors:
        """Compiled by the first offline evaluation that needs them, not at a cold start whose
        first request is a quick check."""
        return compile_detectors(self.detector_rules)

    def threshold(self, aggressiveness: int) -> float:
        return self.policy.urgency_thresholds[str(aggressiveness)]
