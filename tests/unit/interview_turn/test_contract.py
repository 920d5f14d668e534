"""The turn output contract (spec: Turn Output Contract) and the evaluator's metrics."""

from __future__ import annotations

import copy

import pytest

from interview_turn.artifacts import interview_config
from interview_turn.engine.evaluator import measure
from interview_turn.engine.model import Language, Persona, Phase, SafetyAction
from interview_turn.engine.turn import finish_turn, plan_opening
from interview_turn.schemas import TurnContract
from persona_rails.llm.tokens import count_tokens
from tests.unit.interview_turn.support import (
    EMOTIONAL,
    PLAIN,
    PLAN,
    REFUSAL,
    TURN_CONTRACT_SCHEMA,
    VAGUE,
    assert_valid_contract,
    new_session,
    schema_errors,
)

CONFIG = interview_config()
SPEC_FIELDS = {
    "persona_used",
    "topic_id",
    "conversation_phase",
    "depth_level_before",
    "depth_level_after",
    "tactic_used",
    "loop_state",
    "safety_action",
    "metrics",
    "response_text",
}


def a_contract():
    return new_session().say(PLAIN).contract


def test_the_contract_has_exactly_the_specs_fields():
    contract = a_contract()
    assert set(contract) == SPEC_FIELDS
    assert set(contract["metrics"]) == {"response_tokens", "question_count", "question_tokens_mean"}
    assert set(TURN_CONTRACT_SCHEMA["required"]) == SPEC_FIELDS


@pytest.mark.parametrize(
    "breakage",
    [
        lambda c: c.pop("loop_state"),
        lambda c: c.update(extra="field"),
        lambda c: c.update(persona_used="THERAPIST"),
        lambda c: c.update(conversation_phase="therapy"),
        lambda c: c.update(safety_action="ignore"),
        lambda c: c.update(depth_level_after=4),
        lambda c: c.update(depth_level_before=-1),
        lambda c: c["metrics"].update(question_count="one"),
        lambda c: c["metrics"].pop("response_tokens"),
    ],
)
def test_the_contract_schema_rejects_a_broken_contract(breakage):
    """The helper every test uses can fail: the schema catches what the spec rules out."""
    contract = copy.deepcopy(a_contract())
    breakage(contract)
    assert schema_errors(TURN_CONTRACT_SCHEMA, contract) != []


def test_the_metrics_check_catches_a_wrong_count():
    contract = copy.deepcopy(a_contract())
    contract["metrics"]["question_count"] += 1
    with pytest.raises(AssertionError):
        assert_valid_contract(contract)


def test_every_rule_produces_a_valid_contract_that_the_api_model_accepts():
    session = new_session(topic_plan=PLAN)
    session.say("We moved to Boston in 1985.")
    for text in (
        PLAIN,
        VAGUE,
        EMOTIONAL,
        "We moved to Boston in 1987.",
        REFUSAL,
        "I want to stop the interview.",
    ):
        outcome = session.say(text)
        TurnContract(**outcome.contract)
    assert {o.winning_rule for o in session.outcomes} == {
        "default",
        "vagueness",
        "high_emotion",
        "contradiction_resolution",
        "safety_override",
    }


@pytest.mark.parametrize("language", list(Language))
def test_the_opening_turn_contract(language):
    session = new_session(language=language, topic_plan=PLAN)
    plan = plan_opening(CONFIG, session.state, 0)
    outcome = finish_turn(CONFIG, plan, plan.offline_line(), count_tokens)
    contract = outcome.contract
    assert_valid_contract(contract)
    assert contract["persona_used"] == Persona.EMPATHY_BASE.value
    assert contract["tactic_used"] == "warm_open"
    assert contract["conversation_phase"] == Phase.WARMUP.value
    assert contract["safety_action"] == SafetyAction.NONE.value
    assert (contract["depth_level_before"], contract["depth_level_after"]) == (0, 0)
    assert contract["topic_id"] == "childhood"
    assert session.state.narrator_name in contract["response_text"]
    assert PLAN[0].title in contract["response_text"]
    assert outcome.signals is None
    assert outcome.winning_rule == "opening"


# The evaluator.


@pytest.mark.parametrize(
    ("text", "questions", "sentences", "question_text"),
    [
        ("Thank you. What happened next?", 1, 2, ["What happened next?"]),
        ("谢谢您。后来发生了什么？", 1, 2, ["后来发生了什么？"]),
        ("Thank you for telling me that.", 0, 1, []),
        ("Was it summer? Or was it later?", 2, 2, ["Was it summer?", "Or was it later?"]),
        ("我明白了。是夏天吗？还是更晚一些？", 2, 3, ["是夏天吗？", "还是更晚一些？"]),
    ],
)
def test_measure_counts_question_sentences_and_their_tokens(text, questions, sentences, question_text):
    metrics = measure(text, count_tokens)
    assert metrics.response_tokens == count_tokens(text)
    assert metrics.question_count == questions
    assert metrics.sentence_count == sentences
    expected_mean = sum(count_tokens(q) for q in question_text) / len(question_text) if question_text else 0.0
    assert metrics.question_tokens_mean == pytest.approx(expected_mean, abs=0.05)


def test_verbosity_telemetry_reports_density_and_target_ratio():
    outcome = new_session().say(PLAIN, candidate="Thank you. Was it summer? Or was it later?")
    verbosity = outcome.telemetry["verbosity"]
    assert verbosity["question_count"] == 2
    assert verbosity["sentence_count"] == 3
    assert verbosity["question_density"] == round(2 / 3, 2)
    target = CONFIG.personas.personas[Persona.EMPATHY_BASE].verbosity.target_response_tokens
    assert verbosity["target_ratio"] == round(outcome.contract["metrics"]["response_tokens"] / target, 2)


def test_telemetry_carries_the_specs_minimum():
    """Routing decision and winning rule, signal scores, depth decision and reason, safety
    overrides and violated rule ids, verbosity metrics, loop steps executed."""
    outcome = new_session().say(VAGUE)
    telemetry = outcome.telemetry
    assert telemetry["routing"]["winning_rule"] == "vagueness"
    assert telemetry["routing"]["planned_persona"] == Persona.PRECISION_NARROW.value
    assert {"decision", "reason", "before", "after"} <= set(telemetry["depth"])
    assert {"action", "violated_rule_ids", "hard_stop"} <= set(telemetry["safety"])
    assert telemetry["loop"] == {
        "state": "precision_narrowing:anchor_time",
        "steps_executed": 1,
        "capped": False,
    }
    assert {"vagueness_score", "emotion_score", "contradiction_score", "refusal_or_discomfort"} <= set(
        outcome.signals
    )
