"""The persona router (spec: Routing Policy): the first rule that holds wins, in the spec's order,
with the thresholds of router-policy.json."""

from __future__ import annotations

import pytest

from interview_turn.artifacts import interview_config, load_config
from interview_turn.engine.model import SPEC_PRIORITY, HardStop, Language, Persona, Rule
from interview_turn.engine.policy import Thresholds
from interview_turn.engine.router import route
from tests.unit.interview_turn.support import (
    EMOTIONAL,
    EMOTIONAL_ZH,
    PLAIN,
    PLAIN_ZH,
    REFUSAL,
    REFUSAL_ZH,
    VAGUE,
    VAGUE_ZH,
    copy_config,
    edit_json,
    make_signals,
    new_session,
)

CONFIG = interview_config()
T = CONFIG.router.thresholds
JUST_BELOW = 0.01


def test_the_priority_order_is_the_specs():
    assert CONFIG.router.priority == [
        "safety_override",
        "contradiction_resolution",
        "high_emotion",
        "vagueness",
        "default",
    ]
    assert [rule.value for rule in SPEC_PRIORITY] == CONFIG.router.priority


@pytest.mark.parametrize(
    ("rule", "persona"),
    [
        (Rule.SAFETY_OVERRIDE, Persona.SAFETY_FALLBACK),
        (Rule.CONTRADICTION_RESOLUTION, Persona.LOGIC_CLARIFY),
        (Rule.HIGH_EMOTION, Persona.EMPATHY_EXPAND),
        (Rule.VAGUENESS, Persona.PRECISION_NARROW),
        (Rule.DEFAULT, Persona.EMPATHY_BASE),
    ],
)
def test_each_rule_routes_to_the_specs_persona(rule, persona):
    assert CONFIG.router.routes[rule.value].persona is persona


# One scenario per rule, built from signals directly, at and just below each threshold.


def test_safety_override_on_refusal_or_discomfort():
    assert route(make_signals(refusal_or_discomfort=True), T) is Rule.SAFETY_OVERRIDE


@pytest.mark.parametrize("stop", list(HardStop))
def test_safety_override_on_every_hard_stop(stop):
    assert route(make_signals(hard_stop=stop), T) is Rule.SAFETY_OVERRIDE


def test_contradiction_resolution_from_its_threshold():
    assert route(make_signals(contradiction_score=T.contradiction), T) is Rule.CONTRADICTION_RESOLUTION
    assert route(make_signals(contradiction_score=T.contradiction - JUST_BELOW), T) is Rule.DEFAULT


def test_high_emotion_from_its_threshold():
    assert route(make_signals(emotion_score=T.emotion), T) is Rule.HIGH_EMOTION
    assert route(make_signals(emotion_score=T.emotion - JUST_BELOW), T) is Rule.DEFAULT


def test_vagueness_from_its_threshold():
    assert route(make_signals(vagueness_score=T.vagueness), T) is Rule.VAGUENESS
    assert route(make_signals(vagueness_score=T.vagueness - JUST_BELOW), T) is Rule.DEFAULT


def test_default_when_nothing_reaches_a_threshold():
    signals = make_signals(
        contradiction_score=T.contradiction - JUST_BELOW,
        emotion_score=T.emotion - JUST_BELOW,
        vagueness_score=T.vagueness - JUST_BELOW,
    )
    assert route(signals, T) is Rule.DEFAULT


# Ties: when two (or more) rules hold, the higher one wins.

HIGH = {
    Rule.SAFETY_OVERRIDE: {"refusal_or_discomfort": True},
    Rule.CONTRADICTION_RESOLUTION: {"contradiction_score": 1.0},
    Rule.HIGH_EMOTION: {"emotion_score": 1.0},
    Rule.VAGUENESS: {"vagueness_score": 1.0},
}
PAIRS = [
    (higher, lower)
    for index, higher in enumerate(SPEC_PRIORITY[:-1])
    for lower in SPEC_PRIORITY[index + 1 : -1]
]


@pytest.mark.parametrize(("higher", "lower"), PAIRS, ids=[f"{h.value}>{lo.value}" for h, lo in PAIRS])
def test_the_higher_rule_wins_a_tie(higher, lower):
    signals = make_signals(**HIGH[higher], **HIGH[lower])
    assert route(signals, T) is higher


def test_everything_at_once_is_a_safety_override():
    merged = {key: value for overrides in HIGH.values() for key, value in overrides.items()}
    assert route(make_signals(**merged), T) is Rule.SAFETY_OVERRIDE


