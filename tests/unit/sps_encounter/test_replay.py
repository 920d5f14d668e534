"""Replay determinism at the engine level (issue item 3): the same seed, case and learner turns
give an identical transcript and meta, from fresh states and with the state round-tripped
through its stored JSON between every turn; and the LLM path (`phrasing.take_turn`) with a
scripted phrasing, and with a recorded reply replayed through `phrasing.replayed` (a reply the
fact check refused is refused again, so the turn comes out the same)."""

from __future__ import annotations

import json

import pytest

from persona_rails.llm.step import Source
from sps_encounter import phrasing
from sps_encounter.engine.learner import apply_learner_turn
from sps_encounter.engine.respond import generate_patient_response, plan_response
from sps_encounter.engine.rng import xorshift32
from tests.unit.sps_encounter.support import RESERVED, TALKATIVE, catalog_case, clone, encounter, fresh_state

SCRIPT = [
    "What brings you in today?",
    "When did it start?",
    "What does it feel like?",
    "Does it go anywhere?",
    "That sounds really hard.",
    "I can understand that.",
    "Do you smoke?",
    "Anything else?",
    "Are you worried about your medications?",
    "Can you do some push-ups for me?",
    "What's your date of birth?",
    "What's your date of birth?",
    "Are you under a lot of pressure?",
    "I mean, how does the pain in your chest feel?",
    "I'll check your blood pressure now.",
    "What is your pulse?",
    "Have you travelled recently?",
    "Just answer yes or no.",
    "Get to the point.",
    "Tell me more.",
] * 2


def play(persona: str, seed: int, round_trip: bool = False):
    case = catalog_case(persona=persona)
    state = fresh_state(case, seed)
    turns = []
    for text in SCRIPT:
        if round_trip:
            state = clone(state)
        learner = apply_learner_turn(case, state, text)
        if round_trip:
            state = clone(state)
        response = generate_patient_response(case, state, learner)
        turns.append((learner.to_json(), response.text, response.meta))
    return turns, state.to_json()


@pytest.mark.parametrize("persona", [RESERVED, TALKATIVE])
@pytest.mark.parametrize("seed", [1, 42, 2**31 + 3])
def test_the_same_seed_case_and_turns_give_the_same_transcript_and_meta(persona, seed):
    first, first_state = play(persona, seed)
    second, second_state = play(persona, seed)
    assert first == second
    assert first_state == second_state
    # The meta is what a stored turn holds: it survives JSON unchanged.
    assert json.loads(json.dumps([meta for _, _, meta in first])) == [meta for _, _, meta in first]


@pytest.mark.parametrize("persona", [RESERVED, TALKATIVE])
def test_round_tripping_the_state_through_json_between_every_step_changes_nothing(persona):
    assert play(persona, 7, round_trip=True) == play(persona, 7)


def test_a_different_seed_gives_a_different_encounter():
    assert play(RESERVED, 1)[0] != play(RESERVED, 2)[0]


def test_the_meta_lists_every_draw_of_the_turn_in_order():
    played = encounter(seed=12)
    seed = played.state.rng_seed
    for text in SCRIPT[:10]:
        meta = played.say(text).meta
        for draw in meta["rng"]:
            # Each logged state is the xorshift32 successor of the one before.
            assert draw["state"] == xorshift32(seed)
            seed = draw["state"]
    assert played.state.rng_seed == seed


# The LLM path


def llm_phrased(text: str) -> phrasing.Phrased:
    return phrasing.Phrased(text, Source.LLM, "scripted-model", json.dumps({"text": text}), None, (), 3)


def test_take_turn_uses_a_checked_llm_phrasing_of_a_factual_answer():
    case = catalog_case()
    state = fresh_state(case)
    seen = []

    def phrase(plan):
        seen.append(plan)
        return llm_phrased("Three weeks back, more or less.")

    taken = phrasing.take_turn(case, state, "When did it start?", phrase)
    assert seen[0].answered == ("onset",)
    assert taken.learner_index == 0
    assert taken.response.meta["turnIndex"] == 1
    assert "three weeks back, more or less." in taken.response.text.casefold()
    assert taken.response.meta["source"] == "llm"
    assert taken.response.meta["factCheck"] == {"violations": [], "used": "llm"}
    assert taken.response.meta["slots"] == {"onset": "three weeks ago"}


