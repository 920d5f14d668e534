"""The spec's own test cases (chair-interruption.md, "Test Cases"), ported to the pure engine:
straw-man detection, cooldowns, aggressiveness, quick heuristics, and getUrgencyThreshold."""

from __future__ import annotations

import pytest

from chair_interrupt.engine.evaluate import Outcome, eligible_chairs, llm_decision
from chair_interrupt.engine.model import Reason
from chair_interrupt.engine.policy import SPEC_THRESHOLDS
from chair_interrupt.engine.quick import quick_check
from tests.unit.chair_interrupt.support import SEED, UTIL, VIRTUE, config, context, offline, verdict

STRAW_MAN = "Virtue ethics people just want to feel good about themselves!"
# A remark worth an interrupt only in an aggressive debate: strong agreement, no framework named,
# no exclamation (offline urgency 0.55: above 5's threshold 0.5, far below 1's 0.9).
MILD = "I completely agree that transparency matters for these systems."


@pytest.mark.parametrize("aggressiveness", [1, 2, 3, 4, 5])
def test_detects_straw_manning_worthy_of_interrupt(aggressiveness):
    decision = offline(context(STRAW_MAN, speaker=UTIL, others=(VIRTUE,)), aggressiveness=aggressiveness)

    assert decision.outcome is Outcome.INTERRUPT
    candidate = decision.candidate
    assert candidate is not None
    assert candidate.trigger_reason is Reason.STRAW_MAN_DETECTED
    assert candidate.interrupting_chair == VIRTUE
    assert candidate.interrupted_chair == UTIL
    assert candidate.trigger_content == STRAW_MAN
    # 0.85 for a straw man, + 0.05 for naming the virtue chair's framework, + 0.05 for the "!".
    assert candidate.urgency == pytest.approx(0.95)
    assert candidate.suggested_opener in config().openers.openers[Reason.STRAW_MAN_DETECTED]


def test_straw_man_verdict_from_the_llm_becomes_a_candidate():
    ctx = context(STRAW_MAN)
    decision = llm_decision(config(), ctx, [VIRTUE], verdict(), threshold=config().threshold(3), seed=SEED)

    assert decision.outcome is Outcome.INTERRUPT
    assert decision.candidate is not None
    assert decision.candidate.trigger_reason is Reason.STRAW_MAN_DETECTED
    assert decision.candidate.interrupting_chair == VIRTUE
    assert decision.candidate.interrupted_chair == UTIL
    assert decision.candidate.suggested_opener == "You're misrepresenting my framework"


def test_respects_cooldown_periods():
    ctx = context(STRAW_MAN, others=(VIRTUE,))
    first = offline(ctx)
    assert first.candidate is not None

    # The chair that just interrupted is on cooldown: nobody is left to interrupt.
    cooling = frozenset({first.candidate.interrupting_chair.position})
    assert eligible_chairs(ctx, cooling) == []


def test_cooldowns_are_tracked_per_chair():
    ctx = context(STRAW_MAN, others=(VIRTUE,))
    assert eligible_chairs(ctx, frozenset()) == [VIRTUE]
    assert eligible_chairs(ctx, frozenset({VIRTUE.position})) == []
    # A reset (no chair cooling) makes the chair eligible again.
    assert eligible_chairs(ctx, frozenset()) == [VIRTUE]


def test_mildly_interruptable_context_interrupts_at_5_but_not_at_1():
    ctx = context(MILD)

    aggressive = offline(ctx, aggressiveness=5)
    conservative = offline(ctx, aggressiveness=1)

    assert aggressive.outcome is Outcome.INTERRUPT
    assert aggressive.candidate is not None
    assert aggressive.candidate.trigger_reason is Reason.STRONG_AGREEMENT
    assert conservative.outcome is Outcome.BELOW_THRESHOLD
    assert conservative.candidate is None
    assert conservative.urgency == aggressive.urgency == pytest.approx(0.55)


def test_mild_llm_verdict_interrupts_at_5_but_not_at_1():
    ctx = context(MILD)
    mild = verdict(reason="strong_agreement", urgency=0.6)

    at_5 = llm_decision(config(), ctx, [VIRTUE], mild, threshold=config().threshold(5), seed=SEED)
    at_1 = llm_decision(config(), ctx, [VIRTUE], mild, threshold=config().threshold(1), seed=SEED)

    assert at_5.outcome is Outcome.INTERRUPT
    assert at_1.outcome is Outcome.BELOW_THRESHOLD
    assert at_1.candidate is None


def test_quick_heuristics_detect_straw_man_patterns():
    result = quick_check(config(), "They just want to ignore consequences!")
    assert result.potential_trigger is True
    assert result.likely_reason is Reason.STRAW_MAN_DETECTED


def test_quick_heuristics_detect_pivotal_point_patterns():
    result = quick_check(config(), "The fundamental issue is whether rights are absolute.")
    assert result.potential_trigger is True
    assert result.likely_reason is Reason.PIVOTAL_POINT


@pytest.mark.parametrize(("aggressiveness", "threshold"), [(1, 0.9), (2, 0.8), (3, 0.7), (4, 0.6), (5, 0.5)])
def test_urgency_threshold_per_aggressiveness(aggressiveness, threshold):
    assert config().threshold(aggressiveness) == threshold


def test_spec_thresholds_constant_is_the_spec_table():
    assert SPEC_THRESHOLDS == {"1": 0.9, "2": 0.8, "3": 0.7, "4": 0.6, "5": 0.5}
    assert config().policy.urgency_thresholds == SPEC_THRESHOLDS
