"""Literal gates: a cheap test that lets a pattern be skipped on text it cannot match.

Most case patterns need some literal text to match ("started", "allerg", "疼"). A pattern's gate
is a set of literals one of which every match contains, read from the parsed pattern; a text
holding none of them cannot match, and a few substring searches replace a regular-expression
scan. Validating 10,000 turns against a scenario's dozens of fact conflicts and guardrails is
mostly this. A pattern with no usable literal (all classes) has no gate and is always run.

The literals of a set are searched for by key (`keyed`): literals that share a piece ("sta" in
"started", "stabbing") are looked for only in text that holds it, which spares most searches.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

from persona_rails.folding import fold_pattern
from persona_rails.user_patterns import BoundedPattern, Searchable

MIN_LITERAL = 2


def _one_character(run: list[str]) -> bool:
    """A single character that is selective alone: a Chinese character, or a question mark."""
    return len(run) == 1 and ("\u3400" <= run[0] <= "\u9fff" or run[0] in "?？")


def _sets(items: Any) -> list[tuple[str, ...]]:
    """Literal sets of this level of a sequence: every match contains one literal of each."""
    candidates: list[tuple[str, ...]] = []
    run: list[str] = []

    def close() -> None:
        if len(run) >= MIN_LITERAL or _one_character(run):
            candidates.append(("".join(run),))
        run.clear()

    for op, value in items:
        if op is sre.LITERAL:
            run.append(chr(value))
            continue
        close()
        if op is sre.SUBPATTERN:
            found = _alternatives(value[-1])
            if found:
                candidates.append(found)
        elif op is sre.BRANCH:
            branches = [_alternatives(branch) for branch in value[1]]
            if all(branches):
                candidates.append(tuple(lit for branch in branches for lit in branch or ()))
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT) and value[0] >= 1:
            found = _alternatives(value[2])
            if found:
                candidates.append(found)
    close()
    return candidates


def _selective(literals: tuple[str, ...]) -> tuple[int, int]:
    """The most selective set first: its shortest literal is longest, then it has fewest."""
    return (min(len(lit) for lit in literals), -len(literals))


def _alternatives(items: Any) -> tuple[str, ...] | None:
    """Literal strings, one of which every match of this sequence contains; the most selective
    such set found at this level, or None."""
    candidates = _sets(items)
    return max(candidates, key=_selective) if candidates else None


def _casefolded(found: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(lit.casefold() for lit in found))


SECOND_GATES = 2


def _gates(pattern: str) -> tuple[tuple[str, ...] | None, tuple[tuple[str, ...], ...]]:
    """The gate of `pattern` and its second gates, from one parse: the literal sets of its top
    level, most selective first (ties in pattern order, as `_alternatives` picks)."""
    found = [
        _casefolded(lits) for lits in sorted(_sets(sre_parse.parse(pattern)), key=_selective, reverse=True)
    ]
    return (found[0] if found else None), tuple(found[1 : 1 + SECOND_GATES])


def literals(pattern: str) -> tuple[str, ...] | None:
    """The gate of `pattern` (matched case-insensitively on casefolded text), or None."""
    return _gates(pattern)[0]


def second_gates(pattern: str) -> tuple[tuple[str, ...], ...]:
    """Beside the gate, up to two more literal sets every match of `pattern` holds one of, most
    selective first: tested only once the gate opens, they spare the search that would fail
    ("the " opens on most turns; "the worst ones" also needs "bad" or "worst")."""
    return _gates(pattern)[1]


def _holds(folded: str, gates: tuple[tuple[str, ...], ...]) -> bool:
    for gate in gates:
        for literal in gate:
            if literal in folded:
                break
        else:
            return False
    return True


# (name, pattern) entries; literal -> the entries it gates; the ungated entries; the literals
# under their shared keys; per entry, its second gates.
_Built = tuple[
    tuple[tuple[str, Searchable], ...],
    dict[str, tuple[int, ...]],
    frozenset[int],
    tuple[tuple[str, tuple[str, ...]], ...],
    tuple[tuple[tuple[str, ...], ...], ...],
]

KEY_LENGTH = 3


def _pieces(literal: str) -> set[str]:
    """What a key may be: a CJK character, or three characters of any other script."""
    found = {char for char in literal if "\u3400" <= char <= "\u9fff"}
    found.update(literal[at : at + KEY_LENGTH] for at in range(len(literal) - KEY_LENGTH + 1))
    return found


def keyed(literals: Iterable[str]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The literals grouped under keys, each key a piece of every literal in its group.

    A text without the key holds none of its group, so one substring search stands for several;
    a literal that shares no piece with another is its own key. Greedy: the piece that most of
    the literals left share first, while it covers at least two (counts only fall as literals
    are covered, so a heap entry whose count is stale is pushed back with the current one)."""
    left = list(dict.fromkeys(literals))
    pieces = {literal: sorted(_pieces(literal)) for literal in left}
    holders: dict[str, list[str]] = {}
    for literal in left:
        for piece in pieces[literal]:
            holders.setdefault(piece, []).append(literal)
    count = {piece: len(held) for piece, held in holders.items()}
    heap = [(-held, piece) for piece, held in count.items() if held >= 2]
    heapq.heapify(heap)
    remaining = set(left)
    groups: list[tuple[str, tuple[str, ...]]] = []
    while heap:
        negative, piece = heapq.heappop(heap)
        if -negative != count[piece]:
            if count[piece] >= 2:
                heapq.heappush(heap, (-count[piece], piece))
            continue
        covered = tuple(literal for literal in holders[piece] if literal in remaining)
        groups.append((piece, covered))
        for literal in covered:
            remaining.discard(literal)
            for other in pieces[literal]:
                count[other] -= 1
    groups.extend((literal, (literal,)) for literal in left if literal in remaining)
    return tuple(groups)


