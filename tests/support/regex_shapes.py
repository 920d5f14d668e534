"""Regular-expression shapes that make Python's backtracking `re` slow on a text built to almost
match:
- two unbounded repeats that can take the same character with nothing between them that must
  take another (`'[^']*\\s[^']*'`: a run of spaces splits between them in n ways, n² steps per
  start), also when one of them sits in an alternative or an optional group (`\\s*(?:a|\\s*b)`);
- an unbounded repeat inside another (`(a+)+`: exponential), or inside a bounded one of two or
  more whose turns can split the same run (`(?:\\w+\\s*){1,3}$`: n³);
- a repeated turn that can take the same run in two lengths (`(a|aa)*x`: exponential).

Read from `re`'s own parse tree. Character sets are read on a sample alphabet (ASCII, common
Chinese characters and punctuation) together with every character the pattern itself names,
lower-cased as most of our patterns are matched under IGNORECASE; an assertion between two
repeats is taken as letting any character through, so a shape is reported when in doubt.
Possessive repeats and atomic groups do not backtrack once they have matched, so a repeat inside
one is not read against what follows it; what is inside is still read on its own, and one after a
backtracking repeat is read as a repeat, since every split the earlier one tries runs it again.

Known limits: runs are read one character at a time, so repeats of a longer unit that share a run
(`(?:ab)*(?:ab)*`, `(?:ha|haha)*`) are not reported; case is always folded, so `[A-Z]*[a-z]*`
without IGNORECASE is reported though it is linear; an atomic group inside a repeat is reported
as if it backtracked.
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
    tree = sre_parse.parse(pattern, flags).data
    reader = _Reader(ALPHABET | _named_characters(tree))
    found: list[str] = []
    try:
        reader.walk(tree, [], found)
    except _TooManyPaths:
        found.append("too many paths to read: split the pattern or drop optional groups")
    return list(dict.fromkeys(found))


class _TooManyPaths(Exception):
    """Each optional group after a repeat doubles the paths `shared_later` follows."""


# Paths followed per pattern before giving up; the census's largest pattern takes a few hundred.
BUDGET = 20_000


class _Reader:
    def __init__(self, alphabet: frozenset[str]) -> None:
        self.alphabet = alphabet
        self.budget = BUDGET

    def walk(self, sequence: Sequence[Node], after: list[Node], found: list[str]) -> None:
        """Reads each node of the sequence against what follows it, here and after the sequence."""
        nodes = _flat(sequence)
        for index, node in enumerate(nodes):
            rest = nodes[index + 1 :] + after
            pumped = self.pumped(node)
            if pumped:
                shared = self.shared_later(pumped, rest)
                if shared:
                    found.append(f"two unbounded repeats can both take {sorted(shared)[:3]}")
                if any(self.pumped(inner) for inner in _deep(node[1][2])):
                    found.append("an unbounded repeat inside an unbounded repeat")
            if node[0] in _REPEATS and node[1][1] >= 2:
                body = _flat(node[1][2])
                if node[1][1] != sre.MAXREPEAT and (self.turns_split_a_run(body) or self.turn_is_a_run(body)):
                    found.append(f"an unbounded repeat inside a repeat of up to {node[1][1]}")
                # Up to 3 turns of two lengths cost at most 2³ tries at a position.
                if node[1][1] > 3 and self.turns_of_two_lengths(body):
                    found.append("a repeated turn can take the same run in two lengths")
            for child, child_after in _children(node, rest):
                self.walk(child, child_after, found)

    def shared_later(self, passing: frozenset[str], later: Sequence[Node]) -> frozenset[str]:
        """The characters that the repeat, every node on the way, and a later unbounded repeat can
        all take: a run of them can be split between the two repeats in as many ways as it is
        long. Alternatives and groups on the way are entered, each followed by the rest."""
        self.budget -= 1
        if self.budget < 0:
            raise _TooManyPaths
        for index, node in enumerate(later):
            op, av = node
            # A later possessive repeat takes its run whole, but each split the earlier one tries
            # runs it again.
            other = self.pumped(node) or self.possessive_run(node)
            if other and passing & other:
                return passing & other
            if op in _ZERO_WIDTH:
                continue
            rest = list(later[index + 1 :])
            if op is sre.BRANCH or op is sre.GROUPREF_EXISTS:
                for branch in _alternatives(node):
                    shared = self.shared_later(passing, _flat(branch) + rest)
                    if shared:
                        return shared
                return frozenset()
            if op is sre.ATOMIC_GROUP:
                return self.shared_later(passing, _flat(av) + rest)
            if op in _REPEATS:
                shared = self.shared_later(passing, _flat(av[2]) + rest)
                if shared or av[0] >= 1:
                    return shared
                continue
            if _nullable(node):
                continue
            passing = passing & self.single(node)
            if not passing:
                break
        return frozenset()

    def turn_is_a_run(self, body: Sequence[Node]) -> bool:
        """Whether a whole turn can be a run that an unbounded repeat inside it takes, through an
        alternative or not (`(?:\\w+|-){1,10}`): consecutive turns then split the run."""
        runs = self.sequence_single(body)
        return any(runs & self.pumped(inner) for inner in _deep(body))

    def turns_split_a_run(self, body: Sequence[Node]) -> bool:
        """Whether an unbounded repeat in the body and one in the next turn can share a run."""
        return any(
            (pumped := self.pumped(node)) and self.shared_later(pumped, list(body[index + 1 :]) + list(body))
            for index, node in enumerate(body)
        )

    def turns_of_two_lengths(self, body: Sequence[Node]) -> bool:
        """Whether one turn can take a run of some character in two lengths: through two
        alternatives (`(?:a|aa)`) or an optional part (`(?:aa?)`) that take it, where every part
        the turn needs takes it too. Every way to split a run among the turns is then tried."""
        required = [node for node in body if node[0] not in _ZERO_WIDTH and not _nullable(node)]
        if not required:
            return False
        run = self.alphabet
        for node in required:
            run = run & self.single(node)
        either: frozenset[str] = frozenset()
        for node in body:
            if node[0] in _ZERO_WIDTH:
                continue
            if _nullable(node):
                either |= self.single(node)
            if node[0] is sre.BRANCH:
                runs = [self.sequence_single(branch) for branch in node[1][1]]
                for i, first in enumerate(runs):
                    for second in runs[i + 1 :]:
                        either |= first & second
        return bool(run & either)

    def possessive_run(self, node: Node) -> frozenset[str]:
        op, av = node
        if op is sre.POSSESSIVE_REPEAT and av[1] == sre.MAXREPEAT:
            return self.sequence_single(av[2])
        return frozenset()

    def pumped(self, node: Node) -> frozenset[str]:
        """The characters an unbounded, backtracking repeat can take any number of."""
        op, av = node
        if op in _REPEATS and av[1] == sre.MAXREPEAT:
            return self.sequence_single(av[2])
        return frozenset()

    def single(self, node: Node) -> frozenset[str]:
        """The characters c such that the node matches a run of c (at least one)."""
        op, av = node
        if op is sre.LITERAL:
            return frozenset({chr(av).lower()})
        if op is sre.NOT_LITERAL:
            return self.alphabet - {chr(av).lower()}
        if op is sre.ANY:
            return self.alphabet - {"\n"}
        if op is sre.IN:
            return self.in_set(av)
        if op in _REPEATS or op is sre.POSSESSIVE_REPEAT:
            return self.sequence_single(av[2]) if av[1] >= 1 else frozenset()
        if op is sre.SUBPATTERN:
            return self.sequence_single(av[3])
        if op is sre.ATOMIC_GROUP:
            return self.sequence_single(av)
        if op is sre.BRANCH or op is sre.GROUPREF_EXISTS:
            return frozenset().union(*(self.sequence_single(branch) for branch in _alternatives(node)))
        return frozenset()

    def sequence_single(self, sequence: Sequence[Node]) -> frozenset[str]:
        required, optional, any_required = self.alphabet, frozenset[str](), False
        for node in _flat(sequence):
            if node[0] in _ZERO_WIDTH:
                continue
            if _nullable(node):
                optional |= self.single(node)
            else:
                any_required = True
                required &= self.single(node)
        return required if any_required else optional

    def in_set(self, items: Sequence[Node]) -> frozenset[str]:
        negated, members = False, set()
        for op, av in items:
            if op is sre.NEGATE:
                negated = True
            elif op is sre.LITERAL:
                members.add(chr(av).lower())
            elif op is sre.RANGE:
                low, high = av
                members |= {
                    c for c in self.alphabet if low <= ord(c) <= high or low <= ord(c.upper()) <= high
                }
            elif op is sre.CATEGORY:
                members |= {c for c in self.alphabet if _in_category(av, c)}
        return self.alphabet - members if negated else frozenset(members) & self.alphabet


def _named_characters(sequence: Sequence[Node]) -> frozenset[str]:
    """Every character the pattern names, and the ends of its ranges: a set such as `[^x]` then
    takes the pattern's own `好`, which a fixed sample alphabet would not hold."""
    named: set[str] = set()
    for op, av in _deep(sequence):
        if op in (sre.LITERAL, sre.NOT_LITERAL):
            named.add(chr(av).lower())
        elif op is sre.IN:
            for item_op, item_av in av:
                if item_op is sre.LITERAL:
                    named.add(chr(item_av).lower())
                elif item_op is sre.RANGE:
                    named |= {chr(item_av[0]).lower(), chr(item_av[1]).lower()}
    return frozenset(named)


