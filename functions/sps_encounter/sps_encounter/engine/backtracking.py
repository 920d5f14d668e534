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


# A bounded repetition wider than this counts as unbounded: `a{1,500}a{1,500}b` backtracks as
# `a*a*b` does on a text of a's.
WIDE_REPEAT = 20


def _repetitions(items: Any, found: list[str]) -> None:
    for op, value in items:
        if op in _REPEATS:
            low, high, body = value
            if high is sre.MAXREPEAT or high - low > WIDE_REPEAT:
                inner = list(body)
                found.append(
                    "group" if len(inner) != 1 or inner[0][0] in (sre.SUBPATTERN, sre.BRANCH) else "item"
                )
            _repetitions(body, found)
        elif op is sre.SUBPATTERN:
            _repetitions(value[-1], found)
        elif op is sre.BRANCH:
            for branch in value[1]:
                _repetitions(branch, found)
        elif op in (sre.ASSERT, sre.ASSERT_NOT):
            _repetitions(value[1], found)
        elif op is sre.ATOMIC_GROUP:
            _repetitions(value, found)


def untrusted_problem(pattern: str) -> str | None:
    """What a pattern posted with a request may not do, beyond what every pattern may not.

    Catalog patterns are reviewed with the code; an inline scenario's are not, and run on text a
    learner types. They may repeat single characters or classes only (`\\w+`, not `(ab)+` or
    `(a|b)*`: overlapping alternatives backtrack exponentially), and hold at most one unbounded
    (or wider than 20) repetition in all: two of them chained backtrack polynomially, whatever
    they repeat (`.*.*=` and `a*a*a*b` alike take seconds on a learner text of 600 characters).
    With one, a search is at worst quadratic in the text, which the API bounds."""
    found: list[str] = []
    _repetitions(sre_parse.parse(pattern), found)
    if "group" in found:
        return (
            "an inline pattern may repeat single characters or classes only, not a group like (ab)+ or (a|b)*"
        )
    if len(found) > 1:
        return (
            f"an inline pattern may hold one unbounded repetition (*, +, {{n,}}) at most, not {len(found)}: "
            "chained repetitions backtrack polynomially"
        )
    return None
