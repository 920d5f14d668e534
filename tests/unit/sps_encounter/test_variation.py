"""Each variation rule in isolation, seeded: micro-elaboration (§5: the bases by verbosity, open
and narrative questions only, the 40% clamp over 200 turns), rapport progression (§6: two
distinct empathy cues, two dismissals, the cooldown, the 0.9/1.0/1.1 multipliers) and
`choose_fresh`'s window of 3 for clarifications and boundaries. Anti-echo and disfluency:
test_anti_echo_and_disfluency.py."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from sps_encounter.engine.learner import apply_learner_turn
from sps_encounter.engine.rng import UINT32, xorshift32
from sps_encounter.engine.state import QuestionType, Rapport, Verbosity
from sps_encounter.engine.validator import validate_transcript
from sps_encounter.engine.variation import base_probability, choose_fresh, should_elaborate
from tests.unit.sps_encounter.chest_pain_turns import OPEN_FACTS, long_run
from tests.unit.sps_encounter.support import (
    RESERVED,
    TALKATIVE,
    catalog_case,
    encounter,
    fresh_state,
)

BASES = {Verbosity.BRIEF: 0.25, Verbosity.BALANCED: 0.40, Verbosity.TALKATIVE: 0.55}
MULTIPLIERS = {Rapport.GUARDED: 0.9, Rapport.NEUTRAL: 1.0, Rapport.OPEN: 1.1}


# §5 micro-elaboration


@pytest.mark.parametrize("verbosity", list(Verbosity))
@pytest.mark.parametrize("rapport", list(Rapport))
def test_closed_questions_are_never_eligible_and_draw_nothing(verbosity, rapport):
    case = catalog_case()
    state = fresh_state(case, verbosity=verbosity)
    state.rapport = rapport
    before = state.rng_seed
    decision = should_elaborate(case, state, QuestionType.CLOSED)
    assert not decision.eligible
    assert not decision.elaborate
    assert decision.draw is None
    assert state.rng_seed == before
    assert state.draws == []
    assert state.tracking.eligible_turns == 0


def test_base_probabilities_by_verbosity():
    assert {v: base_probability(v) for v in Verbosity} == BASES


@pytest.mark.parametrize("question", [QuestionType.OPEN, QuestionType.NARRATIVE])
@pytest.mark.parametrize("verbosity", list(Verbosity))
@pytest.mark.parametrize("rapport", list(Rapport))
def test_open_and_narrative_questions_draw_once_against_base_times_rapport(question, verbosity, rapport):
    case = catalog_case()
    state = fresh_state(case, verbosity=verbosity)
    state.rapport = rapport
    expected_state = xorshift32(state.rng_seed)
    decision = should_elaborate(case, state, question)
    assert decision.eligible
    assert decision.probability == pytest.approx(BASES[verbosity] * MULTIPLIERS[rapport])
    assert state.rng_seed == expected_state
    assert decision.draw == expected_state / UINT32
    assert decision.wanted == (decision.draw < BASES[verbosity] * MULTIPLIERS[rapport])
    assert [draw["purpose"] for draw in state.draws] == ["elaboration"]
    assert state.tracking.eligible_turns == 1


def _seed_whose_first_draw_is_in(low: float, high: float) -> int:
    return next(seed for seed in range(1, 1_000_000) if low <= xorshift32(seed) / UINT32 < high)


@pytest.mark.parametrize(
    ("verbosity", "lower", "higher", "low", "high"),
    [
        # A draw in [0.225, 0.25): elaborates at neutral (0.25) but not when guarded (0.225).
        (Verbosity.BRIEF, Rapport.GUARDED, Rapport.NEUTRAL, 0.225, 0.25),
        # A draw in [0.55, 0.605): elaborates when open (0.605) but not at neutral (0.55).
        (Verbosity.TALKATIVE, Rapport.NEUTRAL, Rapport.OPEN, 0.55, 0.605),
        # A draw in [0.40, 0.44): a balanced persona elaborates only when open.
        (Verbosity.BALANCED, Rapport.NEUTRAL, Rapport.OPEN, 0.40, 0.44),
    ],
)
def test_the_rapport_multiplier_moves_the_threshold_the_draw_is_compared_with(
    verbosity, lower, higher, low, high
):
    case = catalog_case()
    seed = _seed_whose_first_draw_is_in(low, high)
    decisions = {}
    for rapport in (lower, higher):
        state = fresh_state(case, seed, verbosity)
        state.rapport = rapport
        decisions[rapport] = should_elaborate(case, state, QuestionType.OPEN)
    assert decisions[lower].draw == decisions[higher].draw
    assert not decisions[lower].wanted
    assert decisions[higher].wanted


@pytest.mark.parametrize("verbosity", list(Verbosity))
def test_the_wanted_rate_over_many_draws_is_the_base(verbosity):
    case = catalog_case()
    state = fresh_state(case, verbosity=verbosity)
    state.rapport = Rapport.NEUTRAL
    draws = 20_000
    wanted = sum(should_elaborate(case, state, QuestionType.OPEN).wanted for _ in range(draws))
    assert wanted / draws == pytest.approx(BASES[verbosity], abs=0.015)


def test_the_clamp_keeps_elaboration_at_or_below_40_percent_over_200_turns():
    # Talkative at open rapport wants to elaborate 60.5% of the time; the clamp holds it at 40%.
    played = encounter(catalog_case(persona=TALKATIVE), seed=99)
    played.state.rapport = Rapport.OPEN
    eligible = elaborated = wanted = throttled = 0
    for turn in range(200):
        meta = played.say(OPEN_FACTS[turn % len(OPEN_FACTS)]).meta
        assert meta["eligible"], meta["kind"]
        assert meta["rapport"] == "open"
        eligible += 1
        elaborated += meta["elaborated"]
        wanted += meta["elaboration"]["wanted"]
        if meta["elaboration"]["throttled"]:
            throttled += 1
            assert meta["elaboration"]["wanted"]
            assert not meta["elaborated"]
            assert not any(layer["rule"] == "elaboration" for layer in meta["layers"])
        assert elaborated / eligible <= 0.40, f"over the clamp after {eligible} eligible turns"
    assert played.state.tracking.eligible_turns == 200
    assert played.state.tracking.elaborated_turns == elaborated
    assert wanted / 200 > 0.5, "the persona wants more than the clamp allows"
    assert throttled > 0
    assert elaborated / eligible >= 0.35, "the clamp throttles down to 40%, not far below"
    result = validate_transcript(played.transcript, played.case)
    assert result["summaryMetrics"]["elaborationRate"] == round(elaborated / eligible, 4)
    assert "ELABORATION_RATE_HIGH" not in {issue["code"] for issue in result["warnings"]}


def test_a_pool_smaller_than_its_window_never_says_the_same_phrase_twice_in_a_row():
    # Declines (3 phrases) share a window of 3 with other short replies: once all three are in
    # it, the choice still avoids the one said last.
    case = catalog_case()
    state = fresh_state(case)
    pool = ["I'd rather not say.", "Let's leave that.", "That's private."]
    window: list[str] = []
    chosen = [choose_fresh(state, "decl", pool, window, "privacy_decline") for _ in range(500)]
    assert all(a != b for a, b in itertools.pairwise(chosen))
    assert set(chosen) == set(pool)


@pytest.mark.parametrize("persona", [RESERVED, TALKATIVE])
def test_in_an_encounter_only_open_and_narrative_questions_draw_for_elaboration(persona):
    played = long_run(persona, seed=6, turns=200)
    kinds = Counter()
    for response in played.responses:
        asked = response.meta["questionType"]
        kinds[asked] += 1
        drew = [draw for draw in response.meta["rng"] if draw["purpose"] == "elaboration"]
        assert response.meta["eligible"] == (asked in ("open", "narrative"))
        assert len(drew) == (1 if response.meta["eligible"] else 0)
        if not response.meta["eligible"]:
            assert not response.meta["elaborated"]
    assert kinds["closed"] > 0
    assert kinds["open"] > 0
    assert kinds["narrative"] > 0
    assert played.state.tracking.eligible_turns == kinds["open"] + kinds["narrative"]


def test_an_elaboration_is_stored_text_of_the_answered_slot_or_a_quirk():
    case = catalog_case(persona=TALKATIVE)
    played = encounter(case, seed=3)
    played.state.rapport = Rapport.OPEN
    allowed = {e.text for slot in case.scenario.subjective_catalog for e in slot.elaborations}
    allowed |= {quirk.text for quirk in case.persona.quirks}
    seen = 0
    for turn in range(60):
        response = played.say(OPEN_FACTS[turn % len(OPEN_FACTS)])
        if response.meta["elaborated"]:
            seen += 1
            assert any(text in response.text for text in allowed)
    assert seen > 0


def test_emotional_elaborations_wait_for_rapport():
    # The concerns slot's elaboration and the talkative persona's "scared" quirk are emotional:
    # the guarded allowance of emotional adjectives is 0.
    case = catalog_case(persona=TALKATIVE)
    emotional = [e.text for e in case.slot("concerns").elaborations if e.emotional]
    emotional += [quirk.text for quirk in case.persona.quirks if quirk.emotional]
    for seed in range(1, 40):
        played = encounter(case, seed)
        for _ in range(10):
            response = played.say("What are you worried about?")
            assert played.state.rapport is Rapport.GUARDED
            assert not any(text in response.text for text in emotional)


# §6 rapport progression


def learner_turns(case, state, texts):
    return [apply_learner_turn(case, state, text) for text in texts]


def test_two_distinct_empathy_cues_upgrade_rapport():
    case = catalog_case()
    state = fresh_state(case)
    first, second = learner_turns(case, state, ["That sounds really hard.", "I can understand that."])
    assert first.empathy_cues == ("sounds",)
    assert first.rapport_shift is None
    assert second.empathy_cues == ("understand",)
    assert second.rapport_shift == "up"
    assert state.rapport is Rapport.NEUTRAL
    assert state.tracking.empathy_cues == []


def test_the_same_empathy_cue_twice_does_not_count_as_two():
    case = catalog_case()
    state = fresh_state(case)
    turns = learner_turns(
        case, state, ["That sounds really hard.", "That must be frightening.", "It sounds so painful."]
    )
    assert all(turn.empathy_cues == ("sounds",) for turn in turns)
    assert all(turn.rapport_shift is None for turn in turns)
    assert state.rapport is Rapport.GUARDED
    assert state.tracking.empathy_cues == ["sounds"]


def test_two_distinct_cues_in_one_turn_upgrade():
    case = catalog_case()
    state = fresh_state(case)
    (turn,) = learner_turns(case, state, ["I'm so sorry to hear that, it sounds like you're worried."])
    assert set(turn.empathy_cues) == {"sorry", "reflection"}
    assert turn.rapport_shift == "up"
    assert state.rapport is Rapport.NEUTRAL


def test_two_dismissive_interruptions_degrade_rapport():
    case = catalog_case()
    state = fresh_state(case)
    state.rapport = Rapport.OPEN
    first, second = learner_turns(case, state, ["Just answer yes or no.", "Get to the point."])
    assert first.dismissive
    assert second.dismissive
    assert first.rapport_shift is None
    assert second.rapport_shift == "down"
    assert state.rapport is Rapport.NEUTRAL
    assert state.tracking.dismissals == 0


def test_rapport_stays_within_guarded_and_open():
    case = catalog_case()
    state = fresh_state(case)
    turns = learner_turns(case, state, ["Just answer yes or no.", "Get to the point."])
    assert turns[-1].rapport_shift is None
    assert state.rapport is Rapport.GUARDED
    state = fresh_state(case)
    state.rapport = Rapport.OPEN
    turns = learner_turns(case, state, ["That sounds hard.", "I understand."])
    assert turns[-1].rapport_shift is None
    assert state.rapport is Rapport.OPEN


def test_two_turns_of_cooldown_between_shifts():
    case = catalog_case()
    state = fresh_state(case)
    turns = learner_turns(
        case,
        state,
        [
            "That sounds really hard.",
            "I can understand that.",  # upgrade to neutral
            "I'm sorry to hear that.",  # cooldown 1
            "That must be difficult.",  # cooldown 2: two distinct cues are due, but no shift
            "When did it start?",  # the cooldown is over: the cues gathered during it count
        ],
    )
    assert [turn.rapport_shift for turn in turns] == [None, "up", None, None, "up"]
    assert state.rapport is Rapport.OPEN


def test_a_dismissal_during_cooldown_counts_once_it_is_over():
    case = catalog_case()
    state = fresh_state(case)
    turns = learner_turns(
        case,
        state,
        [
            "That sounds really hard.",
            "I can understand that.",  # up
            "Just answer yes or no.",
            "Hurry up.",  # two dismissals, still in cooldown
            "Where is the pain?",  # degrade now
        ],
    )
    assert [turn.rapport_shift for turn in turns] == [None, "up", None, None, "down"]
    assert state.rapport is Rapport.GUARDED


def test_degrade_wins_when_an_upgrade_and_a_degrade_are_both_due():
    case = catalog_case()
    state = fresh_state(case)
    state.rapport = Rapport.NEUTRAL
    turns = learner_turns(
        case,
        state,
        ["That sounds hard. Just answer yes or no.", "I understand. Get to the point."],
    )
    assert turns[-1].empathy_cues == ("understand",)
    assert turns[-1].dismissive
    assert turns[-1].rapport_shift == "down"
    assert state.rapport is Rapport.GUARDED


def test_a_rapport_shift_changes_the_next_elaboration_probability():
    played = encounter(catalog_case(), seed=11)
    before = played.say("What does the pain feel like?").meta
    played.say("That sounds really hard.")
    played.say("I can understand that.")
    assert played.responses[-1].meta["rapportShift"] == "up"
    after = played.say("What does the pain feel like?").meta
    assert before["elaboration"]["probability"] == pytest.approx(0.25 * 0.9)
    assert after["rapport"] == "neutral"
    assert after["elaboration"]["probability"] == pytest.approx(0.25 * 1.0)


# Rotating choices: clarifications and boundaries


def test_choose_fresh_never_repeats_within_the_window_of_three():
    case = catalog_case()
    state = fresh_state(case)
    pool = case.persona.pools.clarifications
    window: list[str] = []
    chosen = []
    for _ in range(2_000):
        phrase = choose_fresh(state, "clar", pool, window, "clarification")
        assert phrase not in chosen[-3:]
        chosen.append(phrase)
        assert window == chosen[-3:]
    assert set(chosen) == set(pool)


@pytest.mark.parametrize("persona", [RESERVED, TALKATIVE])
def test_clarifications_and_boundaries_rotate_over_a_long_encounter(persona):
    played = encounter(catalog_case(persona=persona), seed=5)
    clarifications, boundaries = [], []
    prompts = ["Anything else?", "Can you do some push-ups for me?", "Go on?", "Run on the spot for me."]
    for turn in range(120):
        meta = played.say(prompts[turn % len(prompts)]).meta
        if meta["clarification"]:
            assert meta["clarification"] not in clarifications[-3:]
            clarifications.append(meta["clarification"])
        if meta["refusal"]:
            assert meta["refusal"] not in boundaries[-3:]
            boundaries.append(meta["refusal"])
    assert len(clarifications) == 60
    assert len(boundaries) == 60
    assert played.state.last_clarifications == clarifications[-3:]
    assert played.state.last_boundaries == boundaries[-3:]
    codes = {
        issue["code"]
        for bucket in ("errors", "warnings")
        for issue in validate_transcript(played.transcript, played.case)[bucket]
    }
    assert not codes & {"CLARIFICATION_REPEATED", "REFUSAL_REPEATED"}
