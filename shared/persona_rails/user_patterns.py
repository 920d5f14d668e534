"""Regular expressions that come with a request, matched under a cost bound.

Python's `re` cannot be interrupted, and static checks on single patterns (no nested repetition,
one unbounded repetition) cannot bound what many of them cost together on a text built to almost
match them: an SPS inline scenario could hold a function for its whole timeout. So patterns a
request brings are

- limited in number and size per document (`check_volume`), refused before anything runs, and
- compiled with the `regex` package, whose matcher takes a timeout: every search runs under the
  matching time left to the request (`matching_budget`), and one that runs out raises
  `PatternsTooCostly` naming the list the pattern came from.

Either way the caller gets a 422 that names the list, in well under a second. Reviewed patterns
(a catalog's) keep `re`; `regex` is imported only when a request brings patterns.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import wraps
from typing import Any, ParamSpec, Protocol, TypeVar

from persona_rails.errors import Invalid

# A document may hold about twice the patterns of the largest reviewed scenario (196 patterns,
# 8,015 characters).
MAX_PATTERNS_PER_DOCUMENT = 400
MAX_PATTERN_CHARACTERS_PER_DOCUMENT = 24_000
# What a request's patterns may spend matching, in all: an encounter's start (its scenario's
# lines checked), a turn (the learner's text, the reply's fact check), or one transcript turn.
# A reviewed scenario's patterns spend well under a millisecond on a 2,000-character turn.
MATCHING_BUDGET_SECONDS = 0.25


class PatternsTooCostly(Invalid):
    """A request's patterns exceed the cost bound; `field` names the list at fault."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__("patterns_too_costly", f"{path}: {message}", field=path)


def check_volume(patterns: Iterable[tuple[str, str]]) -> None:
    """Refuse a document whose (path, pattern) pairs exceed the count or size limit, naming the
    list where the limit is crossed (`scenario.guardrails[3].patterns`)."""
    characters = 0
    for count, (path, pattern) in enumerate(patterns, start=1):
        characters += len(pattern)
        if count > MAX_PATTERNS_PER_DOCUMENT:
            raise PatternsTooCostly(
                list_of(path), f"a document may hold {MAX_PATTERNS_PER_DOCUMENT} patterns in all"
            )
        if characters > MAX_PATTERN_CHARACTERS_PER_DOCUMENT:
            raise PatternsTooCostly(
                list_of(path),
                f"a document's patterns may hold {MAX_PATTERN_CHARACTERS_PER_DOCUMENT} characters in all",
            )


def list_of(path: str) -> str:
    """The list a pattern's path points into: `a.patterns[3]` -> `a.patterns`."""
    return re.sub(r"\[\d+\]$", "", path)


class _Budget:
    """Matching time left to a request (or to one text of it), charged by every bounded search.
    Only time spent matching counts: a database or LLM round trip in between spends none."""

    __slots__ = ("left", "outer")

    def __init__(self, seconds: float, outer: _Budget | None) -> None:
        self.left = seconds
        self.outer = outer

    def remaining(self) -> float:
        return self.left if self.outer is None else min(self.left, self.outer.remaining())

    def charge(self, seconds: float) -> None:
        budget: _Budget | None = self
        while budget is not None:
            budget.left -= seconds
            budget = budget.outer


_budget: ContextVar[_Budget | None] = ContextVar("user_patterns_budget", default=None)


@contextmanager
def matching_budget(seconds: float = MATCHING_BUDGET_SECONDS) -> Iterator[None]:
    """Bound the `BoundedPattern` searches inside: together they may match for `seconds` (and
    inside an enclosing budget, for no longer than it has left)."""
    token = _budget.set(_Budget(seconds, _budget.get()))
    try:
        yield
    finally:
        _budget.reset(token)


P = ParamSpec("P")
R = TypeVar("R")


def within_matching_budget(use_case: Callable[P, R]) -> Callable[P, R]:
    """Run each call of a use case under a matching budget of its own (`MATCHING_BUDGET_SECONDS`)."""

    @wraps(use_case)
    def bounded(*args: P.args, **kwargs: P.kwargs) -> R:
        with matching_budget():
            return use_case(*args, **kwargs)

    return bounded


class Searchable(Protocol):
    """What engines call on a compiled pattern, reviewed (`re.Pattern`) or not (`BoundedPattern`)."""

    @property
    def pattern(self) -> str: ...

    def search(self, string: str) -> re.Match[str] | None: ...


class BoundedPattern:
    """A pattern a request brought, compiled by `regex` (Python's `re` syntax, version 0) and
    searched under the current matching budget. `path` names its list in errors."""

    __slots__ = ("_compiled", "path", "pattern")

    def __init__(self, pattern: str, flags: int, path: str) -> None:
        import regex  # only requests that bring patterns pay for importing it

        # The flags `re` and `regex` share have the same values (IGNORECASE, MULTILINE, ...).
        self._compiled: Any = regex.compile(pattern, flags | regex.VERSION0)
        self.pattern = pattern
        self.path = path

    def search(self, string: str) -> re.Match[str] | None:
        budget = _budget.get()
        # Outside any budget (a replay, a script), each search gets a budget of its own.
        remaining = MATCHING_BUDGET_SECONDS if budget is None else budget.remaining()
        if remaining <= 0:
            raise self._too_costly()
        started = time.perf_counter()
        try:
            found = self._compiled.search(string, timeout=remaining)
        except TimeoutError:
            raise self._too_costly() from None
        finally:
            if budget is not None:
                budget.charge(time.perf_counter() - started)
        # A regex.Match answers group/start/end/span/lastgroup as an re.Match does.
        return found

    def _too_costly(self) -> PatternsTooCostly:
        return PatternsTooCostly(
            self.path,
            "matching this request's patterns ran over their time budget "
            f"({MATCHING_BUDGET_SECONDS:g} s for one text); write them with fewer unbounded "
            "repetitions (.*, \\w+), or fewer of them",
        )
