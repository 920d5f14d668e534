"""Recursion caps per state machine (spec: Depth Governor, core rules): precision narrowing 2
steps, emotional expansion 2, inconsistency resolution 1; after the cap the loop exits to its
fallback while the rule keeps winning, and it starts over only when something else wins or the
topic changes."""

from __future__ import annotations

import pytest

from interview_turn.artifacts import interview_config
from interview_turn.engine.loops import advance
from interview_turn.engine.model import Language, Loop, Persona, Rule
from interview_turn.engine.policy import SPEC_RECURSION_CAPS
from tests.unit.interview_turn.support import (
    EMOTIONAL,
    EMOTIONAL_ZH,
    PLAIN,
    PLAN,
    REFUSAL,
    VAGUE,
    VAGUE_ZH,
    new_session,
)

CONFIG = interview_config()
MACHINES = CONFIG.machines.machines


def test_shipped_caps_are_the_specs():
    assert {name: machine.max_steps for name, machine in MACHINES.items()} == {
        "precision_narrowing": 2,
        "emotional_expansion": 2,
        "inconsistency_resolution": 1,
    }
    assert {name: machine.max_steps for name, machine in MACHINES.items()} == SPEC_RECURSION_CAPS


def loop_states(outcomes):
    return [o.contract["loop_state"] for o in outcomes]


@pytest.mark.parametrize(("language", "text"), [(Language.EN, VAGUE), (Language.ZH, VAGUE_ZH)])
def test_precision_narrowing_runs_two_steps_then_exits_to_its_fallback(language, text):
    session = new_session(language=language)
    outcomes = [session.say(text) for _ in range(4)]
    assert all(o.winning_rule == Rule.VAGUENESS.value for o in outcomes)
    assert loop_states(outcomes) == [
        "precision_narrowing:anchor_time",
        "precision_narrowing:anchor_place",
        "precision_narrowing:exhausted",
        "precision_narrowing:exhausted",
    ]
    assert [o.contract["persona_used"] for o in outcomes] == [
        Persona.PRECISION_NARROW.value,
        Persona.PRECISION_NARROW.value,
        Persona.EMPATHY_BASE.value,
        Persona.EMPATHY_BASE.value,
    ]
    assert [o.contract["tactic_used"] for o in outcomes] == [
        "anchor_in_time",
        "anchor_in_place",
        "accept_and_move_on",
        "accept_and_move_on",
    ]
    assert [o.telemetry["loop"]["capped"] for o in outcomes] == [False, False, True, True]
    fallback_lines = MACHINES["precision_narrowing"].exit.fallback.templates.for_language(language.value)
    assert outcomes[2].contract["response_text"] in fallback_lines
    assert session.state.loop == Loop("precision_narrowing", 3), "the stored count stops one past the cap"


@pytest.mark.parametrize(("language", "text"), [(Language.EN, EMOTIONAL), (Language.ZH, EMOTIONAL_ZH)])
def test_emotional_expansion_runs_two_steps_then_exits_to_its_fallback(language, text):
    session = new_session(language=language)
    outcomes = [session.say(text) for _ in range(3)]
    assert all(o.winning_rule == Rule.HIGH_EMOTION.value for o in outcomes)
    assert loop_states(outcomes) == [
        "emotional_expansion:reflect_feeling",
        "emotional_expansion:invite_meaning",
        "emotional_expansion:exhausted",
    ]
    assert [o.contract["persona_used"] for o in outcomes] == [
        Persona.EMPATHY_EXPAND.value,
        Persona.EMPATHY_EXPAND.value,
        Persona.EMPATHY_BASE.value,
    ]
    assert outcomes[2].contract["tactic_used"] == "stabilize_and_offer_choice"
    assert [o.telemetry["loop"]["steps_executed"] for o in outcomes[:2]] == [1, 2]


def test_inconsistency_resolution_asks_once_then_holds_both_versions():
    session = new_session()
    session.say("We moved to Boston in 1985 when I was 12.")
    first = session.say("We moved to Boston in 1987.")
    second = session.say("We moved to Boston when I was 15.")
    assert [o.winning_rule for o in (first, second)] == [Rule.CONTRADICTION_RESOLUTION.value] * 2
    assert loop_states([first, second]) == [
        "inconsistency_resolution:gentle_clarify",
        "inconsistency_resolution:exhausted",
    ]
    assert first.contract["persona_used"] == Persona.LOGIC_CLARIFY.value
    assert second.contract["persona_used"] == Persona.EMPATHY_BASE.value
    assert second.contract["tactic_used"] == "hold_both_versions"
    assert "?" in first.contract["response_text"]


