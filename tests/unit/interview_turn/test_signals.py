"""The deterministic signal extractor, in English, Chinese and a mix of both (spec: Inputs,
runtime signals)."""

from __future__ import annotations

import pytest

from interview_turn.artifacts import interview_config
from interview_turn.engine.facts import chinese_number, conflicts, extract_facts
from interview_turn.engine.model import Fact, FactKind, HardStop, Language, Phase, Rule, TopicState
from interview_turn.engine.signals import extract
from tests.unit.interview_turn.support import (
    ELABORATED,
    ELABORATED_ZH,
    EMOTIONAL,
    EMOTIONAL_ZH,
    PLAIN,
    PLAIN_ZH,
    PLAN,
    REFUSAL,
    REFUSAL_ZH,
    STOP,
    STOP_ZH,
    TOPIC_CHANGE,
    TOPIC_CHANGE_ZH,
    VAGUE,
    VAGUE_ZH,
    new_session,
)

CONFIG = interview_config()
T = CONFIG.router.thresholds
LEXICON = CONFIG.compiled_lexicon


def signals_of(text: str, topic: TopicState | None = None):
    return extract(CONFIG, text, topic_id="life_story", topic=topic or TopicState(), turn_no=1).signals


def after(*earlier: str, text: str):
    """Signals of `text` on a topic that already heard `earlier`, in order."""
    facts: tuple[Fact, ...] = ()
    for turn_no, sentence in enumerate(earlier, start=1):
        facts += tuple(extract_facts(sentence, LEXICON, turn_no))
    return extract(
        CONFIG, text, topic_id="life_story", topic=TopicState(facts=facts), turn_no=len(earlier) + 1
    ).signals


# Vagueness: hedges and missing specifics.


@pytest.mark.parametrize("text", [VAGUE, VAGUE_ZH, "Maybe, something like that.", "好像是吧，差不多。"])
def test_hedged_answers_are_vague(text):
    assert signals_of(text).vagueness_score >= T.vagueness


@pytest.mark.parametrize("text", [PLAIN, PLAIN_ZH, "We moved to Boston in March 1985 with my father."])
def test_specific_answers_are_not_vague(text):
    assert signals_of(text).vagueness_score < T.vagueness


@pytest.mark.parametrize(
    ("vaguer", "clearer"),
    [
        ("I guess it was a nice place, maybe.", "It was a nice place."),
        ("It was a nice place.", "It was a nice place in Leeds in 1960."),
        ("大概那是一个很好的地方吧。", "那是一个很好的地方。"),
        ("那是一个很好的地方。", "1960年在北京，那是一个很好的地方。"),
    ],
)
def test_hedges_raise_and_specifics_lower_vagueness(vaguer, clearer):
    assert signals_of(vaguer).vagueness_score > signals_of(clearer).vagueness_score


# Emotion: a weighted lexicon.


@pytest.mark.parametrize("text", [EMOTIONAL, EMOTIONAL_ZH, "我非常伤心，哭了好几天。"])
def test_emotion_lexicon_reaches_the_threshold(text):
    assert signals_of(text).emotion_score >= T.emotion


@pytest.mark.parametrize("text", [PLAIN, PLAIN_ZH, VAGUE, "我们一家人在那里住了很多年。"])
def test_neutral_answers_carry_no_emotion(text):
    assert signals_of(text).emotion_score == 0


@pytest.mark.parametrize(
    ("stronger", "weaker"),
    [("I was very sad, so sad.", "I was sad."), ("我非常伤心，哭了好几天。", "我很难过。")],
)
def test_more_evidence_of_feeling_scores_higher(stronger, weaker):
    assert signals_of(stronger).emotion_score > signals_of(weaker).emotion_score > 0


def test_emotion_is_bounded_at_one():
    text = "I was heartbroken and ashamed and so lonely, I cried every day! I still grieve, so sad!"
    assert signals_of(text).emotion_score == 1.0


# Contradiction: anchored facts on the same topic.


