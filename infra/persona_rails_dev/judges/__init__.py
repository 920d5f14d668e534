"""The judgments `rails eval` measures and `make train` trains, one module each.

A judge names its labelled set (eval/<name>/), turns each item into the cases it is measured on
(an intimacy item is six: the `default` policy and `stage_aware` at stages 1 to 5), and decides a
text exactly as the shipped function does, on its offline path (the rules and the local model,
no LLM). Its `targets` are the figures it must reach (docs/judges.md).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from persona_rails_dev.evalsets import Item
from persona_rails_dev.lambda_runtime import put_on_path
from persona_rails_dev.template import functions

NAMES = ("emergency", "category", "intimacy", "chair", "interview", "sps")


@dataclass(frozen=True)
class Case:
    item: Item
    # What else the decision depends on ("" when nothing: an intimacy case names its policy and stage).
    context: str
    expected: str


@dataclass(frozen=True)
class Target:
    """A figure the judge must reach: `measure(report) >= minimum` (or <= maximum)."""

    description: str
    measure: Callable[[object], float]
    bound: float
    at_most: bool = False


class Judge(Protocol):
    name: str
    labels: tuple[str, ...]

    def items(self, split: str) -> Sequence[Item]: ...

    def items_of(self, path: Path) -> Sequence[Item]: ...

    def cases(self, items: Sequence[Item]) -> list[Case]: ...

    def decide(self, text: str, context: str) -> str: ...


def with_function(snake_name: str) -> None:
    """Put a function's package (and the layer) on sys.path, as Lambda lays them out."""
    for function in functions().values():
        if function.snake_name == snake_name:
            put_on_path(function)
            return
    raise LookupError(f"template.yaml declares no function {snake_name}")


def judge(name: str) -> Judge:
    if name not in NAMES:
        raise LookupError(f"unknown judge {name}; the judges are {', '.join(NAMES)}")
    module = importlib.import_module(f"{__name__}.{name}")
    built: Judge = module.build()
    return built