def _flat(sequence: Sequence[Node]) -> list[Node]:
    """A sequence with its groups opened: `(?:a\\s*)\\s*` is `a`, `\\s*`, `\\s*`."""
    flat: list[Node] = []
    for op, av in sequence:
        if op is sre.SUBPATTERN:
            flat.extend(_flat(av[3]))
        else:
            flat.append((op, av))
    return flat


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
    if op is sre.BRANCH or op is sre.GROUPREF_EXISTS:
        return any(all(_nullable(inner) for inner in branch) for branch in _alternatives(node))
    return False


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


def _children(node: Node, rest: list[Node]) -> list[tuple[Sequence[Node], list[Node]]]:
    """The node's inner sequences, each with what follows it when it matches: a backtracking
    repeat's last turn and an alternative are followed by the rest of the pattern; a lookaround,
    a possessive repeat and an atomic group are read on their own."""
    op, av = node
    if op in _REPEATS:
        return [(av[2], rest)]
    if op is sre.POSSESSIVE_REPEAT:
        return [(av[2], [])]
    if op is sre.SUBPATTERN:
        return [(av[3], rest)]
    if op is sre.BRANCH or op is sre.GROUPREF_EXISTS:
        return [(branch, rest) for branch in _alternatives(node)]
    if op in (sre.ASSERT, sre.ASSERT_NOT):
        return [(av[1], [])]
    if op is sre.ATOMIC_GROUP:
        return [(av, [])]
    return []


def _alternatives(node: Node) -> list[Sequence[Node]]:
    """The branches of an alternation, or the yes and no branches of a conditional `(?(1)…|…)`."""
    op, av = node
    if op is sre.GROUPREF_EXISTS:
        return [branch if branch is not None else [] for branch in av[1:]]
    return list(av[1])


def _deep(sequence: Sequence[Node]) -> Iterator[Node]:
    for node in sequence:
        yield node
        for child, _ in _children(node, []):
            yield from _deep(child)
