"""The safety overlay (spec: Safety Overlay): constraints attached before generation, and the
post-generation check that rejects a candidate reply and falls back to SAFETY_FALLBACK."""

from __future__ import annotations

import pytest

from interview_turn.artifacts import interview_config
from interview_turn.engine.evaluator import measure
from interview_turn.engine.model import Language, Persona, Rule, SafetyAction
from interview_turn.engine.safety import attached_constraints, length_cap, post_check
from persona_rails.llm.tokens import count_tokens
from tests.unit.interview_turn.support import (
    EMOTIONAL,
    EMOTIONAL_ZH,
    PLAIN,
    PLAIN_ZH,
    new_session,
)

CONFIG = interview_config()
NC = CONFIG.constraints
CLEAN = {
    Language.EN: "Thank you for telling me that. What was the house like?",
    Language.ZH: "谢谢您告诉我这些。那座房子是什么样子的？",
}


def fallback_of(rule_id: str) -> str:
    named = {c.id: c.fallback for c in NC.constraints}
    named.update(
        {
            NC.monologue.id: NC.monologue.fallback,
            NC.question_density.id: NC.question_density.fallback,
            NC.therapy_framing.id: NC.therapy_framing.fallback,
        }
    )
    return named[rule_id]


def default_session(language: Language):
    session = new_session(language=language)
    session.say(PLAIN if language is Language.EN else PLAIN_ZH)
    return session


def contradiction_session(language: Language):
    session = new_session(language=language)
    if language is Language.EN:
        session.say("We moved to Boston in 1985.")
        return session, "We moved to Boston in 1987."
    session.say("我们1985年搬到上海。")
    return session, "我们1987年搬到上海。"


# (rule id, language, offending candidate): at least one per pattern family per language.
OFFENDING = [
    ("NC-DIAG-01", Language.EN, "It sounds like you have depression. What happened next?"),
    ("NC-DIAG-01", Language.EN, "Those sound like symptoms of anxiety. When did they start?"),
    ("NC-DIAG-01", Language.EN, "You might be suffering from PTSD. What do you remember?"),
    ("NC-DIAG-01", Language.ZH, "你可能有抑郁症。后来发生了什么？"),
    ("NC-DIAG-01", Language.ZH, "这些都是焦虑症的症状。您还记得什么？"),
    ("NC-DIAG-01", Language.ZH, "您可能有抑郁症。后来发生了什么？"),
    ("NC-COERCE-01", Language.EN, "You need to tell me what happened that night."),
    ("NC-COERCE-01", Language.EN, "Don't hold back. What did he say?"),
    ("NC-COERCE-01", Language.EN, "Be honest with me: what did your father do?"),
    ("NC-COERCE-01", Language.ZH, "你必须告诉我那天发生了什么。"),
    ("NC-COERCE-01", Language.ZH, "不要隐瞒，后来怎么样了？"),
    ("NC-COERCE-01", Language.ZH, "您必须告诉我那天发生了什么。"),
    ("NC-LEAD-01", Language.EN, "That must have been so traumatic for you. What happened next?"),
    ("NC-LEAD-01", Language.EN, "Did he hurt you when you were little?"),
    ("NC-LEAD-01", Language.EN, "Were you abused as a child?"),
    ("NC-LEAD-01", Language.ZH, "这件事一定给你留下了很深的创伤吧？"),
    ("NC-LEAD-01", Language.ZH, "您是不是被虐待过？"),
    ("NC-ACCUSE-01", Language.EN, "You said 1985, but now you say 1987. Which one is it?"),
    ("NC-ACCUSE-01", Language.EN, "That contradicts what you told me before. When did you move?"),
    ("NC-ACCUSE-01", Language.EN, "You're contradicting yourself. Which year was it?"),
    ("NC-ACCUSE-01", Language.ZH, "你刚才说是1985年，但是现在又说1987年。"),
    ("NC-ACCUSE-01", Language.ZH, "您前后矛盾了。到底哪个是对的？"),
    ("NC-ACCUSE-01", Language.ZH, "你记错了吧，到底是哪一年？"),
    ("PG-THERAPY-01", Language.EN, "As your therapist, I want to understand this better. What happened?"),
    ("PG-THERAPY-01", Language.EN, "Let's unpack that together. What did it feel like?"),
    ("PG-THERAPY-01", Language.EN, "This is part of your healing journey. What comes to mind?"),
    ("PG-THERAPY-01", Language.ZH, "作为您的咨询师，我想多了解一些。后来呢？"),
    ("PG-THERAPY-01", Language.ZH, "这是疗愈的一部分。您还记得什么？"),
    (
        "NC-MONO-01",
        Language.EN,
        "Thank you. I see. That is lovely. It was a long time ago. Your father sounds kind. What happened next?",
    ),
    (
        "NC-MONO-01",
        Language.EN,
        " ".join(["That summer by the lake sounds wonderful, full of light and long evenings."] * 10),
    ),
    (
        "NC-MONO-01",
        Language.ZH,
        "谢谢您。我明白了。真好。那是很久以前了。您父亲听起来很和善。后来发生了什么？",
    ),
    ("NC-MONO-01", Language.ZH, "湖边的那个夏天听起来真美好，充满了阳光和漫长的傍晚，" * 8 + "谢谢您。"),
    ("PG-QDENSITY-01", Language.EN, "Thank you. What happened next? Who was there? Where did you go?"),
    (
        "PG-QDENSITY-01",
        Language.EN,
        "Could you tell me about the house you grew up in, the street it stood on, the people who lived "
        "next door, the sounds and smells of the kitchen in the morning and the games you played in the "
        "yard with your brothers and sisters before school?",
    ),
    ("PG-QDENSITY-01", Language.ZH, "谢谢您。后来呢？谁在那里？你们去了哪里？"),
    (
        "PG-QDENSITY-01",
        Language.ZH,
        "您能不能跟我讲讲您小时候住的房子，它在哪条街上，隔壁住着什么人，早上厨房里有什么声音和味道，"
        "上学前您和兄弟姐妹在院子里玩些什么游戏，还有那时候家里每天吃些什么？",
    ),
]


