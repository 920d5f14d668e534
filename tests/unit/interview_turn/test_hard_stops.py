"""Hard stops (spec: Failure Handling): a stop request, acute distress or self-harm intent ends
the interview with a safe response; self-harm adds the locale's crisis guidance."""

from __future__ import annotations

import pytest

from interview_turn.artifacts import interview_config
from interview_turn.engine.model import (
    HardStop,
    Language,
    Persona,
    Phase,
    SafetyAction,
    TopicState,
    TurnInput,
)
from interview_turn.engine.turn import plan_turn
from persona_rails.errors import Conflict
from tests.unit.interview_turn.support import ELABORATED, STOP, STOP_ZH, new_session

CONFIG = interview_config()
NC = CONFIG.constraints
GUIDANCE = NC.crisis_guidance

HARD_STOPS = [
    (Language.EN, STOP, HardStop.STOP_REQUEST, "close_gracefully"),
    (Language.ZH, STOP_ZH, HardStop.STOP_REQUEST, "close_gracefully"),
    (Language.EN, "I can't breathe, I'm having a panic attack.", HardStop.ACUTE_DISTRESS, "pause_and_ground"),
    (Language.ZH, "我喘不过气来，快崩溃了。", HardStop.ACUTE_DISTRESS, "pause_and_ground"),
    (Language.EN, "Sometimes I want to end my life.", HardStop.SELF_HARM, "crisis_support"),
    (Language.ZH, "我有时候真的不想活了。", HardStop.SELF_HARM, "crisis_support"),
]


@pytest.mark.parametrize(
    ("language", "text", "stop", "tactic"),
    HARD_STOPS,
    ids=[f"{s.value}-{lang.value}" for lang, _, s, _ in HARD_STOPS],
)
def test_a_hard_stop_closes_the_session_safely(language, text, stop, tactic):
    session = new_session(language=language, topics={"life_story": TopicState(depth=1)})
    outcome = session.say(text, go_deeper=True)
    contract = outcome.contract
    assert outcome.winning_rule == "safety_override"
    assert outcome.signals["hard_stop"] == stop.value
    assert contract["persona_used"] == Persona.SAFETY_FALLBACK.value
    assert contract["safety_action"] == SafetyAction.STOP.value
    assert contract["conversation_phase"] == Phase.CLOSE.value
    assert contract["tactic_used"] == tactic
    assert contract["depth_level_after"] <= contract["depth_level_before"] == 1
    assert outcome.telemetry["safety"]["hard_stop"] == stop.value
    assert outcome.closed_reason == stop.value
    assert session.state.closed is True
    lines = getattr(NC.hard_stops, stop.value).for_language(language.value)
    assert any(contract["response_text"].startswith(line) for line in lines)


@pytest.mark.parametrize(
    ("language", "text", "stop", "tactic"), [case for case in HARD_STOPS if case[2] is not HardStop.SELF_HARM]
)
def test_only_self_harm_carries_crisis_guidance(language, text, stop, tactic):
    outcome = new_session(language=language).say(text)
    assert outcome.telemetry["safety"]["crisis_guidance"] is False
    assert all(guidance not in outcome.contract["response_text"] for guidance in GUIDANCE.values())


def test_a_hard_stop_never_takes_depth_deeper_even_when_elaborated_and_consented():
    session = new_session(consent=True)
    outcome = session.say(f"{ELABORATED} I want to stop the interview now.", go_deeper=True)
    assert outcome.signals["user_initiated_elaboration"] is True
    assert outcome.contract["depth_level_after"] == 0
    assert outcome.telemetry["depth"]["reason"] == "hard_stop"
    assert session.state.last_increase is False


@pytest.mark.parametrize("text", [STOP, "I'm having a panic attack.", "I want to end my life."])
def test_a_closed_session_refuses_another_turn(text):
    session = new_session()
    session.say(text)
    with pytest.raises(Conflict) as refused:
        plan_turn(CONFIG, session.state, TurnInput("Hello again."), 99)
    assert refused.value.code == "session_closed"


def test_hard_stop_turns_never_ask_the_llm_for_their_line():
    """Hard stops speak the configured lines: crisis guidance is never improvised."""
    plan = new_session().plan("I want to end my life.")
    assert plan.uses_llm is False
    assert new_session().plan("We moved in 1985.").uses_llm is True


# Self-harm: crisis guidance per locale, falling back to the language.


@pytest.mark.parametrize(
    ("language", "locale", "text", "expected_key"),
    [
        (Language.EN, None, "I want to end my life.", "en"),
        (Language.EN, "en-US", "I want to end my life.", "en-US"),
        (Language.EN, "en-GB", "I want to end my life.", "en-GB"),
        (Language.EN, "en-AU", "I want to end my life.", "en"),
        (Language.ZH, None, "我不想活了。", "zh"),
        (Language.ZH, "zh-CN", "我不想活了。", "zh-CN"),
        (Language.ZH, "zh-TW", "我不想活了。", "zh-TW"),
        (Language.ZH, "zh-SG", "我不想活了。", "zh"),
    ],
)
def test_self_harm_appends_the_locales_crisis_guidance(language, locale, text, expected_key):
    outcome = new_session(language=language, locale=locale).say(text)
    response = outcome.contract["response_text"]
    assert response.endswith(GUIDANCE[expected_key])
    assert outcome.telemetry["safety"]["crisis_guidance"] is True
    others = [g for key, g in GUIDANCE.items() if key != expected_key and g != GUIDANCE[expected_key]]
    assert all(g not in response for g in others)


@pytest.mark.parametrize(
    "text",
    [
        "I want to stop the interview. Sometimes I think I'd be better off dead.",
        "I'm having a panic attack and I want to end my life.",
        "我想停止访谈，我不想活了。",
    ],
)
def test_self_harm_outranks_the_other_hard_stops_and_keeps_its_guidance(text):
    language = Language.ZH if any("\u4e00" <= ch <= "\u9fff" for ch in text) else Language.EN
    outcome = new_session(language=language).say(text)
    assert outcome.signals["hard_stop"] == HardStop.SELF_HARM.value
    assert outcome.contract["tactic_used"] == "crisis_support"
    assert outcome.contract["response_text"].endswith(GUIDANCE[language.value])
