"""The signal scorer (models/signals.json): what it adds to the lexicons, and the rules that bound
it (engine/signals.py `learned`)."""

from __future__ import annotations

import pytest

from interview_turn.artifacts import load_config
from interview_turn.engine.config import InterviewConfig
from interview_turn.engine.model import HardStop, TopicState
from interview_turn.engine.scorer import (
    allowed,
    learned_signal,
    may_end_in_a_signal,
    signal_in_closing_words,
    signal_probabilities,
)
from interview_turn.engine.signals import Signals, beside_topic_change, extract, read_lexicons
from persona_rails.local_model import text_grams

WITH_SCORER = load_config()
LEXICONS_ONLY = load_config(models_dir=None)


def signals_of(config: InterviewConfig, text: str) -> Signals:
    return extract(config, text, topic_id="life_story", topic=TopicState(), turn_no=1).signals


# Said in words no lexicon lists, and in no train answer.
@pytest.mark.parametrize(
    ("text", "stop", "pause"),
    [
        ("Honestly I think that's me done with this whole memoir business.", HardStop.STOP_REQUEST, False),
        ("算了，这个事我不参与了，你们另请高明吧。", HardStop.STOP_REQUEST, False),
        (
            "Everything's going blurry and I'm shaking all over, I can't get a breath in.",
            HardStop.ACUTE_DISTRESS,
            False,
        ),
        ("I keep thinking my kids would manage fine once I'm gone for good.", HardStop.SELF_HARM, False),
        ("Let's leave the war for another afternoon, I'm worn thin.", None, True),
    ],
)
def test_the_scorer_reads_what_the_lexicons_do_not_list(text, stop, pause):
    unread = signals_of(LEXICONS_ONLY, text)
    assert (unread.hard_stop, unread.pause_requested) == (None, False)
    read = signals_of(WITH_SCORER, text)
    assert (read.hard_stop, read.pause_requested) == (stop, pause)
    assert read.refusal_or_discomfort


@pytest.mark.parametrize(
    "text",
    [
        "她走了以后我哭了很久。",
        "想死你了，孙子！",
        "That winter we nearly starved; my little brother died of it.",
        "I was so tired after the night shift I could have died.",
        "I'm fine, dear, go on, ask me about the shop.",
        # The integration tests' vague answer: a fifth train author's "not being around" once
        # taught the models that "around" is self-harm.
        "I don't really remember, maybe sometime around then.",
        # Short answers: before train authors n and o (docs/judges.md), the model read "I don't
        # know." as acute distress and flagged 30 of a blind author's 170 short plain answers.
        "I don't know.",
        "不知道。",
        "Maybe. I think so, more or less.",
        "Not sure.",
    ],
)
def test_grief_idioms_and_plain_answers_ask_for_nothing(text):
    signals = signals_of(WITH_SCORER, text)
    assert (signals.hard_stop, signals.pause_requested) == (None, False)


@pytest.mark.parametrize(
    "text", ["This is too painful.", "It makes me uneasy to remember it.", "这太难受了，我说不出口。"]
)
def test_a_discomfort_the_lexicon_reads_is_never_made_a_stop(text):
    signals = signals_of(WITH_SCORER, text)
    assert signals.hard_stop is None
    assert signals.refusal_or_discomfort


@pytest.mark.parametrize(
    "text",
    [
        "Can we talk about something else?",
        "I'd rather talk about something else, please.",
        "Let's change the topic, please.",
        "换个话题吧。",
    ],
)
def test_a_topic_change_the_lexicon_reads_is_neither_a_pause_nor_a_stop(text):
    signals = signals_of(WITH_SCORER, text)
    assert signals.topic_change_requested
    assert (signals.hard_stop, signals.pause_requested) == (None, False)