def test_a_loop_starts_over_when_another_rule_wins():
    session = new_session()
    session.say(VAGUE)
    session.say(VAGUE)
    # Plain, and with no year or place: the next "when" question is not one just answered.
    interlude = session.say("My father got a job at the shipyard, and we all went to see the boats.")
    assert interlude.winning_rule == Rule.DEFAULT.value
    assert interlude.contract["loop_state"] is None
    assert session.state.loop is None
    again = session.say(VAGUE)
    assert again.contract["loop_state"] == "precision_narrowing:anchor_time"


def test_a_different_machine_winning_resets_the_loop():
    session = new_session()
    session.say(VAGUE)
    session.say(VAGUE)
    assert session.say(EMOTIONAL).contract["loop_state"] == "emotional_expansion:reflect_feeling"
    assert session.say(VAGUE).contract["loop_state"] == "precision_narrowing:anchor_time"


def test_a_refusal_ends_the_loop():
    session = new_session()
    session.say(EMOTIONAL)
    refused = session.say(REFUSAL)
    assert refused.contract["loop_state"] is None
    assert session.say(EMOTIONAL).contract["loop_state"] == "emotional_expansion:reflect_feeling"


def test_a_topic_change_starts_the_loop_over():
    session = new_session(topic_plan=PLAN)
    session.say(VAGUE)
    session.say(VAGUE)
    assert session.say(VAGUE).contract["loop_state"] == "precision_narrowing:exhausted"
    moved = session.say(VAGUE, topic_id="work")
    assert moved.contract["topic_id"] == "work"
    assert moved.contract["loop_state"] == "precision_narrowing:anchor_time"


def test_a_conflict_already_clarified_is_not_clarified_again():
    session = new_session()
    session.say("We moved to Boston in 1985.")
    assert session.say("We moved to Boston in 1987.").winning_rule == Rule.CONTRADICTION_RESOLUTION.value
    session.say(PLAIN)  # resets the inconsistency loop
    again = session.say("We moved to Boston in 1989.")
    assert again.signals["contradiction_score"] == 0
    assert again.winning_rule != Rule.CONTRADICTION_RESOLUTION.value
    assert session.state.topic("life_story").clarified == ("year:moved>boston@self",)


def test_a_different_conflict_is_still_clarified_after_another_was():
    session = new_session()
    session.say("We moved to Boston in 1985.")
    session.say("We moved to Boston in 1987.")
    session.say(PLAIN)
    outcome = session.say("I was born in 1950.")
    assert outcome.winning_rule == Rule.DEFAULT.value
    session.say(PLAIN)
    conflict = session.say("I was born in 1952.")
    assert conflict.winning_rule == Rule.CONTRADICTION_RESOLUTION.value
    assert conflict.contract["loop_state"] == "inconsistency_resolution:gentle_clarify"


@pytest.mark.parametrize("name", sorted(SPEC_RECURSION_CAPS))
def test_advance_caps_every_machine_at_its_max_steps(name):
    machine = MACHINES[name]
    loop = None
    steps = []
    for _ in range(machine.max_steps + 3):
        step = advance(CONFIG.machines, name, loop, same_topic=True)
        steps.append(step)
        loop = step.loop_after
    uncapped = [s for s in steps if not s.capped]
    assert len(uncapped) == machine.max_steps
    assert [s.loop_state for s in uncapped] == [
        f"{name}:{state.id}" for state in machine.states[: machine.max_steps]
    ]
    assert all(s.loop_state == f"{name}:exhausted" for s in steps[machine.max_steps :])
    assert all(s.persona is machine.exit.fallback.persona for s in steps[machine.max_steps :])
    assert loop is not None
    assert loop.steps == machine.max_steps + 1


def test_advance_restarts_on_another_topic():
    exhausted = Loop("precision_narrowing", 3)
    assert advance(CONFIG.machines, "precision_narrowing", exhausted, same_topic=True).capped is True
    fresh = advance(CONFIG.machines, "precision_narrowing", exhausted, same_topic=False)
    assert (fresh.step, fresh.capped, fresh.loop_state) == (1, False, "precision_narrowing:anchor_time")


def test_loop_state_is_null_outside_a_machine():
    session = new_session()
    assert session.say(PLAIN).contract["loop_state"] is None
    assert session.say(REFUSAL).contract["loop_state"] is None
