"""The depth governor (spec: Depth Governor), one scenario per binding rule.

Most scenarios are played as conversations through plan_turn/finish_turn with real narrator
texts; `support.Session` also checks the binding rules on every turn it plays.
"""

from __future__ import annotations

import pytest

from interview_turn.artifacts import interview_config
from interview_turn.engine.depth import Budget, Reason, budget_for, govern
from interview_turn.engine.model import (
    DepthChange,
    HardStop,
    Language,
    Persona,
    Rule,
    SafetyAction,
    TopicPlanItem,
    TopicState,
)
from tests.unit.interview_turn.support import (
    DISTRESSED,
    ELABORATED,
    ELABORATED_ZH,
    EMOTIONAL,
    PLAIN,
    PLAIN_ZH,
    PLAN,
    REFUSAL,
    REFUSAL_ZH,
    TOPIC_CHANGE,
    VAGUE,
    make_signals,
    new_session,
)

CONFIG = interview_config()
GOVERNOR = CONFIG.depth
DEFAULTS = GOVERNOR.default_budget
LIGHT_DISCOMFORT_ELABORATED = f"{ELABORATED} It is too painful to think about now."


def depth_telemetry(outcome):
    return outcome.telemetry["depth"]


def test_shipped_budget_is_the_specs_default():
    assert DEFAULTS.max_depth == 2
    assert DEFAULTS.max_sensitive_depth == 3
    assert DEFAULTS.max_escalations_per_topic == 2
    assert GOVERNOR.max_increase_per_turn == 1
    assert [level.level for level in GOVERNOR.levels] == [0, 1, 2, 3]


# Never increase on refusal or discomfort.


@pytest.mark.parametrize(
    ("language", "text"),
    [(Language.EN, REFUSAL), (Language.ZH, REFUSAL_ZH), (Language.EN, LIGHT_DISCOMFORT_ELABORATED)],
)
def test_refusal_or_discomfort_decreases_depth_even_with_consent_and_elaboration(language, text):
    session = new_session(language=language, topics={"life_story": TopicState(depth=2, escalations=1)})
    outcome = session.say(text, go_deeper=True)
    assert outcome.signals["refusal_or_discomfort"] is True
    assert outcome.contract["depth_level_before"] == 2
    assert outcome.contract["depth_level_after"] == 2 - GOVERNOR.refusal_decrease
    assert depth_telemetry(outcome)["decision"] == DepthChange.DECREASE.value
    assert depth_telemetry(outcome)["reason"] == Reason.REFUSAL
    assert outcome.contract["safety_action"] == SafetyAction.DEESCALATE.value
    assert session.state.last_increase is False


def test_refusal_at_depth_zero_stays_at_zero():
    outcome = new_session().say(REFUSAL)
    assert outcome.contract["depth_level_after"] == 0
    assert depth_telemetry(outcome)["decision"] == DepthChange.HOLD.value


# The escalation gate: elaboration or consent, emotion below the hard-stop threshold, budget.


@pytest.mark.parametrize(("language", "text"), [(Language.EN, ELABORATED), (Language.ZH, ELABORATED_ZH)])
def test_user_initiated_elaboration_passes_the_gate_by_one_level(language, text):
    session = new_session(language=language)
    outcome = session.say(text)
    assert outcome.signals["user_initiated_elaboration"] is True
    assert (outcome.contract["depth_level_before"], outcome.contract["depth_level_after"]) == (0, 1)
    assert depth_telemetry(outcome)["decision"] == DepthChange.INCREASE.value
    assert depth_telemetry(outcome)["reason"] == Reason.ESCALATED
    assert depth_telemetry(outcome)["escalations_used"] == 1
    assert session.state.last_increase is True


@pytest.mark.parametrize(("language", "text"), [(Language.EN, PLAIN), (Language.ZH, PLAIN_ZH)])
def test_explicit_consent_passes_the_gate(language, text):
    outcome = new_session(language=language).say(text, go_deeper=True)
    assert outcome.signals["user_initiated_elaboration"] is False
    assert outcome.contract["depth_level_after"] == 1
    assert depth_telemetry(outcome)["reason"] == Reason.ESCALATED


def test_without_elaboration_or_consent_depth_holds():
    outcome = new_session().say(PLAIN)
    assert outcome.contract["depth_level_after"] == 0
    assert depth_telemetry(outcome)["decision"] == DepthChange.HOLD.value
    assert depth_telemetry(outcome)["reason"] == Reason.NOT_REQUESTED


