"""The interviewer does not repeat itself: no line comes back within 5 turns of a session, and
over 30 turns of ordinary answers at most 5 % of the lines are said twice (issue 22)."""

from __future__ import annotations

import json

import pytest

from interview_turn.engine.model import Language, SessionState
from interview_turn.engine.render import LINE_MEMORY, line_digest
from interview_turn.generation import turn_seed
from tests.unit.interview_turn.support import new_session

# Ordinary answers, the kind that keep the interviewer on its most used tactic.
ANSWERS = {
    Language.EN: [
        "We lived above my uncle's shop on the high street.",
        "My mother sewed for half the street.",
        "On Sundays we walked to the park by the canal.",
        "I had a brother, Peter, two years older.",
        "School was a red brick building with a yard.",
        "My father worked nights at the bakery.",
        "We kept chickens in the back yard for a while.",
    ],
    Language.ZH: [
        "我们住在镇上一条老街的尽头。",
        "我妈妈帮街坊缝衣服。",
        "星期天我们常去河边走走。",
        "我有个哥哥，比我大两岁。",
        "学校是一排红砖房，前面有个操场。",
        "我爸爸在面包房上夜班。",
        "后院里养过几只鸡。",
    ],
}


def play(language: Language, turns: int) -> list[str]:
    session = new_session(language=language)
    answers = ANSWERS[language]
    lines = []
    for turn in range(turns):
        # Seeds drawn as the service draws them: the session's id and the turn number, hashed.
        outcome = session.say(answers[turn % len(answers)], seed=turn_seed(f"variety-{language}", turn + 1))
        lines.append(outcome.contract["response_text"])
    return lines


@pytest.mark.parametrize("language", list(Language))
def test_no_line_comes_back_within_five_turns(language):
    lines = play(language, 30)
    for position, line in enumerate(lines):
        assert line not in lines[max(0, position - 5) : position], f"turn {position + 1} repeats: {line}"


@pytest.mark.parametrize("language", list(Language))
def test_at_most_five_percent_of_thirty_lines_are_said_twice(language):
    lines = play(language, 30)
    repeated = sum(line in lines[:position] for position, line in enumerate(lines))
    assert repeated / len(lines) <= 0.05, f"{repeated} of {len(lines)} lines repeated"


def test_the_seed_still_decides_the_line_when_nothing_was_said():
    first = new_session().say(ANSWERS[Language.EN][0], seed=1)
    other = new_session().say(ANSWERS[Language.EN][0], seed=2)
    assert first.contract["response_text"] != other.contract["response_text"]


def test_a_generated_line_said_within_five_turns_gives_way_to_an_unsaid_template():
    session = new_session()
    said = session.say(ANSWERS[Language.EN][0]).contract["response_text"]
    again = session.say(ANSWERS[Language.EN][1], candidate=said)
    assert again.contract["response_text"] != said
    assert again.telemetry["safety"]["repeat_replaced"] is True
    fresh = session.say(ANSWERS[Language.EN][2], candidate="Tell me about the shop, if you'd like?")
    assert fresh.contract["response_text"] == "Tell me about the shop, if you'd like?"
    assert fresh.telemetry["safety"]["repeat_replaced"] is False


def test_the_state_remembers_digests_not_text_and_forgets_after_the_memory():
    session = new_session()
    for turn in range(LINE_MEMORY + 5):
        session.say(ANSWERS[Language.EN][turn % 7], seed=turn)
    stored = session.state.to_json()
    assert SessionState.from_json(stored).said == session.state.said
    assert len(session.state.said) == LINE_MEMORY
    assert session.state.said[-1] == line_digest(session.outcomes[-1].contract["response_text"])
    assert stored["said"] == "".join(session.state.said)
    assert "shop" not in json.dumps(stored["said"])


def test_a_state_stored_before_line_memory_loads_with_nothing_said():
    stored = new_session().state.to_json()
    del stored["said"]
    assert SessionState.from_json(stored).said == ()


def test_case_and_spacing_do_not_make_a_line_new():
    assert line_digest("Thank you.  What happened next?") == line_digest("thank you. what happened NEXT?")
