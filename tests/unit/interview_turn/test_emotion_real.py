"""Bereavement and harm read as emotion (issue 22): a close person's death or being beaten turns
the interviewer to the feeling, instead of "What happened next?"."""

from __future__ import annotations

import pytest

from interview_turn.artifacts import load_config
from interview_turn.engine.model import Language
from tests.unit.interview_turn.support import new_session

LEXICONS_ONLY = load_config(models_dir=None)


@pytest.mark.parametrize(
    ("language", "answer"),
    [
        (Language.EN, "My husband died in the spring of 1996."),
        (Language.EN, "We lost our boy when he was four."),
        (Language.EN, "My father beat me with his belt when I was small."),
        (Language.ZH, "我爸爸是那年冬天去世的。"),
        (Language.ZH, "小时候我妈经常打我，还把我关在柴房里。"),
    ],
)
def test_a_death_in_the_family_or_being_beaten_turns_to_the_feeling(language, answer):
    outcome = new_session(language=language).say(answer)
    assert outcome.winning_rule == "high_emotion"
    assert "happened next" not in outcome.contract["response_text"]


# Ordinary sentences with the lexicon's words in another sense.
SAME_WORDS = [
    (Language.EN, "Our dog died of old age, he was sixteen."),
    (Language.EN, "The team beat us three nil that year."),
    (Language.ZH, "我爸爸那年退休了。"),
]


@pytest.mark.parametrize(
    ("language", "answer"),
    [*SAME_WORDS, (Language.EN, "It hit me then that I would have to leave school.")],
)
def test_ordinary_sentences_with_the_same_words_stay_plain(language, answer):
    # The lexicon's word senses: "died", "beat", "hit" here are no bereavement or harm. (The
    # signal scorer reads "It hit me then…" as self-harm, 0.38 against its 0.18 bound: a known
    # false crisis line, docs/judges.md.)
    outcome = new_session(language=language, config=LEXICONS_ONLY).say(answer)
    assert outcome.winning_rule != "high_emotion"


@pytest.mark.parametrize(("language", "answer"), SAME_WORDS)
def test_the_emotion_model_leaves_them_plain_too(language, answer):
    outcome = new_session(language=language).say(answer)
    assert outcome.winning_rule != "high_emotion"
