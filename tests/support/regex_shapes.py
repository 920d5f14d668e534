"""Regular-expression shapes that make Python's backtracking `re` slow on a text built to almost
match: two unbounded repeats that can take the same character with nothing between them that
must take another (`'[^']*\\s[^']*'`: a run of spaces splits between them in n ways, n² steps per
start), and an unbounded repeat inside another (`(a+)+`: exponential).

Read from `re`'s own parse tree. Character sets are read on a sample alphabet (ASCII, common
Chinese characters and punctuation), lower-cased as our patterns are matched under IGNORECASE;
an assertion between two repeats is taken as letting any character through, so a shape is
reported when in doubt. Possessive repeats and atomic groups never backtrack and are not reported.
"""

from __future__ import annotations

import re._constants as sre
import re._parser as sre_parse
import string
from collections.abc import Iterator, Sequence
from typing import Any

Node = tuple[Any, Any]

ALPHABET = frozenset(
    string.ascii_lowercase
    + string.digits
    + " \t\n"
    + string.punctuation
    + "。，！？：；、…—–“”‘’\u3000"
    + "我的心你他了不是一二三四五六七八九十中文字说问"
)
_ZERO_WIDTH = {sre.AT, sre.ASSERT, sre.ASSERT_NOT}
_REPEATS = {sre.MAX_REPEAT, sre.MIN_REPEAT}


def backtracking_shapes(pattern: str, flags: int = 0) -> list[str]:
    """What in the pattern backtracks polynomially or worse; empty when nothing does."""
    found: list[str] = []
    _walk(sre_parse.parse(pattern, flags).data, found)
    return found


def _walk(sequence: Sequence[Node], found: list[str]) -> None:
    nodes = _flat(sequence)
    for index, node in enumerate(nodes):
        pumped = _pumped(node)
        if pumped:
            shared = _shared_with_a_later_repeat(pumped, nodes[index + 1 :])
            if shared:
                found.append(f"two unbounded repeats can both take {sorted(shared)[:3]}")
            if any(_pumped(inner) for inner in _deep(node[1][2])):
                found.append("an unbounded repeat inside an unbounded repeat")
        for child in _children(node):
            _walk(child, found)


def _shared_with_a_later_repeat(pumped: frozenset[str], later: Sequence[Node]) -> frozenset[str]:
    """The characters that the repeat, every node on the way, and a later unbounded repeat can all
    take: a run of them can be split between the two repeats in as many ways as it is long."""
    passing = pumped
    for node in later:
        other = _pumped(node)
        if other and passing & other:
            return passing & other
        if node[0] in _ZERO_WIDTH or _nullable(node):
            continue
        passing = passing & _single(node)
        if not passing:
            break
    return frozenset()


def _flat(sequence: Sequence[Node]) -> list[Node]:
    """A sequence with its groups opened: `(?:a\\s*)\\s*` is `a`, `\\s*`, `\\s*`."""
    flat: list[Node] = []
    for op, av in sequence:
        if op is sre.SUBPATTERN:
            flat.extend(_flat(av[3]))
        else:
            flat.append((op, av))
    return flat


def _pumped(node: Node) -> frozenset[str]:
    """The characters an unbounded, backtracking repeat can take any number of."""
    op, av = node
    if op in _REPEATS and av[1] == sre.MAXREPEAT:
        return _sequence_single(av[2])
    return frozenset()


def _single(node: Node) -> frozenset[str]:
    """The characters c such that the node matches a run of c (at least one)."""
    op, av = node
    if op is sre.LITERAL:
        return frozenset({chr(av).lower()})
    if op is sre.NOT_LITERAL:
        return ALPHABET - {chr(av).lower()}
    if op is sre.ANY:
        return ALPHABET - {"\n"}
    if op is sre.IN:
        return _in(av)
    if op in _REPEATS or op is sre.POSSESSIVE_REPEAT:
        return _sequence_single(av[2]) if av[1] >= 1 else frozenset()
    if op is sre.SUBPATTERN:
        return _sequence_single(av[3])
    if op is sre.ATOMIC_GROUP:
        return _sequence_single(av)
    if op is sre.BRANCH:
        return frozenset().union(*(_sequence_single(branch) for branch in av[1]))
    return frozenset()


def _sequence_single(sequence: Sequence[Node]) -> frozenset[str]:
    required, optional, any_required = ALPHABET, frozenset[str](), False
    for node in _flat(sequence):
        if node[0] in _ZERO_WIDTH:
            continue
        if _nullable(node):
            optional |= _single(node)
        else:
            any_required = True
            required &= _single(node)
    return required if any_required else optional


def _nullable(node: Node) -> bool:
    op, av = node
    if op in _ZERO_WIDTH:
        return True
    if op in _REPEATS or op is sre.POSSESSIVE_REPEAT:
        return bool(av[0] == 0 or all(_nullable(inner) for inner in av[2]))
    if op is sre.SUBPATTERN:
        return all(_nullable(inner) for inner in av[3])
    if op is sre.ATOMIC_GROUP:
        return all(_nullable(inner) for inner in av)
    if op is sre.BRANCH:
        return any(all(_nullable(inner) for inner in branch) for branch in av[1])
    return False


def _in(items: Sequence[Node]) -> frozenset[str]:
    negated, members = False, set()
    for op, av in items:
        if op is sre.NEGATE:
            negated = True
        elif op is sre.LITERAL:
            members.add(chr(av).lower())
        elif op is sre.RANGE:
            low, high = av
            members |= {c for c in ALPHABET if low <= ord(c) <= high or low <= ord(c.upper()) <= high}
        elif op is sre.CATEGORY:
            members |= {c for c in ALPHABET if _in_category(av, c)}
    return ALPHABET - members if negated else frozenset(members) & ALPHABET


def _in_category(category: Any, char: str) -> bool:
    word = char.isalnum() or char == "_"
    return {
        sre.CATEGORY_DIGIT: char.isdecimal(),
        sre.CATEGORY_NOT_DIGIT: not char.isdecimal(),
        sre.CATEGORY_SPACE: char.isspace(),
        sre.CATEGORY_NOT_SPACE: not char.isspace(),
        sre.CATEGORY_WORD: word,
        sre.CATEGORY_NOT_WORD: not word,
    }.get(category, False)


def _children(node: Node) -> list[Sequence[Node]]:
    op, av = node
    if op in _REPEATS or op is sre.POSSESSIVE_REPEAT:
        return [av[2]]
    if op is sre.SUBPATTERN:
        return [av[3]]
    if op is sre.BRANCH:
        return list(av[1])
    if op in (sre.ASSERT, sre.ASSERT_NOT):
        return [av[1]]
    if op is sre.ATOMIC_GROUP:
        return [av]
    return []


def _deep(sequence: Sequence[Node]) -> Iterator[Node]:
    for node in sequence:
        yield node
        for child in _children(node):
            yield from _deep(child)