# Phrasings worth naming in a failure report.
NAMED = {
    "You might be suffering from PTSD. What do you remember?": "NC-DIAG-01-en-might-be-suffering-from",
    "您可能有抑郁症。后来发生了什么？": "NC-DIAG-01-zh-polite-you",
    "您必须告诉我那天发生了什么。": "NC-COERCE-01-zh-polite-you",
}


@pytest.mark.parametrize(
    ("rule_id", "language", "candidate"),
    OFFENDING,
    ids=[
        NAMED.get(text, f"{rule_id}-{language.value}-{index}")
        for index, (rule_id, language, text) in enumerate(OFFENDING)
    ],
)
def test_a_candidate_breaking_a_constraint_is_replaced_by_the_safety_fallback(rule_id, language, candidate):
    if rule_id == "NC-ACCUSE-01":
        session, text = contradiction_session(language)
        expected_rule = Rule.CONTRADICTION_RESOLUTION
    else:
        session, text = default_session(language), PLAIN if language is Language.EN else PLAIN_ZH
        expected_rule = Rule.DEFAULT
    outcome = session.say(text, candidate=candidate)
    assert outcome.winning_rule == expected_rule.value
    contract, safety = outcome.contract, outcome.telemetry["safety"]
    assert rule_id in safety["violated_rule_ids"]
    assert contract["persona_used"] == Persona.SAFETY_FALLBACK.value
    assert contract["safety_action"] == SafetyAction.OVERRIDE.value
    assert contract["tactic_used"] == "safe_fallback"
    assert contract["response_text"] != candidate
    first = safety["violated_rule_ids"][0]
    assert contract["response_text"] in NC.fallbacks[fallback_of(first)].for_language(language.value)
    # What goes out passes the check itself.
    assert (
        post_check(
            CONFIG,
            contract["response_text"],
            Persona.SAFETY_FALLBACK,
            measure(contract["response_text"], count_tokens),
        )
        == []
    )


def test_an_accusatory_reply_falls_back_to_the_soft_clarification():
    session, text = contradiction_session(Language.EN)
    outcome = session.say(text, candidate="You said 1985, but now you say 1987. Which one is it?")
    assert outcome.contract["response_text"] in NC.fallbacks["clarify_softly"].en


def test_every_violated_rule_is_logged():
    session = default_session(Language.EN)
    outcome = session.say(
        PLAIN, candidate="As your therapist: it sounds like you have depression. Did he hurt you?"
    )
    assert set(outcome.telemetry["safety"]["violated_rule_ids"]) == {
        "NC-DIAG-01",
        "NC-LEAD-01",
        "PG-THERAPY-01",
    }


@pytest.mark.parametrize(
    ("language", "candidate"),
    [
        (Language.EN, CLEAN[Language.EN]),
        (Language.EN, "Thank you. Would you like to keep going there, or turn to something else?"),
        (Language.EN, "Your trip to the lake sounds lovely. Who went with you?"),
        (Language.ZH, CLEAN[Language.ZH]),
        (Language.ZH, "谢谢您。您想继续聊这里，还是换个话题？"),
    ],
)
def test_a_clean_candidate_passes_untouched(language, candidate):
    session = default_session(language)
    outcome = session.say(PLAIN if language is Language.EN else PLAIN_ZH, candidate=f"  {candidate}\n")
    assert outcome.contract["response_text"] == candidate
    assert outcome.contract["persona_used"] == Persona.EMPATHY_BASE.value
    assert outcome.contract["safety_action"] == SafetyAction.NONE.value
    assert outcome.telemetry["safety"]["violated_rule_ids"] == []