def test_take_turn_with_the_offline_phrasing_equals_the_offline_generator():
    case = catalog_case()
    offline_state, llm_path_state = fresh_state(case), fresh_state(case)
    for text in SCRIPT:
        learner = apply_learner_turn(case, offline_state, text)
        expected = generate_patient_response(case, offline_state, learner)
        taken = phrasing.take_turn(
            case,
            llm_path_state,
            text,
            lambda plan: phrasing.Phrased(plan.core, Source.OFFLINE, None, None, None, (), 0),
        )
        assert taken.response == expected
    assert offline_state == llm_path_state


def _replay_turns(case, texts, recorded):
    """Play `texts` through take_turn, phrasing each turn from the recorded reply for it."""
    state = fresh_state(case, 5)
    out = []
    for text in texts:
        raw = recorded.get(text)
        taken = phrasing.take_turn(
            case, state, text, lambda plan, raw=raw: phrasing.replayed(case, plan, raw, None)
        )
        out.append((taken.response.text, taken.response.meta, taken.phrased))
    return out, state


def test_a_recorded_llm_reply_replays_to_the_same_turns():
    case = catalog_case()
    recorded = {
        "When did it start?": json.dumps({"text": "Three weeks back, more or less."}),
        "Where is the pain?": json.dumps({"text": "Right in the middle of my chest."}),
    }
    texts = ["What brings you in today?", "When did it start?", "Where is the pain?", "Anything else?"]
    first, first_state = _replay_turns(case, texts, recorded)
    second, second_state = _replay_turns(case, texts, recorded)
    assert first == second
    assert first_state == second_state
    assert [meta["source"] for _, meta, _ in first] == ["offline", "llm", "llm", "offline"]


def test_a_contradicting_recorded_reply_is_refused_again_on_replay():
    case = catalog_case()
    contradicting = json.dumps({"text": "It started two days ago."})
    replays = []
    for _ in range(2):
        state = fresh_state(case, 5)
        taken = phrasing.take_turn(
            case,
            state,
            "When did it start?",
            lambda plan: phrasing.replayed(case, plan, contradicting, "fact_check"),
        )
        replays.append((taken.response.text, taken.response.meta, state.to_json()))
        assert taken.phrased.source is Source.OFFLINE
        assert taken.phrased.violations[0] == "contradicts:onset"
        assert taken.phrased.raw_reply == contradicting
        assert taken.response.meta["factCheck"] == {
            "violations": list(taken.phrased.violations),
            "used": "offline",
        }
        assert taken.response.meta["fallbackReason"] == "fact_check"
        assert "two days" not in taken.response.text
    assert replays[0] == replays[1]
    # The refused reply falls back to the offline phrasing: the same words as no LLM at all.
    state = fresh_state(case, 5)
    offline = generate_patient_response(case, state, apply_learner_turn(case, state, "When did it start?"))
    assert replays[0][0] == offline.text
    assert replays[0][2] == state.to_json()


def test_replayed_without_a_reply_or_with_a_malformed_one_is_offline():
    case = catalog_case()
    state = fresh_state(case)
    plan = plan_response(case, state, apply_learner_turn(case, state, "When did it start?"))
    none = phrasing.replayed(case, plan, None, "no_llm")
    assert (none.core, none.source, none.fallback_reason) == (plan.core, Source.OFFLINE, "no_llm")
    malformed = phrasing.replayed(case, plan, "not json", None)
    assert (malformed.core, malformed.source, malformed.fallback_reason) == (
        plan.core,
        Source.OFFLINE,
        "malformed",
    )
    assert malformed.raw_reply == "not json"
    extra = phrasing.replayed(case, plan, json.dumps({"text": "Fine.", "mood": "ok"}), None)
    assert extra.source is Source.OFFLINE


def test_a_recorded_reply_is_not_used_for_a_turn_that_states_no_facts():
    case = catalog_case()
    state = fresh_state(case)
    plan = plan_response(case, state, apply_learner_turn(case, state, "Can you do some push-ups for me?"))
    assert not plan.phrasable
    phrased = phrasing.replayed(case, plan, json.dumps({"text": "Sure, here goes."}), None)
    assert phrased.core == plan.core
    assert phrased.source is Source.OFFLINE