def test_emotion_at_the_distress_threshold_closes_the_gate():
    """An elaborated answer in acute grief does not take the interview deeper: it stabilizes."""
    session = new_session()
    outcome = session.say(f"{ELABORATED} {DISTRESSED}", go_deeper=True)
    assert outcome.signals["user_initiated_elaboration"] is True
    assert outcome.signals["emotion_score"] >= GOVERNOR.distress_hard_stop_threshold
    assert outcome.contract["depth_level_after"] == 0
    assert depth_telemetry(outcome)["reason"] == Reason.DISTRESS
    assert outcome.contract["safety_action"] == SafetyAction.DEESCALATE.value


def test_emotion_below_the_distress_threshold_keeps_the_gate_open():
    outcome = new_session().say(f"{ELABORATED} {EMOTIONAL}")
    assert GOVERNOR.step_sideways_emotion_threshold <= outcome.signals["emotion_score"]
    assert outcome.signals["emotion_score"] < GOVERNOR.distress_hard_stop_threshold
    assert outcome.winning_rule == Rule.HIGH_EMOTION.value
    assert outcome.contract["depth_level_after"] == 1


def test_distress_threshold_is_strict_in_govern():
    """`emotion_score < DISTRESS_HARD_STOP_THRESHOLD`: exactly at it, the gate is closed."""
    budget = Budget(DEFAULTS.max_depth, DEFAULTS.max_escalations_per_topic)
    at = make_signals(user_initiated_elaboration=True, emotion_score=GOVERNOR.distress_hard_stop_threshold)
    below = make_signals(
        user_initiated_elaboration=True, emotion_score=GOVERNOR.distress_hard_stop_threshold - 0.01
    )
    held = govern(
        GOVERNOR, at, Rule.HIGH_EMOTION, TopicState(), budget, last_turn_increased=False, go_deeper=False
    )
    passed = govern(
        GOVERNOR, below, Rule.HIGH_EMOTION, TopicState(), budget, last_turn_increased=False, go_deeper=False
    )
    assert (held.after, held.reason) == (0, Reason.DISTRESS)
    assert (passed.after, passed.reason) == (1, Reason.ESCALATED)


# Never twice in a row without user-initiated elaboration.


def test_consent_alone_right_after_an_increase_holds():
    session = new_session()
    assert session.say(ELABORATED).contract["depth_level_after"] == 1
    held = session.say(PLAIN, go_deeper=True)
    assert held.contract["depth_level_after"] == 1
    assert depth_telemetry(held)["reason"] == Reason.CONSECUTIVE
    assert session.state.last_increase is False
    # The next turn is no longer "in a row": consent is enough again.
    later = session.say(PLAIN, go_deeper=True)
    assert (later.contract["depth_level_before"], later.contract["depth_level_after"]) == (1, 2)


def test_consent_increase_then_consent_again_holds():
    session = new_session()
    assert session.say(PLAIN, go_deeper=True).contract["depth_level_after"] == 1
    held = session.say(PLAIN, go_deeper=True)
    assert held.contract["depth_level_after"] == 1
    assert depth_telemetry(held)["reason"] == Reason.CONSECUTIVE


def test_user_initiated_elaboration_allows_a_second_increase_in_a_row():
    session = new_session()
    first = session.say(PLAIN, go_deeper=True)
    second = session.say(ELABORATED)
    assert [o.contract["depth_level_after"] for o in (first, second)] == [1, 2]
    assert depth_telemetry(second)["reason"] == Reason.ESCALATED


def test_depth_never_rises_by_more_than_one_per_turn():
    session = new_session(consent=True)
    for _ in range(6):
        outcome = session.say(ELABORATED, go_deeper=True)
        assert outcome.contract["depth_level_after"] - outcome.contract["depth_level_before"] <= 1


# Budgets.


def test_max_depth_budget_exhausts_at_two():
    session = new_session()
    session.say(ELABORATED)
    session.say(ELABORATED)
    assert session.depth == DEFAULTS.max_depth
    outcome = session.say(ELABORATED, go_deeper=True)
    assert outcome.contract["depth_level_after"] == DEFAULTS.max_depth
    assert depth_telemetry(outcome)["reason"] == Reason.DEPTH_BUDGET
    assert depth_telemetry(outcome)["max_depth"] == DEFAULTS.max_depth


def test_escalation_budget_exhausts_after_two_escalations():
    """Down by a refusal and up again would be a third escalation on the topic: refused."""
    session = new_session()
    session.say(ELABORATED)
    session.say(ELABORATED)
    assert session.say(REFUSAL).contract["depth_level_after"] == 1
    outcome = session.say(ELABORATED, go_deeper=True)
    assert outcome.contract["depth_level_after"] == 1
    assert depth_telemetry(outcome)["reason"] == Reason.ESCALATION_BUDGET
    assert depth_telemetry(outcome)["escalations_used"] == DEFAULTS.max_escalations_per_topic