def test_every_offline_line_of_a_conversation_passes_the_check():
    session = new_session()
    for text in (PLAIN, EMOTIONAL, "I guess so.", "We moved to Boston in 1987.", "I'd rather not say."):
        outcome = session.say(text)
        assert outcome.telemetry["safety"]["violated_rule_ids"] == []


# Step sideways whenever emotion is high.


@pytest.mark.parametrize(("language", "text"), [(Language.EN, EMOTIONAL), (Language.ZH, EMOTIONAL_ZH)])
def test_high_emotion_adds_the_step_sideways_line(language, text):
    sideways = NC.step_sideways.for_language(language.value)
    session = new_session(language=language)
    outcome = session.say(text, candidate=CLEAN[language])
    assert outcome.signals["emotion_score"] >= CONFIG.depth.step_sideways_emotion_threshold
    assert outcome.telemetry["safety"]["step_sideways_offered"] is True
    separator = " " if language is Language.EN else ""
    assert any(
        outcome.contract["response_text"] == f"{CLEAN[language]}{separator}{line}" for line in sideways
    )


def test_the_step_sideways_line_is_kept_when_the_candidate_is_replaced():
    outcome = new_session().say(EMOTIONAL, candidate="That must have been so traumatic for you.")
    assert outcome.contract["persona_used"] == Persona.SAFETY_FALLBACK.value
    assert any(outcome.contract["response_text"].endswith(line) for line in NC.step_sideways.en)


def test_no_step_sideways_line_when_emotion_is_low():
    outcome = default_session(Language.EN).say(PLAIN, candidate=CLEAN[Language.EN])
    assert outcome.signals["emotion_score"] < CONFIG.depth.step_sideways_emotion_threshold
    assert outcome.telemetry["safety"]["step_sideways_offered"] is False
    assert outcome.contract["response_text"] == CLEAN[Language.EN]


# Pre-generation: what is attached to the LLM call.


@pytest.mark.parametrize("persona", list(Persona))
def test_every_persona_gets_the_length_density_and_therapy_constraints(persona):
    ids = [c.rule_id for c in attached_constraints(CONFIG, persona)]
    assert {
        "NC-DIAG-01",
        "NC-COERCE-01",
        "NC-LEAD-01",
        "NC-MONO-01",
        "PG-QDENSITY-01",
        "PG-THERAPY-01",
    } <= set(ids)
    limits = next(c.instruction for c in attached_constraints(CONFIG, persona) if c.rule_id == "NC-MONO-01")
    assert f"At most {length_cap(CONFIG, persona)} tokens" in limits


def test_the_accusation_constraint_is_attached_to_the_clarifying_persona():
    assert "NC-ACCUSE-01" in [c.rule_id for c in attached_constraints(CONFIG, Persona.LOGIC_CLARIFY)]
    session, text = contradiction_session(Language.EN)
    outcome = session.say(text)
    assert "NC-ACCUSE-01" in outcome.telemetry["safety"]["constraints_attached"]


def test_the_length_cap_is_the_tighter_of_the_monologue_and_persona_caps():
    for persona in Persona:
        cap = length_cap(CONFIG, persona)
        assert cap == min(
            NC.monologue.max_response_tokens, CONFIG.personas.personas[persona].verbosity.max_response_tokens
        )


def test_the_same_reply_can_be_too_long_for_one_persona_and_fine_for_another():
    short_cap = length_cap(CONFIG, Persona.PRECISION_NARROW)
    long_cap = length_cap(CONFIG, Persona.EMPATHY_EXPAND)
    assert short_cap < long_cap
    text = "Thank you for telling me about it"
    while count_tokens(text) <= short_cap:
        text += " and about the lake"
    text += "."
    assert short_cap < count_tokens(text) <= long_cap
    metrics = measure(text, count_tokens)
    assert [v.rule_id for v in post_check(CONFIG, text, Persona.PRECISION_NARROW, metrics)] == ["NC-MONO-01"]
    assert post_check(CONFIG, text, Persona.EMPATHY_EXPAND, metrics) == []


def test_two_questions_are_allowed_three_are_not():
    two = "Thank you. Was it the summer? Or was it later?"
    three = "Thank you. Was it the summer? Or was it later? Who was there?"
    assert post_check(CONFIG, two, Persona.EMPATHY_BASE, measure(two, count_tokens)) == []
    assert [
        v.rule_id for v in post_check(CONFIG, three, Persona.EMPATHY_BASE, measure(three, count_tokens))
    ] == ["PG-QDENSITY-01"]
