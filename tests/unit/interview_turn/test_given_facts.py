"""A question never asks for a fact the narrator gave in this answer or the one before (issue 22):
precision narrowing passes over its "when" step after a year or an age, and its "where" step
after a place."""

from __future__ import annotations

import pytest

from interview_turn.engine.model import Language
from tests.unit.interview_turn.support import new_session

VAGUE = {Language.EN: "I guess it was kind of nice, hard to say.", Language.ZH: "说不清楚，好像还行吧。"}


def loop_state(outcome) -> str | None:
    return outcome.contract["loop_state"]


@pytest.mark.parametrize("language", list(Language))
def test_a_vague_answer_is_first_anchored_in_time(language):
    outcome = new_session(language=language).say(VAGUE[language])
    assert loop_state(outcome) == "precision_narrowing:anchor_time"


@pytest.mark.parametrize(
    ("language", "before"),
    [
        (Language.EN, "My husband Tom and I married in 1968."),
        (Language.EN, "I was nineteen then."),
        (Language.ZH, "我们是1968年结的婚。"),
        (Language.ZH, "那年我十九岁。"),
    ],
)
def test_after_a_year_or_an_age_the_next_question_is_not_when(language, before):
    session = new_session(language=language)
    session.say(before)
    outcome = session.say(VAGUE[language])
    assert loop_state(outcome) == "precision_narrowing:anchor_place"


@pytest.mark.parametrize(
    ("language", "answer"),
    [
        (Language.EN, "Maybe 1962 or so, I don't really know, hard to say."),
        (Language.ZH, "大概是1962年吧，说不清楚。"),
    ],
)
def test_a_year_in_the_vague_answer_itself_is_not_asked_for(language, answer):
    outcome = new_session(language=language).say(answer)
    assert outcome.contract["loop_state"] != "precision_narrowing:anchor_time"


def test_a_year_two_answers_back_may_be_asked_about_again():
    session = new_session()
    session.say("My husband Tom and I married in 1968.")
    session.say("We had a small party at the church hall.")
    outcome = session.say(VAGUE[Language.EN])
    assert loop_state(outcome) == "precision_narrowing:anchor_time"


def test_after_a_place_and_a_year_the_loop_skips_to_its_exit():
    session = new_session()
    session.say("We moved to Leeds in 1952.")
    outcome = session.say(VAGUE[Language.EN])
    assert loop_state(outcome) == "precision_narrowing:exhausted"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("我们1985年搬到了上海。", "我们1987年搬到了上海。"),
        ("1960年我们搬到过杭州市。", "1962年我们搬到过杭州市。"),
    ],
)
def test_a_place_after_an_aspect_particle_is_read_and_its_date_compared(first, second):
    session = new_session(language=Language.ZH)
    session.say(first)
    outcome = session.say(second)
    assert outcome.winning_rule == "contradiction_resolution"


def test_a_sentence_naming_two_events_stores_no_date_for_either():
    session = new_session()
    session.say("Frank died in 1996, the same spring our granddaughter was born.")
    assert session.state.topic(session.state.topic_id).facts == ()
    outcome = session.say("I was born in 1941 in Leeds.")
    assert outcome.winning_rule != "contradiction_resolution"


def test_whose_event_it_is_keeps_a_grandchild_apart_from_the_narrator():
    session = new_session()
    session.say("Our granddaughter was born in 1996.")
    outcome = session.say("I was born in 1941.")
    assert outcome.winning_rule != "contradiction_resolution"
    anchors = {fact.anchor for fact in session.state.topic(session.state.topic_id).facts}
    assert {"born@grandchild", "born@self"} <= anchors


@pytest.mark.parametrize(
    ("first", "second", "language"),
    [
        ("Frank was born in 1950.", "I was born in 1941.", Language.EN),
        ("He died in 1980, my father.", "She died in 1985.", Language.EN),
        ("When we got there, Annie married in 1962.", "I married in 1960.", Language.EN),
        ("她1980年去世了。", "我1941年出生，1985年去世的是我外婆。", Language.ZH),
    ],
)
def test_someone_named_or_pointed_at_is_nobody_whose_dates_are_compared(first, second, language):
    session = new_session(language=language)
    session.say(first)
    assert [fact.anchor for fact in session.state.topic(session.state.topic_id).facts] == []
    outcome = session.say(second)
    assert outcome.winning_rule != "contradiction_resolution"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I was born in Leeds in 1941, and Frank was there too.", "I was born in 1943."),
        ("Dad died in 1980.", "My father died in 1983."),
        ("We moved to Boston in 1985.", "We moved to Boston in 1987."),
    ],
)
def test_the_narrator_and_kin_are_still_told_apart_from_names_around_them(first, second):
    session = new_session()
    session.say(first)
    outcome = session.say(second)
    assert outcome.winning_rule == "contradiction_resolution"
