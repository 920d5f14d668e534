"""The spec's filters before any evaluation (disabled, chair interruptions off, chairs on cooldown,
no eligible chair), a defended framework whose chair is cooling, and the LLM gate."""

from __future__ import annotations

import pytest

from chair_interrupt.artifacts import chair_model
from chair_interrupt.engine.evaluate import (
    Outcome,
    asks_llm,
    eligible_chairs,
    gate,
    llm_decision,
    offline_decision,
)
from chair_interrupt.engine.model import Interruptions, QuickCheck, Reason
from chair_interrupt.engine.quick import quick_check
from tests.unit.chair_interrupt.support import (
    CARE,
    DEON,
    SEED,
    UTIL,
    VIRTUE,
    config,
    context,
    offline,
    verdict,
)

STRAW_MAN = "Virtue ethics people just want to feel good about themselves!"


def _interruptions(*, enabled: bool = True, chairs: bool = True, aggressiveness: int = 3) -> Interruptions:
    return Interruptions(
        enabled=enabled,
        allow_chair_interruptions=chairs,
        aggressiveness=aggressiveness,
        cooldown_seconds=60,
    )


def test_disabled_interruptions_close_the_gate():
    assert gate(_interruptions(enabled=False)) is Outcome.DISABLED


def test_disabled_wins_over_chair_interruptions_off():
    assert gate(_interruptions(enabled=False, chairs=False)) is Outcome.DISABLED


def test_chair_interruptions_off_close_the_gate():
    assert gate(_interruptions(chairs=False)) is Outcome.CHAIR_INTERRUPTIONS_OFF


@pytest.mark.parametrize("aggressiveness", [1, 3, 5])
def test_enabled_chair_interruptions_pass_the_gate(aggressiveness):
    assert gate(_interruptions(aggressiveness=aggressiveness)) is None


def test_chairs_on_cooldown_are_filtered_out_in_order():
    ctx = context(STRAW_MAN, others=(VIRTUE, DEON, CARE))

    assert eligible_chairs(ctx, frozenset()) == [VIRTUE, DEON, CARE]
    assert eligible_chairs(ctx, frozenset({DEON.position})) == [VIRTUE, CARE]
    assert eligible_chairs(ctx, frozenset({VIRTUE.position, CARE.position})) == [DEON]


def test_a_cooldown_on_an_unknown_position_filters_nothing():
    ctx = context(STRAW_MAN, others=(VIRTUE, DEON))
    assert eligible_chairs(ctx, frozenset({"chair_9", UTIL.position})) == [VIRTUE, DEON]


def test_every_chair_on_cooldown_leaves_no_eligible_chair():
    ctx = context(STRAW_MAN, others=(VIRTUE, DEON))
    assert eligible_chairs(ctx, frozenset({VIRTUE.position, DEON.position})) == []


def test_offline_evaluator_with_no_eligible_chair_interrupts_nobody():
    # A trigger that names no framework: nobody is left to interrupt (spec: no eligible chair → null).
    ctx = context("They just want to win the argument!", others=(VIRTUE,))
    cfg = config()

    decision = offline_decision(
        cfg, ctx, [], quick_check(cfg, ctx.recent_content), aggressiveness=3, seed=SEED, model=chair_model()
    )

    assert decision.candidate is None
    assert decision.outcome is Outcome.NO_ELIGIBLE_CHAIR


def test_llm_verdict_with_no_eligible_chair_interrupts_nobody():
    decision = llm_decision(
        config(), context(STRAW_MAN), [], verdict(), threshold=config().threshold(3), seed=SEED
    )
    assert decision.candidate is None
    assert decision.outcome is Outcome.UNKNOWN_CHAIR


def test_straw_man_of_a_cooling_chair_is_not_defended_by_another_chair():
    ctx = context(STRAW_MAN, others=(VIRTUE, DEON))

    decision = offline(ctx, aggressiveness=5, on_cooldown=frozenset({VIRTUE.position}))

    assert decision.outcome is Outcome.ON_COOLDOWN
    assert decision.candidate is None


def test_factual_error_about_a_cooling_chair_is_not_corrected_by_another_chair():
    ctx = context("Virtue ethics ignores consequences entirely.", others=(DEON, VIRTUE))

    decision = offline(ctx, aggressiveness=5, on_cooldown=frozenset({VIRTUE.position}))

    assert decision.outcome is Outcome.ON_COOLDOWN
    assert decision.candidate is None


def test_straw_man_of_an_eligible_chair_is_defended_by_that_chair_not_the_first():
    ctx = context(STRAW_MAN, others=(DEON, CARE, VIRTUE))

    decision = offline(ctx)

    assert decision.candidate is not None
    assert decision.candidate.interrupting_chair == VIRTUE


def test_a_non_defending_reason_naming_a_cooling_chair_goes_to_the_first_eligible_chair():
    # A pivotal point that names virtue ethics is anyone's to take up.
    ctx = context(
        "The real issue is whether virtue ethics can guide policy at all.", others=(VIRTUE, DEON, CARE)
    )

    decision = offline(ctx, aggressiveness=3, on_cooldown=frozenset({VIRTUE.position}))

    assert decision.outcome is Outcome.INTERRUPT
    assert decision.candidate is not None
    assert decision.candidate.trigger_reason is Reason.PIVOTAL_POINT
    assert decision.candidate.interrupting_chair == DEON
    # No bonus for naming a chair that cannot interrupt: the pivotal point's base 0.7 alone.
    assert decision.candidate.urgency == pytest.approx(0.7)


def test_the_speakers_own_framework_named_is_defended_by_nobody():
    # The utilitarian speaker names utilitarianism: the deontologist cannot say "you misrepresent
    # my framework" about a view it does not hold.
    ctx = context("Utilitarians don't care about individuals.", speaker=UTIL, others=(DEON,))

    decision = offline(ctx)

    assert decision.outcome is Outcome.NO_DEFENDER
    assert decision.candidate is None


# --- The LLM gate ---------------------------------------------------------------------------------

TRIGGERED = QuickCheck(True, Reason.PIVOTAL_POINT, (0, 5))
QUIET = QuickCheck(False)


def test_shipped_gate_asks_the_llm_always_from_aggressiveness_2():
    # Issue 22: at 3, gating on the quick check left recall at 0.17 even with a model configured.
    assert config().policy.llm_gate.always_from_aggressiveness == 2


@pytest.mark.parametrize("aggressiveness", [1, 2, 3, 4, 5])
def test_a_quick_trigger_always_asks_the_llm(aggressiveness):
    assert asks_llm(config(), TRIGGERED, aggressiveness) is True


@pytest.mark.parametrize("aggressiveness", [1, 2, 3, 4, 5])
def test_without_a_trigger_the_llm_is_asked_only_from_the_policys_aggressiveness(aggressiveness):
    always_from = config().policy.llm_gate.always_from_aggressiveness
    assert asks_llm(config(), QUIET, aggressiveness) is (aggressiveness >= always_from)


def test_a_neutral_chunk_in_a_conservative_debate_asks_no_llm():
    quick = quick_check(config(), "Let us weigh the evidence carefully before deciding.")
    assert asks_llm(config(), quick, 1) is False
    assert asks_llm(config(), quick, 2) is True
