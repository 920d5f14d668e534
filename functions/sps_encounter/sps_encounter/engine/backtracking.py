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


# Classes that can match letters: a learner text of 2,000 letters feeds each of these.
_BROAD = {sre.ANY}


def _broad(op: Any, value: Any) -> bool:
    if op in _BROAD or op is sre.NOT_LITERAL:
        return True
    if op is sre.IN:
        negated = any(item_op is sre.NEGATE for item_op, _ in value)
        categories = {item_value for item_op, item_value in value if item_op is sre.CATEGORY}
        return negated or bool(
            categories & {sre.CATEGORY_WORD, sre.CATEGORY_NOT_SPACE, sre.CATEGORY_NOT_DIGIT}
        )
    return False


def _unbounded(items: Any, found: list[str]) -> None:
    for op, value in items:
        if op in _REPEATS:
            _, high, body = value
            if high is sre.MAXREPEAT:
                inner = list(body)
                if len(inner) != 1 or inner[0][0] in (sre.SUBPATTERN, sre.BRANCH):
                    found.append("group")
                elif _broad(*inner[0]):
                    found.append("broad")
            _unbounded(body, found)
        elif op is sre.SUBPATTERN:
            _unbounded(value[-1], found)
        elif op is sre.BRANCH:
            for branch in value[1]:
                _unbounded(branch, found)
        elif op in (sre.ASSERT, sre.ASSERT_NOT):
            _unbounded(value[1], found)


def untrusted_problem(pattern: str) -> str | None:
    """What a pattern posted with a request may not do, beyond what every pattern may not.

    Catalog patterns are reviewed with the code; an inline scenario's are not, and run on text a
    learner types. They may repeat single characters or classes only (`\\w+`, not `(ab)+` or
    `(a|b)*`: overlapping alternatives backtrack exponentially), and hold at most one unbounded
    repetition of a class that matches letters (`.*`, `\\w+`, `[^?]*`: two of them chained
    backtrack polynomially, `.*.*.*=` for hours)."""
    found: list[str] = []
    _unbounded(sre_parse.parse(pattern), found)
    if "group" in found:
        return (
            "an inline pattern may repeat single characters or classes only, not a group like (ab)+ or (a|b)*"
        )
    if found.count("broad") > 1:
        return (
            "an inline pattern may hold one unbounded repetition of a letter-matching class "
            "(.*, \\w+, [^x]*) at most"
        )
    return None
