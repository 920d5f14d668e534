"""The Evaluator (spec: System Overview): the contract's metrics and the verbosity telemetry.

Tokens are counted with the tokenizer passed in (the layer's offline o200k counter in
production), so `response_tokens` means what a model's max_tokens means.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_SENTENCE = re.compile(r"[^.!?。！？]+[.!?。！？]*")
_QUESTION_END = ("?", "？")

TokenCounter = Callable[[str], int]


@dataclass(frozen=True)
class Metrics:
    response_tokens: int
    question_count: int
    question_tokens_mean: float
    sentence_count: int

    def contract(self) -> dict[str, int | float]:
        return {
            "response_tokens": self.response_tokens,
            "question_count": self.question_count,
            "question_tokens_mean": self.question_tokens_mean,
        }

    def verbosity(self, target_tokens: int) -> dict[str, int | float]:
        """Telemetry: the contract's metrics plus density and the ratio to the persona's target."""
        return {
            **self.contract(),
            "sentence_count": self.sentence_count,
            "question_density": round(self.question_count / self.sentence_count, 2)
            if self.sentence_count
            else 0.0,
            "target_ratio": round(self.response_tokens / target_tokens, 2),
        }


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.findall(text) if s.strip(" \n\t.!?。！？")]


def measure(text: str, count_tokens: TokenCounter) -> Metrics:
    parts = sentences(text)
    questions = [s for s in parts if s.endswith(_QUESTION_END)]
    mean = sum(count_tokens(q) for q in questions) / len(questions) if questions else 0.0
    return Metrics(count_tokens(text), len(questions), round(mean, 1), len(parts))
