"""The loaded configuration the engine runs on, its patterns compiled once."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from chair_interrupt.engine.model import Reason
from chair_interrupt.engine.policy import Frameworks, Openers, Policy, QuickCheckPatterns

# ’ ‘ ʼ ＇ are what keyboards and models type for the apostrophe the patterns spell.
APOSTROPHE_MARKS = ("\u2019", "\u2018", "\u02bc", "\uff07")


@dataclass(frozen=True)
class ChairConfig:
    frameworks: Frameworks
    quick_check: QuickCheckPatterns
    openers: Openers
    policy: Policy
    version: str
    # The quick check, in the spec's order: (required literals, pattern, reason). A pattern runs
    # only on a chunk holding one of its literals, so a chunk with no trigger costs a few
    # substring searches instead of two dozen regular expressions.
    ordered: tuple[tuple[tuple[str, ...], re.Pattern[str], Reason], ...] = field(init=False)
    ascii_literals: tuple[str, ...] = field(init=False)
    other_literals: tuple[str, ...] = field(init=False)
    aliases: tuple[tuple[str, re.Pattern[str]], ...] = field(init=False)
    hedges: re.Pattern[str] = field(init=False)

    def __post_init__(self) -> None:
        patterns = self.quick_check.patterns
        object.__setattr__(
            self,
            "ordered",
            tuple((tuple(p.requires), re.compile(p.pattern, re.IGNORECASE), p.reason) for p in patterns),
        )
        object.__setattr__(
            self,
            "hedges",
            re.compile("|".join(f"(?:{h})" for h in self.policy.offline.hedges), re.IGNORECASE),
        )
        literals = tuple(dict.fromkeys(literal for p in patterns for literal in p.requires))
        object.__setattr__(self, "ascii_literals", tuple(lit for lit in literals if lit.isascii()))
        object.__setattr__(self, "other_literals", tuple(lit for lit in literals if not lit.isascii()))
        object.__setattr__(
            self,
            "aliases",
            tuple(
                (
                    key,
                    re.compile(
                        "|".join(
                            rf"(?<![\w]){re.escape(alias)}(?![\w])" if alias.isascii() else re.escape(alias)
                            for alias in framework.aliases
                        ),
                        re.IGNORECASE,
                    ),
                )
                for key, framework in self.frameworks.frameworks.items()
            ),
        )

    def threshold(self, aggressiveness: int) -> float:
        return self.policy.urgency_thresholds[str(aggressiveness)]
