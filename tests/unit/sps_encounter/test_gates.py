"""Literal gates skip a pattern only on text it cannot match: checked against running every
pattern, for every gated pattern set of every catalog case, over the golden encounters' texts
and texts built to match each pattern."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sps_encounter.engine.gates import Gated, keyed, literals, second_gates
from tests.unit.sps_encounter.support import catalog_case, config

GOLDEN_DIR = Path(__file__).parent / "golden"


def _texts() -> list[str]:
    texts = []
    for path in sorted(GOLDEN_DIR.glob("*.json")):
        golden = json.loads(path.read_text(encoding="utf-8"))
        texts += golden["learner_turns"] + [turn["text"] for turn in golden["expected"]]
    return texts


def _brute(gated: Gated, folded: str) -> list[str]:
    return [name for name, pattern in gated.entries if pattern.search(folded)]


@pytest.mark.parametrize("scenario", sorted(config().scenarios))
@pytest.mark.parametrize("which", ["conflicts", "diagnosis", "guardrails"])
def test_a_gate_never_skips_a_pattern_that_matches(scenario, which):
    case = catalog_case(scenario, config().scenarios[scenario].value.default_persona)
    gated: Gated = getattr(case, which)
    probes = [case.lexicon.fold(text) for text in _texts()]
    # Text each pattern matches: its own gate's literals, in context.
    probes += [f"well, {literal} and so on" for literal in gated.literals]
    for folded in probes:
        assert [name for name, _ in gated.matches(folded)] == _brute(gated, folded), folded


@pytest.mark.parametrize(
    ("pattern", "gate"),
    [
        (r"\bi (don'?t|never) smoke\b", (" smoke",)),
        (r"\b(days?|weeks?) ago\b", (" ago",)),
        (r"(不疼|没疼)", ("不疼", "没疼")),
        (r"\bno (known )?allergies\b", ("allergies",)),
        (r"[a-z]+\d", None),
        (r"\b(a|b)c", None),
        # A Chinese character is selective alone; a single Latin letter is not.
        (r"抽(个|点)?血", ("抽",)),
    ],
)
def test_a_gate_is_the_most_selective_literal_every_match_holds(pattern, gate):
    assert literals(pattern) == gate
    if gate:
        compiled = re.compile(pattern, re.IGNORECASE)
        for text in ("i never smoke", "two weeks ago", "现在不疼了", "no known allergies"):
            if compiled.search(text):
                assert any(literal in text for literal in gate)


def test_patterns_are_compiled_on_first_use_and_build_compiles_them_now():
    gated = Gated.of([("fine", r"chest pain"), ("broken", r"(unclosed")])
    # Nothing parsed or compiled yet: a start request that matches no text pays nothing.
    assert "_built" not in vars(gated)
    assert gated  # it holds patterns, built or not
    with pytest.raises(re.error):
        gated.build()
    working = Gated.of([("fine", r"chest pain")])
    assert [name for name, _ in working.matches("my chest pain again")] == ["fine"]
    assert "_built" in vars(working)


def test_the_unsealed_check_builds_every_gate_of_a_case():
    scenario = sorted(config().scenarios)[0]
    case = catalog_case(scenario, config().scenarios[scenario].value.default_persona)
    case.build()
    # The case's own gated lists and its language's (these exist only once first read).
    gates = {
        name: item
        for holder in (case, case.lexicon)
        for name, item in vars(holder).items()
        if isinstance(item, Gated)
    }
    assert {"guardrails", "diagnosis", "conflicts", "question_kinds", "vague", "refusal"} <= set(gates)
    assert all("_built" in vars(gate) for gate in gates.values())


def test_keys_group_the_literals_that_share_a_piece():
    groups = keyed(["started", "stabbing", "stab", "began", "一个", "一个星期", "两天", "三天", "two", "two"])
    assert sorted(literal for _, group in groups for literal in group) == sorted(
        ["started", "stabbing", "stab", "began", "一个", "一个星期", "两天", "三天", "two"]
    )
    assert all(key in literal for key, group in groups for literal in group)
    # Three literals under one key: a text without "sta" is spared two searches.
    assert ("sta", ("started", "stabbing", "stab")) in groups
    assert ("天", ("两天", "三天")) in groups
    # A literal that shares no piece is its own key.
    assert ("began", ("began",)) in groups


@pytest.mark.parametrize("scenario", sorted(config().scenarios))
def test_every_gate_of_a_case_keys_each_literal_once(scenario):
    case = catalog_case(scenario, config().scenarios[scenario].value.default_persona)
    lexicon = case.lexicon
    for gated in (case.conflicts, case.diagnosis, case.guardrails, lexicon.measurement, lexicon.refusal):
        grouped = [literal for _, group in gated.groups for literal in group]
        assert sorted(grouped) == sorted(gated.literals)


@pytest.mark.parametrize(
    ("pattern", "seconds"),
    [
        # "the " opens on most turns: a match also holds " one" and "bad" or "worst".
        (r"\bthe (?:bad|worst) ones?\b", ((" one",), ("bad", "worst"))),
        # A question mark is selective alone.
        (r"^\W*(and )?(you|it|that)('s| is)? [^?]*\?\s*$", (("?",),)),
        (r"\bi (don'?t|never) smoke\b", (("don", "never"), ("i ",))),
        (r"\bchest pain\b", ()),
    ],
)
def test_second_gates_are_the_other_literal_sets_every_match_holds(pattern, seconds):
    assert second_gates(pattern) == seconds


def test_a_pattern_runs_only_when_its_second_gates_open_too():
    gated = Gated.of([("severity", r"\bthe (?:bad|worst) ones?\b"), ("other", r"\bthe good ones\b")])
    assert [name for name, _ in gated.matches("the good ones are fine")] == ["other"]
    assert [name for name, _ in gated.matches("the worst ones are at night")] == ["severity"]
    assert gated.first("the one that got away") is None
