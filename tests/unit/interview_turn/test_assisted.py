"""The LLM-assisted signal merge: the model may add caution, never remove it, and may raise a
contradiction only by citing a fact the heuristic extractor stored for the topic."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from interview_turn.artifacts import interview_config
from interview_turn.engine.assisted import (
    MAX_LISTED_FACTS,
    AssistedSignals,
    CitedContradiction,
    merge,
    messages,
)
from interview_turn.engine.facts import FactConflict
from interview_turn.engine.model import Fact, FactKind, HardStop, Phase, Rule, TopicState
from interview_turn.engine.signals import extract
from tests.unit.interview_turn.support import PLAIN, make_signals, new_session

CONFIG = interview_config()
T = CONFIG.router.thresholds
FACTS = (
    Fact(FactKind.YEAR, "moved", "1985", 1),
    Fact(FactKind.PLACE, "moved", "boston", 1),
    Fact(FactKind.AGE, "married", "22", 2),
)
TOPIC = TopicState(facts=FACTS)


def model(**overrides) -> AssistedSignals:
    values = {
        "vagueness_score": 0.0,
        "emotion_score": 0.0,
        "contradiction_score": 0.0,
        "contradiction": None,
        "refusal_or_discomfort": False,
        "user_initiated_elaboration": False,
        "hard_stop": "none",
    }
    values.update(overrides)
    return AssistedSignals(**values)


def test_the_model_cannot_lower_emotion_refusal_or_a_hard_stop():
    heuristic = make_signals(
        emotion_score=0.8,
        refusal_or_discomfort=True,
        hard_stop=HardStop.STOP_REQUEST,
        conversation_phase=Phase.CLOSE,
        user_initiated_elaboration=True,
    )
    merged = merge(heuristic, model(), TOPIC)
    assert merged.emotion_score == 0.8
    assert merged.refusal_or_discomfort is True
    assert merged.hard_stop is HardStop.STOP_REQUEST
    assert merged.conversation_phase is Phase.CLOSE
    assert merged.user_initiated_elaboration is True


def test_the_model_can_raise_emotion_and_refusal():
    merged = merge(
        make_signals(emotion_score=0.1), model(emotion_score=0.9, refusal_or_discomfort=True), TOPIC
    )
    assert merged.emotion_score == 0.9
    assert merged.refusal_or_discomfort is True


@pytest.mark.parametrize("stop", list(HardStop))
def test_the_model_can_raise_a_hard_stop_which_closes_and_counts_as_refusal(stop):
    merged = merge(make_signals(), model(hard_stop=stop.value), TOPIC)
    assert merged.hard_stop is stop
    assert merged.refusal_or_discomfort is True
    assert merged.conversation_phase is Phase.CLOSE


@pytest.mark.parametrize("heuristic_stop", [HardStop.STOP_REQUEST, HardStop.ACUTE_DISTRESS])
def test_self_harm_seen_by_the_model_outranks_a_milder_heuristic_hard_stop(heuristic_stop):
    """Self-harm outranks the other hard stops so that the crisis guidance is never lost; a
    model that hears self-harm intent in a stop request adds caution, it must not be dropped."""
    heuristic = make_signals(
        hard_stop=heuristic_stop, refusal_or_discomfort=True, conversation_phase=Phase.CLOSE
    )
    merged = merge(heuristic, model(hard_stop="self_harm"), TOPIC)
    assert merged.hard_stop is HardStop.SELF_HARM


def test_vagueness_is_the_mean_of_both_scores():
    assert merge(make_signals(vagueness_score=0.8), model(vagueness_score=0.2), TOPIC).vagueness_score == 0.5


def test_an_uncited_contradiction_is_ignored():
    merged = merge(make_signals(), model(contradiction_score=0.95), TOPIC)
    assert merged.contradiction_score == 0
    assert merged.contradiction is None


def test_a_cited_contradiction_must_reference_a_listed_fact():
    out_of_range = model(
        contradiction_score=0.95, contradiction=CitedContradiction(fact_index=7, current_value="1987")
    )
    assert merge(make_signals(), out_of_range, TOPIC).contradiction_score == 0
    with pytest.raises(ValidationError):
        CitedContradiction(fact_index=MAX_LISTED_FACTS, current_value="1987")
    with pytest.raises(ValidationError):
        CitedContradiction(fact_index=-1, current_value="1987")


def test_citing_the_value_already_on_record_is_no_contradiction():
    same = model(
        contradiction_score=0.95, contradiction=CitedContradiction(fact_index=1, current_value="Boston")
    )
    assert merge(make_signals(), same, TOPIC).contradiction_score == 0


def test_a_cited_contradiction_is_grounded_in_the_cited_fact():
    cited = model(
        contradiction_score=0.9, contradiction=CitedContradiction(fact_index=0, current_value="1987")
    )
    merged = merge(make_signals(), cited, TOPIC)
    assert merged.contradiction_score == 0.9
    assert merged.contradiction == FactConflict(FactKind.YEAR, "moved", "1985", "1987", 1, 0.9)


def test_the_index_refers_to_the_newest_listed_facts():
    facts = tuple(Fact(FactKind.YEAR, "moved", str(1900 + n), n) for n in range(MAX_LISTED_FACTS + 5))
    cited = model(
        contradiction_score=0.9, contradiction=CitedContradiction(fact_index=0, current_value="2000")
    )
    merged = merge(make_signals(), cited, TopicState(facts=facts))
    assert merged.contradiction is not None
    assert merged.contradiction.earlier == facts[5].value
    prompt = messages("We moved in 2000.", facts, None)[0]["content"]
    assert f"0. year of 'moved': {facts[5].value}" in prompt
    assert facts[4].value not in prompt


def test_the_heuristic_conflict_is_kept_when_it_found_one():
    heuristic_conflict = FactConflict(FactKind.PLACE, "moved", "boston", "chicago", 1, 0.8)
    heuristic = make_signals(contradiction_score=0.4, contradiction=heuristic_conflict)
    cited = model(
        contradiction_score=0.9, contradiction=CitedContradiction(fact_index=0, current_value="1987")
    )
    merged = merge(heuristic, cited, TOPIC)
    assert merged.contradiction_score == 0.9
    assert merged.contradiction is heuristic_conflict


def test_a_lower_model_contradiction_does_not_lower_the_heuristic():
    heuristic_conflict = FactConflict(FactKind.YEAR, "moved", "1985", "1987", 1, 0.9)
    heuristic = make_signals(contradiction_score=0.9, contradiction=heuristic_conflict)
    cited = model(
        contradiction_score=0.2, contradiction=CitedContradiction(fact_index=0, current_value="1987")
    )
    merged = merge(heuristic, cited, TOPIC)
    assert merged.contradiction_score == 0.9
    assert merged.contradiction is heuristic_conflict


def test_merged_signals_drive_the_turn():
    session = new_session()
    session.say("We moved to Boston in 1985.")
    topic = session.state.topic("life_story")
    heuristic = extract(CONFIG, PLAIN, topic_id="life_story", topic=topic, turn_no=2).signals
    cited = model(
        contradiction_score=0.9, contradiction=CitedContradiction(fact_index=0, current_value="1983")
    )
    outcome = session.say(PLAIN, signals=merge(heuristic, cited, topic))
    assert outcome.winning_rule == Rule.CONTRADICTION_RESOLUTION.value
    assert "1983" in outcome.contract["response_text"]


def test_a_conflict_already_clarified_is_not_raised_again_by_the_model():
    """The inconsistency loop never asks about a clarified conflict again, whoever noticed it."""
    session = new_session()
    session.say("We moved to Boston in 1985.")
    assert session.say("We moved to Boston in 1987.").winning_rule == Rule.CONTRADICTION_RESOLUTION.value
    session.say(PLAIN)  # another rule wins: the inconsistency loop starts over
    topic = session.state.topic("life_story")
    assert "year:moved>boston@self" in topic.clarified
    text = "We moved to Boston in 1987, I am sure."
    heuristic = extract(
        CONFIG, text, topic_id="life_story", topic=topic, turn_no=session.state.turn_no + 1
    ).signals
    assert heuristic.contradiction_score == 0
    index = next(
        i
        for i, fact in enumerate(topic.facts)
        if fact.key == "year:moved>boston@self" and fact.value == "1985"
    )
    cited = model(
        contradiction_score=0.9, contradiction=CitedContradiction(fact_index=index, current_value="1987")
    )
    outcome = session.say(text, signals=merge(heuristic, cited, topic))
    assert outcome.winning_rule != Rule.CONTRADICTION_RESOLUTION.value