def test_depth_three_needs_sensitive_topics_consent():
    topics = {"life_story": TopicState(depth=2, escalations=1)}
    without = new_session(topics=topics).say(ELABORATED)
    assert without.contract["depth_level_after"] == 2
    assert depth_telemetry(without)["reason"] == Reason.DEPTH_BUDGET

    session = new_session(topics=topics, consent=True)
    with_consent = session.say(ELABORATED)
    assert with_consent.contract["depth_level_after"] == DEFAULTS.max_sensitive_depth == 3
    assert depth_telemetry(with_consent)["max_depth"] == 3
    assert with_consent.contract["tactic_used"] == "sensitive_with_consent"
    assert with_consent.contract["conversation_phase"] == "depth"


def test_consent_granted_on_the_turn_opens_depth_three():
    session = new_session(topics={"life_story": TopicState(depth=2, escalations=1)})
    outcome = session.say(ELABORATED, sensitive_consent=True)
    assert outcome.contract["depth_level_after"] == 3
    assert session.state.sensitive_consent is True


def test_depth_three_is_the_ceiling_even_with_consent():
    session = new_session(topics={"life_story": TopicState(depth=3, escalations=0)}, consent=True)
    outcome = session.say(ELABORATED, go_deeper=True)
    assert outcome.contract["depth_level_after"] == 3
    assert depth_telemetry(outcome)["reason"] == Reason.DEPTH_BUDGET


@pytest.mark.parametrize("text", [PLAIN, ELABORATED])
def test_withdrawing_consent_brings_depth_down_to_max_depth(text):
    session = new_session(topics={"life_story": TopicState(depth=3, escalations=2)}, consent=True)
    outcome = session.say(text, sensitive_consent=False)
    assert (outcome.contract["depth_level_before"], outcome.contract["depth_level_after"]) == (3, 2)
    assert depth_telemetry(outcome)["decision"] == DepthChange.DECREASE.value
    assert depth_telemetry(outcome)["reason"] == Reason.CONSENT_WITHDRAWN
    assert session.state.sensitive_consent is False


@pytest.mark.parametrize(
    ("item", "consent", "expected"),
    [
        (None, False, Budget(2, 2)),
        (None, True, Budget(3, 2)),
        (TopicPlanItem("t", "T", max_depth=1), False, Budget(1, 2)),
        (TopicPlanItem("t", "T", max_depth=1), True, Budget(1, 2)),
        (TopicPlanItem("t", "T", max_depth=3), False, Budget(2, 2)),
        (TopicPlanItem("t", "T", max_escalations=1), False, Budget(2, 1)),
        (TopicPlanItem("t", "T", max_escalations=5), True, Budget(3, 2)),
        (TopicPlanItem("t", "T", max_depth=0, max_escalations=0), True, Budget(0, 0)),
    ],
)
def test_a_topic_plan_only_tightens_the_budget(item, consent, expected):
    assert budget_for(GOVERNOR, item, consent) == expected


@pytest.mark.parametrize(
    ("consent", "expected"),
    [(False, Budget(GOVERNOR.sensitive_topic_depth_without_consent, 2)), (True, Budget(3, 2))],
)
def test_a_sensitive_topic_stays_shallow_until_consent(consent, expected):
    item = TopicPlanItem("loss", "losing your mother", sensitive=True)
    assert budget_for(GOVERNOR, item, consent) == expected


def test_a_sensitive_topic_in_conversation_opens_up_with_consent():
    plan = (TopicPlanItem("loss", "losing your mother", sensitive=True),)
    session = new_session(topic_plan=plan)
    assert session.say(ELABORATED).contract["depth_level_after"] == 1
    held = session.say(ELABORATED)
    assert held.contract["depth_level_after"] == GOVERNOR.sensitive_topic_depth_without_consent == 1
    assert depth_telemetry(held)["reason"] == Reason.DEPTH_BUDGET
    opened = session.say(ELABORATED, sensitive_consent=True)
    assert opened.contract["depth_level_after"] == 2
    withdrawn = session.say(PLAIN, sensitive_consent=False)
    assert withdrawn.contract["depth_level_after"] == 1
    assert depth_telemetry(withdrawn)["reason"] == Reason.CONSENT_WITHDRAWN


def test_a_planned_max_depth_caps_the_conversation():
    session = new_session(topic_plan=(TopicPlanItem("childhood", "your childhood", max_depth=1),))
    assert session.say(ELABORATED).contract["depth_level_after"] == 1
    outcome = session.say(ELABORATED)
    assert outcome.contract["depth_level_after"] == 1
    assert depth_telemetry(outcome)["reason"] == Reason.DEPTH_BUDGET


def test_a_planned_max_escalations_caps_the_conversation():
    session = new_session(topic_plan=(TopicPlanItem("childhood", "your childhood", max_escalations=1),))
    assert session.say(ELABORATED).contract["depth_level_after"] == 1
    outcome = session.say(ELABORATED)
    assert outcome.contract["depth_level_after"] == 1
    assert depth_telemetry(outcome)["reason"] == Reason.ESCALATION_BUDGET