@pytest.mark.parametrize(
    ("text", "stop", "pause"),
    [
        ("Can we talk about something else? I want out of this whole thing.", HardStop.STOP_REQUEST, False),
        ("Can we switch the subject? I'm done with this recording.", HardStop.STOP_REQUEST, False),
        ("Let's change the subject. I can't breathe, my chest is so tight.", HardStop.ACUTE_DISTRESS, False),
        ("换个话题吧，我不想活了。", HardStop.SELF_HARM, False),
        ("Can we talk about something else? I need a minute.", None, True),
        # Too few words beside the topic change to read alone: the whole answer is read.
        ("Can we talk about something else? Something happier.", None, False),
        ("Let's talk about something else, like my garden.", None, False),
        # Read alone, and nothing in them.
        ("换个话题，说说我闺女。", None, False),
        ("Let's talk about something else, like my garden and the roses Dad planted.", None, False),
    ],
)
def test_what_an_answer_says_beside_a_topic_change_still_counts(text, stop, pause):
    signals = signals_of(WITH_SCORER, text)
    assert signals.topic_change_requested
    assert (signals.hard_stop, signals.pause_requested) == (stop, pause)


def test_the_words_beside_a_topic_change_are_its_other_clauses():
    lexicon = WITH_SCORER.compiled_lexicon
    text = WITH_SCORER.for_matching("We're not talking about Vietnam. Not ever. Ask me about something else.")
    assert beside_topic_change(text, lexicon) == "We're not talking about Vietnam. Not ever."
    assert (
        beside_topic_change(
            WITH_SCORER.for_matching("I'd rather talk about something else, please."), lexicon
        )
        is None
    )
    chinese = WITH_SCORER.for_matching("换个话题吧。我不想再做这个访谈了。")
    assert beside_topic_change(chinese, lexicon) == "我不想再做这个访谈了."


def test_a_stop_the_lexicons_miss_beside_a_topic_change_is_read_in_the_other_clauses():
    text = "Can we talk about something else? I want out of this whole thing."
    assert signals_of(LEXICONS_ONLY, text).hard_stop is None
    # Read whole, the topic change rules the model's stop request out.
    models = WITH_SCORER.local_models
    assert models is not None
    assert learned_signal(probabilities_of(text), models.signals.thresholds) == (None, False)
    assert signals_of(WITH_SCORER, text).hard_stop is HardStop.STOP_REQUEST


@pytest.mark.parametrize(
    "text",
    [
        "歇会儿？不用不用，我还能说。",
        "休息一下？不用，接着问吧。",
        "Do I need a minute? No, I'm fine.",
        "Stop the recording? No, leave it on.",
    ],
)
def test_an_offer_repeated_and_declined_is_neither_a_pause_nor_a_stop(text):
    signals = signals_of(WITH_SCORER, text)
    assert (signals.hard_stop, signals.pause_requested) == (None, False)


@pytest.mark.parametrize(
    ("text", "stop", "pause"),
    [
        ("Can we take a break? Yes, please, I'm worn out.", None, True),
        ("Can we stop now? No more questions.", HardStop.STOP_REQUEST, False),
        ("Could we stop for today? No more, please.", HardStop.STOP_REQUEST, False),
        ("休息一下？不用问我了，我真的撑不住了。", None, True),
        ("休息一下好吗？我累了。", None, True),
    ],
)
def test_an_offer_that_is_not_declined_still_counts(text, stop, pause):
    signals = signals_of(WITH_SCORER, text)
    assert (signals.hard_stop, signals.pause_requested) == (stop, pause)


def test_what_the_model_took_for_a_pause_or_a_stop_in_a_topic_change_counts_for_none():
    # As the model may read "Can we talk about something else?": the pause its lexicon reading
    # rules out must not leave the stop request the likeliest class.
    raw = {"none": 0.08, "pause": 0.66, "stop_request": 0.22, "acute_distress": 0.03, "self_harm": 0.01}
    kept = allowed(raw, {"topic_change": 1.0, "question": 1.0})
    assert kept == pytest.approx(
        {"none": 0.96, "pause": 0.0, "stop_request": 0.0, "acute_distress": 0.03, "self_harm": 0.01}
    )