def test_the_thresholds_are_the_ones_passed_in():
    signals = make_signals(contradiction_score=0.7, emotion_score=0.7, vagueness_score=0.7)
    assert route(signals, Thresholds(contradiction=0.6, emotion=0.6, vagueness=0.6)) is (
        Rule.CONTRADICTION_RESOLUTION
    )
    assert route(signals, Thresholds(contradiction=0.8, emotion=0.6, vagueness=0.6)) is Rule.HIGH_EMOTION
    assert route(signals, Thresholds(contradiction=0.8, emotion=0.8, vagueness=0.6)) is Rule.VAGUENESS
    assert route(signals, Thresholds(contradiction=0.8, emotion=0.8, vagueness=0.8)) is Rule.DEFAULT


# The same rules driven by real narrator text through plan_turn.


@pytest.mark.parametrize(
    ("language", "text", "rule", "persona"),
    [
        (Language.EN, REFUSAL, Rule.SAFETY_OVERRIDE, Persona.SAFETY_FALLBACK),
        (Language.ZH, REFUSAL_ZH, Rule.SAFETY_OVERRIDE, Persona.SAFETY_FALLBACK),
        (Language.EN, EMOTIONAL, Rule.HIGH_EMOTION, Persona.EMPATHY_EXPAND),
        (Language.ZH, EMOTIONAL_ZH, Rule.HIGH_EMOTION, Persona.EMPATHY_EXPAND),
        (Language.EN, VAGUE, Rule.VAGUENESS, Persona.PRECISION_NARROW),
        (Language.ZH, VAGUE_ZH, Rule.VAGUENESS, Persona.PRECISION_NARROW),
        (Language.EN, PLAIN, Rule.DEFAULT, Persona.EMPATHY_BASE),
        (Language.ZH, PLAIN_ZH, Rule.DEFAULT, Persona.EMPATHY_BASE),
    ],
)
def test_real_text_routes_by_rule(language, text, rule, persona):
    session = new_session(language=language)
    outcome = session.say(text)
    assert outcome.winning_rule == rule.value
    assert outcome.telemetry["routing"]["winning_rule"] == rule.value
    assert outcome.contract["persona_used"] == persona.value


@pytest.mark.parametrize(
    ("language", "first", "second"),
    [
        (Language.EN, "We moved to Boston in 1985.", "We moved to Boston in 1987."),
        (Language.ZH, "我们1985年搬到上海。", "我们1987年搬到上海。"),
    ],
)
def test_real_text_contradiction_routes_to_logic_clarify(language, first, second):
    session = new_session(language=language)
    assert session.say(first).winning_rule == Rule.DEFAULT.value
    outcome = session.say(second)
    assert outcome.winning_rule == Rule.CONTRADICTION_RESOLUTION.value
    assert outcome.contract["persona_used"] == Persona.LOGIC_CLARIFY.value
    assert "1985" in outcome.contract["response_text"]
    assert "1987" in outcome.contract["response_text"]


def test_real_text_refusal_outranks_high_emotion():
    outcome = new_session().say("I cried when she passed away, and I'd rather not talk about it.")
    assert outcome.signals["emotion_score"] >= T.emotion
    assert outcome.winning_rule == Rule.SAFETY_OVERRIDE.value


def test_real_text_contradiction_outranks_high_emotion():
    session = new_session()
    session.say("We moved to Boston in 1985.")
    outcome = session.say("I cried and cried when we moved to Boston in 1987.")
    assert outcome.signals["emotion_score"] >= T.emotion
    assert outcome.signals["contradiction_score"] >= T.contradiction
    assert outcome.winning_rule == Rule.CONTRADICTION_RESOLUTION.value


def test_real_text_high_emotion_outranks_vagueness():
    outcome = new_session().say("I guess I cried when she passed away, sort of.")
    assert outcome.signals["vagueness_score"] >= T.vagueness
    assert outcome.signals["emotion_score"] >= T.emotion
    assert outcome.winning_rule == Rule.HIGH_EMOTION.value


def test_thresholds_are_read_from_router_policy_json(tmp_path):
    """The same vague answer stops routing to precision once the file raises the threshold."""
    directory = copy_config(tmp_path)
    edit_json(directory / "router-policy.json", lambda doc: doc["thresholds"].update(vagueness=0.95))
    raised = load_config(directory)
    assert raised.router.thresholds.vagueness == 0.95
    assert new_session().say(VAGUE).winning_rule == Rule.VAGUENESS.value
    outcome = new_session(config=raised).say(VAGUE)
    assert outcome.signals["vagueness_score"] < 0.95
    assert outcome.winning_rule == Rule.DEFAULT.value