def test_a_planned_budget_cannot_loosen_the_default():
    plan = (TopicPlanItem("childhood", "your childhood", max_depth=3, max_escalations=9),)
    session = new_session(topic_plan=plan)
    session.say(ELABORATED)
    session.say(ELABORATED)
    outcome = session.say(ELABORATED)
    assert outcome.contract["depth_level_after"] == 2
    assert depth_telemetry(outcome)["max_depth"] == 2
    assert depth_telemetry(outcome)["max_escalations"] == 2


# Depth is per topic; a redirect never lands deeper than it left.


def test_depth_is_kept_per_topic():
    session = new_session(topic_plan=PLAN)
    assert session.say(ELABORATED).contract["depth_level_after"] == 1
    other = session.say(PLAIN, topic_id="work")
    assert other.contract["topic_id"] == "work"
    assert other.contract["depth_level_before"] == 0
    back = session.say(PLAIN, topic_id="childhood")
    assert back.contract["depth_level_before"] == 1
    assert session.state.topic("childhood").escalations == 1
    assert session.state.topic("work").escalations == 0


def test_escalation_budget_is_per_topic():
    session = new_session(topic_plan=PLAN)
    session.say(ELABORATED)
    session.say(ELABORATED)
    assert session.state.topic("childhood").escalations == 2
    outcome = session.say(ELABORATED, topic_id="work")
    assert (outcome.contract["depth_level_before"], outcome.contract["depth_level_after"]) == (0, 1)


@pytest.mark.parametrize(("landing_depth", "expected"), [(2, 1), (0, 0)])
def test_a_redirect_never_lands_deeper_than_it_left(landing_depth, expected):
    session = new_session(
        topic_plan=PLAN,
        topics={"childhood": TopicState(depth=2, escalations=2), "work": TopicState(depth=landing_depth)},
    )
    outcome = session.say(TOPIC_CHANGE)
    assert outcome.contract["safety_action"] == SafetyAction.REDIRECT.value
    assert outcome.contract["persona_used"] == Persona.SAFETY_FALLBACK.value
    assert outcome.contract["topic_id"] == "work"
    assert outcome.contract["depth_level_before"] == 2
    assert outcome.contract["depth_level_after"] == expected
    assert session.state.topic_id == "work"
    assert session.state.topic("work").depth == expected
    assert session.state.topic("childhood").depth == 2 - GOVERNOR.refusal_decrease
    assert "your working life" in outcome.contract["response_text"]


def test_a_topic_change_without_another_planned_topic_deescalates_in_place():
    outcome = new_session().say(TOPIC_CHANGE)
    assert outcome.contract["safety_action"] == SafetyAction.DEESCALATE.value
    assert outcome.contract["topic_id"] == "life_story"


# Routes that are about getting the facts straight hold depth.


def test_vague_answer_holds_depth_even_with_consent():
    outcome = new_session().say(VAGUE, go_deeper=True)
    assert outcome.winning_rule == Rule.VAGUENESS.value
    assert outcome.contract["depth_level_after"] == 0
    assert depth_telemetry(outcome)["reason"] == Reason.DEPTH_NEUTRAL_ROUTE


def test_clarifying_a_contradiction_holds_depth_even_with_consent():
    session = new_session()
    session.say("We moved to Boston in 1985.")
    outcome = session.say("We moved to Boston in 1987.", go_deeper=True)
    assert outcome.winning_rule == Rule.CONTRADICTION_RESOLUTION.value
    assert outcome.contract["depth_level_after"] == 0


# The governor's order of checks, on signals built directly.


def test_govern_hard_stop_holds_even_when_everything_else_would_increase():
    decision = govern(
        GOVERNOR,
        make_signals(
            hard_stop=HardStop.STOP_REQUEST, refusal_or_discomfort=True, user_initiated_elaboration=True
        ),
        Rule.SAFETY_OVERRIDE,
        TopicState(depth=1),
        Budget(2, 2),
        last_turn_increased=False,
        go_deeper=True,
    )
    assert (decision.after, decision.change, decision.reason) == (1, DepthChange.HOLD, Reason.HARD_STOP)


def test_govern_refusal_beats_elaboration_and_consent():
    decision = govern(
        GOVERNOR,
        make_signals(refusal_or_discomfort=True, user_initiated_elaboration=True),
        Rule.SAFETY_OVERRIDE,
        TopicState(depth=1),
        Budget(2, 2),
        last_turn_increased=False,
        go_deeper=True,
    )
    assert (decision.after, decision.change) == (0, DepthChange.DECREASE)