@pytest.mark.parametrize(
    ("text", "stop"),
    [
        ("I want to end my life.", HardStop.SELF_HARM),
        ("我喘不过气来。", HardStop.ACUTE_DISTRESS),
        ("That's enough for today.", HardStop.STOP_REQUEST),
    ],
)
def test_the_scorer_never_takes_away_what_a_lexicon_found(text, stop):
    assert signals_of(LEXICONS_ONLY, text).hard_stop is stop
    assert signals_of(WITH_SCORER, text).hard_stop is stop


def test_the_scorer_is_part_of_the_recorded_config_version():
    assert WITH_SCORER.version != LEXICONS_ONLY.version


# Heavy with feeling, in words the emotion lexicon weighs too lightly (and in no train answer).
@pytest.mark.parametrize(
    "text",
    [
        "I still can't forgive myself for not being there when she died, it haunts me every night.",
        "He beat us with his belt until we bled, and my mother just watched.",
        "我这辈子最对不起的就是我儿子，他走的时候我都不在身边。",
    ],
)
def test_the_emotion_model_reads_what_the_lexicon_weighs_too_lightly(text):
    threshold = WITH_SCORER.router.thresholds.emotion
    assert signals_of(LEXICONS_ONLY, text).emotion_score < threshold
    score = signals_of(WITH_SCORER, text).emotion_score
    assert threshold <= score <= WITH_SCORER.emotion_scale.ceiling
    assert WITH_SCORER.emotion_scale.ceiling < WITH_SCORER.depth.distress_hard_stop_threshold


@pytest.mark.parametrize(
    "text",
    [
        "We moved to Leeds in 1962 and I worked at the post office.",
        "我们家那时候种水稻，一年两季。",
        "I don't really remember, maybe sometime around then.",
    ],
)
def test_plain_answers_stay_plain(text):
    assert signals_of(WITH_SCORER, text).emotion_score < WITH_SCORER.router.thresholds.emotion


@pytest.mark.parametrize(
    "text",
    [
        "Let's stop here for today, we can go on tomorrow.",
        "I think that's enough for today. Let's pick it up next week.",
        "Can we stop here? Same time next week?",
        "今天就聊到这儿吧，下个礼拜再继续。",
        "我们停吧，明天再说。",
    ],
)
def test_a_stop_request_that_names_a_return_is_a_pause_when_the_scorer_reads_one(text):
    # The lexicons alone read a stop, which would close the session for good.
    assert signals_of(LEXICONS_ONLY, text).hard_stop is HardStop.STOP_REQUEST
    read = signals_of(WITH_SCORER, text)
    assert (read.hard_stop, read.pause_requested) == (None, True)


@pytest.mark.parametrize(
    "text",
    [
        "Let's stop here.",
        "Let's call it a day.",
        "今天就聊到这儿吧。",
        # A return named only to refuse it.
        "I want to stop the interview now. Don't come back tomorrow.",
        "Stop the recording. I won't do this another time.",
    ],
)
def test_a_stop_request_that_names_no_return_or_refuses_one_stays_a_stop(text):
    read = signals_of(WITH_SCORER, text)
    assert (read.hard_stop, read.pause_requested) == (HardStop.STOP_REQUEST, False)


def probabilities_of(text: str) -> dict[str, float]:
    """The signal model's probabilities for a whole answer."""
    folded = WITH_SCORER.for_matching(text)
    features = read_lexicons(folded, WITH_SCORER.compiled_lexicon).features
    models = WITH_SCORER.local_models
    assert models is not None
    return signal_probabilities(models.signals, text_grams(folded), features)


def whole_answer_reading(text: str) -> tuple[HardStop | None, bool]:
    """What the signal model decides for the whole answer, before its closing words are read."""
    models = WITH_SCORER.local_models
    assert models is not None
    return learned_signal(probabilities_of(text), models.signals.thresholds)