@pytest.mark.parametrize(
    ("earlier", "later", "kind", "values"),
    [
        ("We moved to Boston in 1985.", "We moved to Boston in 1987.", FactKind.YEAR, ("1985", "1987")),
        ("I was 12 when we moved to Leeds.", "We moved to Leeds when I was 15.", FactKind.AGE, ("12", "15")),
        (
            "We moved to Chicago in 1985.",
            "We moved to Denver in 1985.",
            FactKind.PLACE,
            ("chicago", "denver"),
        ),
        ("我们1985年搬到上海。", "我们1987年搬到上海。", FactKind.YEAR, ("1985", "1987")),
        ("我十二岁那年搬家到北京。", "我十五岁那年搬家到北京。", FactKind.AGE, ("12", "15")),
        ("我在上海出生。", "我在北京出生。", FactKind.PLACE, ("上海", "北京")),
        # Across languages, and for a once-in-a-life event.
        ("I was born in 1950.", "我1952年出生。", FactKind.YEAR, ("1950", "1952")),
    ],
)
def test_anchored_facts_that_differ_are_a_contradiction(earlier, later, kind, values):
    signals = after(earlier, text=later)
    assert signals.contradiction is not None
    assert signals.contradiction.kind is kind
    assert (signals.contradiction.earlier, signals.contradiction.current) == values
    assert signals.contradiction_score >= T.contradiction


def test_a_name_conflict_is_recorded_with_less_confidence():
    """A brother may have two names if there are two brothers: noted, not enough to clarify."""
    signals = after("I married a man named Tom.", text="I married a man named Jack.")
    assert signals.contradiction is not None
    assert signals.contradiction.kind is FactKind.NAME
    assert 0 < signals.contradiction_score < T.contradiction


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("我12岁那年搬家到北京。", "我十二岁那年搬家到北京。"),
        ("We moved to Boston in 1985.", "我们1985年搬家。"),
        ("We moved to Boston in 1985.", "We moved to boston in 1985."),
    ],
)
def test_the_same_value_written_differently_is_no_contradiction(earlier, later):
    assert after(earlier, text=later).contradiction_score == 0


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("I was 12.", "I was 15."),  # unanchored: two moments, not one memory told twice
        ("I was born in 1950.", "We moved to Boston in 1985."),  # different events
        ("我1950年出生。", "我们1985年搬到上海。"),
    ],
)
def test_unanchored_or_differently_anchored_facts_are_no_contradiction(earlier, later):
    assert after(earlier, text=later).contradiction_score == 0


def test_a_value_said_before_is_no_contradiction():
    assert after("We moved in 1985.", "We moved in 1987.", text="We moved in 1985.").contradiction_score == 0


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("We moved to Boston in 1985.", "Actually, we moved to Boston in 1987."),
        ("我们1985年搬到上海。", "其实我们是1987年搬到上海的。"),
    ],
)
def test_a_self_correction_discounts_the_contradiction(earlier, later):
    plain = after(earlier, text=later.replace("Actually, we", "We").replace("其实我们是", "我们"))
    corrected = after(earlier, text=later)
    discount = CONFIG.lexicon.thresholds.correction_discount
    assert corrected.contradiction is not None
    assert corrected.contradiction_score == pytest.approx(
        plain.contradiction_score * (1 - discount), abs=0.01
    )
    assert corrected.contradiction_score < T.contradiction


def test_contradictions_are_only_within_the_same_topic():
    session = new_session(topic_plan=PLAN)
    session.say("We moved to Boston in 1985.")
    other_topic = session.say("We moved to Boston in 1987.", topic_id="work")
    assert other_topic.signals["contradiction_score"] == 0
    assert other_topic.winning_rule != Rule.CONTRADICTION_RESOLUTION.value
    same_topic = session.say("We moved to Boston in 1987.", topic_id="childhood")
    assert same_topic.winning_rule == Rule.CONTRADICTION_RESOLUTION.value


