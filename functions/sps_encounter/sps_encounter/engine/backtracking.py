"""Refuse regular expressions that can backtrack catastrophically.

Python's `re` has no time limit, and scenario patterns (inline ones come with a request) run on
learner text. A repetition nested inside another unbounded repetition — `(x+)+`, `(\\w+\\s?)*` —
can take exponential time on a near-miss, so a pattern holding one is refused when it is loaded.
The check walks the parsed pattern; it is conservative (it also refuses some harmless nestings,
which can always be written flat).
"""

from __future__ import annotations

from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

_REPEATS = {sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT}


def _nested(items: Any, inside_unbounded: bool) -> bool:
    for op, value in items:
        if op in _REPEATS:
            _, high, body = value
            repeats = high is sre.MAXREPEAT or high > 1
            if repeats and inside_unbounded:
                return True
            if _nested(body, inside_unbounded or high is sre.MAXREPEAT):
                return True
        elif op is sre.SUBPATTERN:
            if _nested(value[-1], inside_unbounded):
                return True
        elif op is sre.BRANCH:
            if any(_nested(branch, inside_unbounded) for branch in value[1]):
                return True
        elif op in (sre.ASSERT, sre.ASSERT_NOT):
            if _nested(value[1], inside_unbounded):
                return True
        elif op is sre.ATOMIC_GROUP and _nested(value, inside_unbounded):
            return True
    return False


def catastrophic(pattern: str) -> bool:
    """Whether `pattern` repeats a repetition inside an unbounded one."""
    return _nested(sre_parse.parse(pattern), False)
