"""The loaded configuration the engine runs on, its patterns compiled once."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from chair_interrupt.engine.model import Reason
from chair_interrupt.engine.policy import Frameworks, Openers, Policy, QuickCheckPatterns

# ’ ‘ ʼ ＇ are what keyboards and models type for the apostrophe the patterns spell.
APOSTROPHES = str.maketrans({mark: "'" for mark in "\u2019\u2018\u02bc\uff07"})


@dataclass(frozen=True)
class ChairConfig:
    frameworks: Frameworks
    quick_check: QuickCheckPatterns
    openers: Openers
    policy: Policy
    version: str
    # The quick check: every pattern in one alternation rejects a text with no trigger in one
    # pass; a text that has one is then matched pattern by pattern, in the spec's order.
    any_trigger: re.Pattern[str] = field(init=False)
    ordered: tuple[tuple[re.Pattern[str], Reason], ...] = field(init=False)
    aliases: tuple[tuple[str, re.Pattern[str]], ...] = field(init=False)

    def __post_init__(self) -> None:
        patterns = self.quick_check.patterns
        combined = "|".join(f"(?:{p.pattern})" for p in patterns)
        object.__setattr__(self, "any_trigger", re.compile(combined, re.IGNORECASE))
        object.__setattr__(
            self, "ordered", tuple((re.compile(p.pattern, re.IGNORECASE), p.reason) for p in patterns)
        )
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