@dataclass(frozen=True)
class Gated:
    """Named patterns, each run only on text holding one of its gate's literals.

    Built on first use: a case holds a dozen of these, and a request that matches no text
    against them (an encounter's start) should not pay for parsing and compiling ~100 patterns.
    Every pattern was checked when its artifact was loaded, or by `make package` for a sealed
    config (persona_rails.config_seal), so building later cannot fail."""

    named: tuple[tuple[str, str], ...]
    # Per entry, the path of the list a request brought it in (matched under the request's cost
    # bound), or None for a reviewed pattern; empty when all are reviewed.
    untrusted: tuple[str | None, ...] = ()

    @classmethod
    def of(cls, named: Iterable[tuple[str, str]], untrusted: Iterable[str | None] = ()) -> Gated:
        return cls(tuple(named), tuple(untrusted))

    @cached_property
    def _built(self) -> _Built:
        entries: list[tuple[str, Searchable]] = []
        index: dict[str, list[int]] = {}
        ungated: set[int] = set()
        seconds: list[tuple[tuple[str, ...], ...]] = []
        for position, (name, pattern) in enumerate(self.named):
            # Text is matched folded (CompiledLanguage.fold): the pattern is folded too.
            folded = fold_pattern(pattern)
            path = self.untrusted[position] if self.untrusted else None
            compiled = (
                re.compile(folded, re.IGNORECASE)
                if path is None
                else BoundedPattern(folded, re.IGNORECASE, path)
            )
            entries.append((name, compiled))
            gate, second = _gates(folded)
            seconds.append(second)
            if gate is None:
                ungated.add(position)
            for literal in gate or ():
                index.setdefault(literal, []).append(position)
        gates = {lit: tuple(at) for lit, at in index.items()}
        return tuple(entries), gates, frozenset(ungated), keyed(gates), tuple(seconds)

    @property
    def entries(self) -> tuple[tuple[str, Searchable], ...]:
        return self._built[0]

    @property
    def index(self) -> dict[str, tuple[int, ...]]:
        """literal -> the entries it gates; every literal is searched for once per text."""
        return self._built[1]

    @property
    def ungated(self) -> frozenset[int]:
        return self._built[2]

    @property
    def literals(self) -> tuple[str, ...]:
        return tuple(self._built[1])

    @property
    def groups(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """(key, literals) pairs: a literal is searched for only in text holding its key."""
        return self._built[3]

    def build(self) -> Gated:
        """Compile now (the unsealed config check does, so that a broken pattern fails at load)."""
        _ = self._built
        return self

    def _candidates(self, folded: str) -> tuple[int, ...] | list[int]:
        """The positions, in order, of the entries whose gate `folded` opens."""
        _, index, ungated, groups, _ = self._built
        present = [lit for key, group in groups if key in folded for lit in group if lit in folded]
        if not ungated:
            if not present:
                return ()
            if len(present) == 1:  # the usual case: one literal, its entries already in order
                return index[present[0]]
        candidates = set(ungated)
        for literal in present:
            candidates.update(index[literal])
        return sorted(candidates)

    def matches(self, folded: str) -> Iterator[tuple[str, re.Match[str]]]:
        """(name, first match) of every pattern matching `folded`, in order."""
        entries, seconds = self._built[0], self._built[4]
        for position in self._candidates(folded):
            if seconds[position] and not _holds(folded, seconds[position]):
                continue
            name, pattern = entries[position]
            found = pattern.search(folded)
            if found is not None:
                yield name, found

    def first(self, folded: str) -> tuple[str, re.Match[str]] | None:
        # Not `next(self.matches(…))`: most turns are searched by several of these, and a
        # generator per search costs more than the literals it looks for.
        entries, seconds = self._built[0], self._built[4]
        for position in self._candidates(folded):
            if seconds[position] and not _holds(folded, seconds[position]):
                continue
            name, pattern = entries[position]
            found = pattern.search(folded)
            if found is not None:
                return name, found
        return None

    def search(self, folded: str) -> re.Match[str] | None:
        """Like `re.Pattern.search` on the alternation of the patterns, less the order of matches."""
        found = self.first(folded)
        return found[1] if found else None

    def names(self, folded: str) -> tuple[str, ...]:
        """The names with a matching pattern, each once, in order."""
        return tuple(dict.fromkeys(name for name, _ in self.matches(folded)))

    def __bool__(self) -> bool:
        return bool(self.named)
