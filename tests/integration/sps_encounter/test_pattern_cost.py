"""Issue 24, finding 1: an inline scenario's patterns could hold the function for its whole timeout.

Each reproduction of the finding now answers 422 `patterns_too_costly` naming the list at fault,
and stores nothing: a document over the count or size limit is refused before anything runs, and
one under it runs out of matching budget on a text built to almost match its patterns. (How fast
they answer is measured by `bench/hostile_patterns.py`, not here.)"""

from __future__ import annotations

import re

import pytest

from persona_rails import user_patterns
from tests.integration.sps_encounter.helpers import (
    NOTHING,
    inline_scenario,
    post_start,
    post_turn,
    row_counts,
    start_body,
    validate,
)

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")

# One unbounded repetition (all an inline pattern may hold), gated on "zzq": on a text of "xa"
# pairs ending in "zazzq" every search is quadratic, and no search ever matches.
HOSTILE = "x[^z]*zzq"
NEAR_MISS = "xa" * 996 + "zazzq"  # 1,997 characters, under the 2,000 a turn may hold


def _guardrails(count: int) -> list[dict]:
    return [{"id": f"g{index}", "patterns": [HOSTILE] * 40, "note": "hostile"} for index in range(count)]


def _scenario_with_guardrails(count: int) -> dict:
    scenario = inline_scenario()
    scenario["guardrails"] = [*scenario["guardrails"], *_guardrails(count)][-50:]
    return scenario


def _assert_too_costly(reply, field_pattern: str) -> None:
    assert reply.status == 422, reply.body
    assert reply.error["code"] == "patterns_too_costly"
    assert re.fullmatch(field_pattern, reply.error["field"]), reply.error


@pytest.mark.parametrize("guardrails", [50, 25])
def test_a_start_over_the_pattern_count_is_refused_naming_the_list(api, users, db, guardrails):
    learner = users.create()
    reply = post_start(
        api, learner.token, start_body(scenario_id=None, scenario=_scenario_with_guardrails(guardrails))
    )
    _assert_too_costly(reply, r"scenario\.guardrails\[\d+\]\.patterns")
    assert "400 patterns" in reply.error["message"]
    assert row_counts(db, learner.id) == NOTHING


def test_a_start_over_the_pattern_size_is_refused_naming_the_list(api, users, db):
    learner = users.create()
    scenario = inline_scenario()
    long = "(?:" + "b" * 290 + ")"
    scenario["guardrails"] = [
        {"id": f"g{i}", "note": "long", "patterns": [f"{long}{j}" for j in range(40)]} for i in range(2)
    ]
    reply = post_start(api, learner.token, start_body(scenario_id=None, scenario=scenario))
    _assert_too_costly(reply, r"scenario\.guardrails\[\d+\]\.patterns")
    assert "24000 characters" in reply.error["message"]
    assert row_counts(db, learner.id) == NOTHING


def test_a_turn_that_runs_out_of_matching_budget_is_refused_naming_the_list(api, users, db):
    # 6 x 40 hostile guardrails, within the count limit: the start is accepted, and the turn that
    # almost matches them all stops at the budget instead of at the function's timeout.
    learner = users.create()
    started = post_start(
        api, learner.token, start_body(scenario_id=None, scenario=_scenario_with_guardrails(6))
    )
    assert started.status == 201, started.body
    encounter = started.body["encounter_id"]
    before = row_counts(db, learner.id)
    reply = post_turn(api, learner.token, encounter, NEAR_MISS)
    _assert_too_costly(reply, r"scenario\.guardrails\[\d+\]\.patterns")
    assert row_counts(db, learner.id) == before
    # The encounter is intact: an ordinary turn goes on from where it was.
    assert post_turn(api, learner.token, encounter, "When did the pain start?").status == 200


def test_a_start_whose_lines_run_out_of_matching_budget_is_refused_naming_the_list(api, users, db):
    # Slot conflicts are checked against every line the patient can say when the case is loaded.
    learner = users.create()
    scenario = inline_scenario()
    for slot in scenario["subjective_catalog"]:
        slot["conflicts"] = [HOSTILE] * 16
        slot["answers"] = [*slot["answers"][:1], *([NEAR_MISS[-400:]] * 29)]
    reply = post_start(api, learner.token, start_body(scenario_id=None, scenario=scenario))
    _assert_too_costly(reply, r"scenario\.subjective_catalog\[\d+\]\.conflicts")
    assert row_counts(db, learner.id) == NOTHING


@pytest.mark.parametrize("guardrails", [50, 6])
def test_a_validation_over_the_cost_bound_is_refused_naming_the_list(api, users, db, guardrails):
    learner = users.create()
    transcript = [{"turnIndex": 0, "role": "learner", "text": NEAR_MISS}]
    reply = validate(
        api,
        learner.token,
        transcript,
        scenario_id=None,
        scenario=_scenario_with_guardrails(guardrails),
        store=True,
    )
    _assert_too_costly(reply, r"scenario\.guardrails\[\d+\]\.patterns")
    assert row_counts(db, learner.id) == NOTHING


def test_a_reviewed_scenario_posted_inline_still_validates(api, users):
    # The bound must not refuse what the catalog itself holds: its largest scenario, inline.
    learner = users.create()
    transcript = [{"turnIndex": 0, "role": "learner", "text": "When did the pain start? " * 70}]
    reply = validate(api, learner.token, transcript, scenario_id=None, scenario=inline_scenario())
    assert reply.status == 200, reply.body


def test_the_budget_is_charged_only_while_matching():
    # A database or LLM round trip between two searches spends none of it.
    import time

    pattern = user_patterns.BoundedPattern("abc", re.IGNORECASE, "scenario.x.patterns")
    with user_patterns.matching_budget(0.05):
        time.sleep(0.1)
        assert pattern.search("xxabcxx") is not None