# Taken ill in the middle of a story: read whole, the story outweighs the symptoms (acute distress
# 0.04 and 0.05 as a whole, against 0.96 and 0.6 for the closing words alone). The Chinese one's
# symptoms are none the lexicons read alone (眼前发黑 now is one).
@pytest.mark.parametrize(
    "text",
    [
        "My father kept bees behind the orchard, twelve hives, and every August we'd take the honey "
        "off, and my mother would jar it in the scullery and sell it at the church fete for a "
        "shilling a pot, and the vicar always bought two... wait. I can't feel my left hand. My "
        "chest is so heavy.",
        "我们村东头有口老井，夏天大人们把西瓜吊在井里冰着，傍晚捞上来切开，一村的孩子都围着，"
        "我奶奶总把最甜的那块留给我，她说我是长孙……等等，我头好晕，半边身子动不了了。",
    ],
)
def test_a_crisis_that_breaks_off_a_story_is_read_in_its_closing_words(text):
    assert whole_answer_reading(text) == (None, False)
    assert signals_of(WITH_SCORER, text).hard_stop is HardStop.ACUTE_DISTRESS


@pytest.mark.parametrize(
    "text",
    [
        # Symptoms remembered, in the closing words too.
        "We lived above the chemist's then. In 2009 I had the heart attack, right there in the "
        "kitchen. My chest was crushing me and my left arm went numb. They got me to the hospital "
        "in time.",
        "我爸后来中风了。那天他在院子里劈柴……突然半边脸麻了，说话也说不清楚，我们赶紧把他送到县医院。",
    ],
)
def test_symptoms_remembered_in_the_closing_words_add_nothing(text):
    # Read whole, the answer gives acute distress enough weight that its closing words are read.
    assert may_end_in_a_signal(probabilities_of(text))
    read = signals_of(WITH_SCORER, text)
    assert (read.hard_stop, read.pause_requested) == (None, False)


def test_closing_words_give_acute_distress_or_a_pause_only():
    closing = WITH_SCORER.for_matching("I won't say more about that. Put it in the book though.")
    features = read_lexicons(closing, WITH_SCORER.compiled_lexicon).features
    models = WITH_SCORER.local_models
    assert models is not None
    # Alone, short closing words read as a stop request far too readily.
    assert learned_signal(probabilities_of(closing), models.signals.thresholds) == (
        HardStop.STOP_REQUEST,
        False,
    )
    assert signal_in_closing_words(models.signals, closing, features) is None


@pytest.mark.parametrize(
    "text",
    [
        "We farmed outside Ballarat until the drought in 1983, then Dad sold up and we moved to "
        "Geelong and I started at the Ford plant. Mum never really settled there, she missed her "
        "sisters. Sorry love, let me sit with it a moment. It's all coming back.",
        "我们家那时候住在筒子楼里，一层楼十几户人家共用一个水龙头，早上排队洗脸……哎你等我一下，我去开个门。",
    ],
)
def test_a_pause_asked_for_after_a_story_is_read_in_its_closing_words(text):
    models = WITH_SCORER.local_models
    assert models is not None
    probabilities = probabilities_of(text)
    # Read whole, the story outweighs the request, and the lexicons list none of its words.
    assert learned_signal(probabilities, models.signals.thresholds) == (None, False)
    assert signals_of(LEXICONS_ONLY, text).pause_requested is False
    assert may_end_in_a_signal(probabilities)
    read = signals_of(WITH_SCORER, text)
    assert (read.hard_stop, read.pause_requested) == (None, True)


@pytest.mark.parametrize(
    "story",
    [
        "Dad ran the bakery on Church Street for thirty years. Saturdays were the busiest. I still "
        "miss the smell of the bread.",
        "我们家开了三十年的面包店。礼拜六最忙。我到现在还想念那股面包香。",
    ],
)
def test_an_answer_with_no_weight_of_a_crisis_or_a_pause_is_read_once(story):
    assert not may_end_in_a_signal(probabilities_of(story))