def test_the_contradiction_is_reported_in_the_signals():
    session = new_session()
    session.say("We moved to Boston in 1985.")
    outcome = session.say("We moved to Boston in 1987.")
    assert outcome.signals["contradiction"] == {
        "kind": "year",
        "anchor": "moved>boston@self",
        "earlier": "1985",
        "current": "1987",
        "earlier_turn": 1,
    }


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("十", 10),
        ("十二", 12),
        ("二十", 20),
        ("七十八", 78),
        ("九十九", 99),
        ("八", 8),
        ("12", 12),
        ("一二", None),
    ],
)
def test_chinese_numerals(text, value):
    assert chinese_number(text) == value


def test_a_sentence_with_two_values_of_one_kind_is_skipped():
    facts = extract_facts("We moved to Boston in 1985, then again in 1990.", LEXICON, 1)
    assert [f for f in facts if f.kind is FactKind.YEAR] == []


def test_conflicts_compare_only_the_same_kind_and_anchor():
    earlier = (Fact(FactKind.YEAR, "lost@father", "1985", 1), Fact(FactKind.YEAR, "*", "1970", 1))
    found = conflicts(
        [Fact(FactKind.YEAR, "born@self", "1950", 2), Fact(FactKind.YEAR, "*", "1971", 2)], earlier
    )
    assert found == []


# Refusal, discomfort, topic change.


@pytest.mark.parametrize(
    ("text", "topic_change"),
    [
        (REFUSAL, False),
        (REFUSAL_ZH, False),
        ("That's private.", False),
        ("这是我的隐私。", False),
        ("This is too painful.", False),
        ("It makes me uneasy to remember it.", False),
        ("这太难受了，我说不出口。", False),
        (TOPIC_CHANGE, True),
        (TOPIC_CHANGE_ZH, True),
        ("说点别的吧。", True),
    ],
)
def test_refusal_discomfort_and_topic_change_phrases(text, topic_change):
    signals = signals_of(text)
    assert signals.refusal_or_discomfort is True
    assert signals.topic_change_requested is topic_change
    assert signals.hard_stop is None


# Hard stops, both languages; self-harm outranks the others.


@pytest.mark.parametrize(
    ("text", "stop"),
    [
        (STOP, HardStop.STOP_REQUEST),
        ("That's enough for today.", HardStop.STOP_REQUEST),
        (STOP_ZH, HardStop.STOP_REQUEST),
        ("今天就到这里吧。", HardStop.STOP_REQUEST),
        ("I can't breathe, I'm having a panic attack.", HardStop.ACUTE_DISTRESS),
        ("我喘不过气来。", HardStop.ACUTE_DISTRESS),
        ("I want to end my life.", HardStop.SELF_HARM),
        ("Sometimes I think about suicide.", HardStop.SELF_HARM),
        ("我不想活了。", HardStop.SELF_HARM),
        ("我要结束自己的生命。", HardStop.SELF_HARM),
    ],
)
def test_hard_stops(text, stop):
    signals = signals_of(text)
    assert signals.hard_stop is stop
    assert signals.refusal_or_discomfort is True
    assert signals.conversation_phase is Phase.CLOSE


@pytest.mark.parametrize(
    "text",
    [
        "I want to stop the interview. Sometimes I think I'd be better off dead.",
        "I can't breathe, I'm having a panic attack, I want to end my life.",
        "我快崩溃了，不想活了。",
        "我想停止访谈，我不想活了。",
    ],
)
def test_self_harm_outranks_every_other_hard_stop(text):
    assert signals_of(text).hard_stop is HardStop.SELF_HARM


# Negative cases: ordinary answers trip neither refusal nor a hard stop.


@pytest.mark.parametrize(
    "text",
    [
        PLAIN,
        PLAIN_ZH,
        ELABORATED,
        ELABORATED_ZH,
        "We stopped at the bakery on the way home from school.",
        "My father never talked about the war.",
        "I was done with school at sixteen and went to work in the mill.",
        "We used to skip school and go fishing in the summer.",
        "That was the end of my life in the village; we moved to the city in 1958.",
        "我们在车站停了一会儿，然后去了外婆家。",
        "我不想让妈妈担心，所以没告诉她。",
        "他跳过了一级，直接上了三年级。",
        "那年冬天特别冷，我们一家人挤在一个小屋里。",
        # "I missed you to death": an everyday idiom of affection, not self-harm intent.
        pytest.param("回到老家，我见到奶奶就说：奶奶，我想死您了！", id="zh-idiom-missed-you-to-death"),
    ],
)
def test_ordinary_answers_trip_neither_refusal_nor_a_hard_stop(text):
    signals = signals_of(text)
    assert signals.hard_stop is None
    assert signals.refusal_or_discomfort is False


# Conversation phase.


@pytest.mark.parametrize(
    ("depth", "phase"), [(0, Phase.WARMUP), (1, Phase.NARRATIVE), (2, Phase.REFLECTION), (3, Phase.DEPTH)]
)
def test_phase_follows_the_topics_depth(depth, phase):
    assert signals_of(PLAIN, TopicState(depth=depth)).conversation_phase is phase


@pytest.mark.parametrize("text", ["Looking back, I learned to be patient.", "回头看，我学到了很多。"])
def test_a_reflective_answer_is_the_reflection_phase_once_past_warmup(text):
    assert signals_of(text, TopicState(depth=0)).conversation_phase is Phase.WARMUP
    assert signals_of(text, TopicState(depth=1)).conversation_phase is Phase.REFLECTION
    assert signals_of(text, TopicState(depth=3)).conversation_phase is Phase.REFLECTION


def test_a_hard_stop_is_the_close_phase_at_any_depth():
    assert signals_of(STOP, TopicState(depth=2)).conversation_phase is Phase.CLOSE


def test_the_contract_phase_follows_the_depth_after_the_turn():
    session = new_session()
    assert session.say(PLAIN).contract["conversation_phase"] == Phase.WARMUP.value
    assert session.say(ELABORATED).contract["conversation_phase"] == Phase.NARRATIVE.value
    assert session.say(ELABORATED).contract["conversation_phase"] == Phase.REFLECTION.value


# User-initiated elaboration.


@pytest.mark.parametrize(
    "text",
    [
        ELABORATED,
        ELABORATED_ZH,
        "Let me tell you what really happened that night.",
        "说实话，那时候我很怕他。",
        "We moved to Boston in March 1985 with my father and my mother and my sister Anne, "
        "and we rented two rooms above a shop on Hanover Street.",
    ],
)
def test_elaboration_from_length_phrase_or_specifics(text):
    assert signals_of(text).user_initiated_elaboration is True


def test_specifics_lower_the_length_needed_for_elaboration():
    """Half the length is enough when the answer carries specifics (dates, places, people)."""
    specific = (
        "We moved to Boston in March 1985, and we rented two small rooms above a little shop "
        "where my father mended shoes all day long."
    )
    generic = (
        "We moved to a new town after that, and we rented two small rooms above a little shop "
        "where the old man mended shoes all day long."
    )
    assert signals_of(specific).user_initiated_elaboration is True
    assert signals_of(generic).user_initiated_elaboration is False


@pytest.mark.parametrize("text", [PLAIN, PLAIN_ZH, VAGUE, "Yes.", "是的。"])
def test_ordinary_answers_are_not_elaboration(text):
    assert signals_of(text).user_initiated_elaboration is False


def test_elaboration_length_threshold_comes_from_the_lexicon():
    limit = CONFIG.lexicon.thresholds.elaboration_min_tokens
    assert signals_of(" ".join(["word"] * limit)).user_initiated_elaboration is True
    assert signals_of(" ".join(["word"] * (limit - 1))).user_initiated_elaboration is False


@pytest.mark.parametrize(
    ("language", "text"),
    [
        (Language.EN, "I guess we 搬家到北京 maybe, 大概吧。"),
        (Language.ZH, "我们大概 moved somewhere, I guess。"),
    ],
)
def test_mixed_language_hedges_count_in_both_scripts(language, text):
    assert signals_of(text).vagueness_score >= T.vagueness
    assert new_session(language=language).say(text).winning_rule == Rule.VAGUENESS.value
