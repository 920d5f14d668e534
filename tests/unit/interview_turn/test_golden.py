"""Golden conversations replayed deterministically: a 30-turn English interview covering every
router rule, the depth governor and the safety overlay, and a 10-turn Chinese one.

The full outputs (contract, signals, winning rule, telemetry) are compared with the files in
golden/. After an intended engine or artifact change, rewrite them with
`UPDATE_GOLDEN=1 pytest tests/unit/interview_turn/test_golden.py`, review the diff, commit.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from interview_turn.engine.model import Language, SessionState, TopicPlanItem
from interview_turn.engine.turn import finish_turn, plan_opening
from interview_turn.generation import turn_seed
from persona_rails.llm.tokens import count_tokens
from tests.unit.interview_turn.support import PLAN, PLAN_ZH, Session, assert_consistent, new_session

GOLDEN = Path(__file__).parent / "golden"


@dataclass(frozen=True)
class Conversation:
    name: str
    session_id: str
    language: Language
    topic_plan: tuple[TopicPlanItem, ...]
    script: tuple[tuple[str, dict[str, Any]], ...]


ENGLISH = Conversation(
    "conversation-30",
    "6f1c2a4e-0000-4000-8000-000000000030",
    Language.EN,
    PLAN,
    (
        ("I grew up in a small house by the river.", {}),
        # Vague three times: precision narrowing runs its two steps, then exits.
        ("I guess it was sort of okay, nothing special.", {}),
        ("Maybe, I don't really remember.", {}),
        ("Something like that, hard to say.", {}),
        # Elaboration: depth 0 -> 1.
        (
            "When I was a girl we lived in a narrow house near the river, and every morning my father "
            "walked me to school past the bakery where the baker gave us warm bread rolls, and my mother "
            "waited by the gate with my little brother, and in the evenings we all sat on the porch and "
            "listened to the radio.",
            {},
        ),
        # Consent right after an increase: held. Consent on the next turn: 1 -> 2.
        ("We lived on Mill Street in Leeds.", {"go_deeper": True}),
        ("We moved to Leeds in 1952 when I was six.", {"go_deeper": True}),
        # Elaboration at max_depth: the budget is exhausted.
        (
            "Let me tell you what really happened that winter: the mill closed, my father lost his job, "
            "and for months we lived on what my mother earned sewing dresses for the neighbours, and I "
            "learned to keep quiet at the table and to never ask for anything, because there was nothing "
            "to give.",
            {},
        ),
        # A contradiction on the same topic: one gentle clarification.
        ("We moved to Leeds in 1954.", {}),
        ("It was a cold house, but we made the best of it.", {}),
        # High emotion (below the distress threshold): emotional expansion with a step-sideways
        # line, capped at two steps.
        ("I cried when my grandmother passed away that winter.", {}),
        ("I cried at her funeral, I miss her.", {}),
        ("I cried for weeks after she died.", {}),
        # A refusal, then a request to change the topic: de-escalate, then redirect.
        ("I'd rather not talk about that.", {}),
        ("Can we talk about something else?", {}),
        ("I started work at the mill in 1960, when I was 14.", {}),
        # Elaboration twice in a row may go up twice; the third time the budget is spent.
        (
            "Let me tell you about the mill: the noise of the looms was so loud that we learned to read "
            "each other's lips, and the foreman, a tall man from Bradford, walked up and down the rows all "
            "day checking every thread, and at noon we ate our sandwiches on the loading dock and watched "
            "the trains.",
            {},
        ),
        (
            "There's more: after two years they moved me to the office, where I typed the orders and the "
            "letters, and I earned enough to pay for evening classes in bookkeeping, which nobody in my "
            "family had ever done, and my mother kept every certificate I brought home in a tin box under "
            "her bed.",
            {},
        ),
        (
            "The truth is, the office was where I met most of my friends, and we went dancing every "
            "Saturday at the Mecca ballroom, and some of those girls I still write to today, sixty years "
            "later, even though we live in different countries now and we are all grandmothers.",
            {},
        ),
        ("I was so proud, I cried when they gave me the watch for ten years of service.", {}),
        ("I started work at the mill in 1961.", {}),
        ("It was 1960, I'm sure of that now.", {}),
        # The narrator picks the next topic.
        ("My husband Tom and I married in 1968.", {"topic_id": "family"}),
        ("I guess it was kind of nice.", {}),
        (
            "We married in June 1968 at St Mary's church in Leeds, with my whole family there, and my "
            "father, who never said much, stood up at the dinner and made a speech about how proud he "
            "was, and everyone was so surprised that they forgot to clap until my mother started.",
            {"go_deeper": True},
        ),
        ("Looking back, I learned that family is what matters most.", {}),
        ("I felt so guilty and ashamed when we argued about money.", {}),
        ("That's private.", {}),
        # A self-correction discounts the contradiction below the threshold.
        ("Actually, we married in 1969.", {}),
        ("I want to stop the interview now.", {}),
    ),
)

CHINESE = Conversation(
    "conversation-zh-10",
    "6f1c2a4e-0000-4000-8000-000000000010",
    Language.ZH,
    PLAN_ZH,
    (
        ("我1950年出生在苏州市。", {}),
        ("大概还行吧，我记不太清了。", {}),
        (
            "小时候我们住在河边的一间小房子里，每天早上爸爸送我去上学，路上会经过一家面包店，"
            "店主总是给我们两个小面包，妈妈带着妹妹在门口等我们回家，晚上一家人坐在院子里听收音机。",
            {},
        ),
        ("我们1962年搬到上海，那年我十二岁。", {"go_deeper": True}),
        ("我们1963年搬到上海。", {}),
        ("她走了以后我哭了很久。", {}),
        ("我不想说这个。", {}),
        ("我们换个话题吧。", {}),
        (
            "说实话，我十六岁就进厂工作了，在纺织厂当学徒，每天早上五点起床，走一个小时的路去上班，"
            "冬天手都冻裂了，可是能挣钱养家，我心里很踏实。",
            {},
        ),
        ("我想停止访谈。", {}),
    ),
)
CONVERSATIONS = [ENGLISH, CHINESE]


def normalized(value: Any) -> Any:
    """What a JSON file holds: tuples become lists, enums their values."""
    return json.loads(json.dumps(value, ensure_ascii=False))


def play(conversation: Conversation, *, through_json: bool = False) -> tuple[dict[str, Any], Session]:
    """The whole conversation; `through_json` stores and reloads the state between turns, as the
    service does with Postgres."""
    session = new_session(language=conversation.language, topic_plan=conversation.topic_plan)
    opening_plan = plan_opening(session.config, session.state, turn_seed(conversation.session_id, 0))
    opening = finish_turn(session.config, opening_plan, opening_plan.offline_line(), count_tokens)
    assert_consistent(opening)
    turns = []
    for text, options in conversation.script:
        if through_json:
            session.state = SessionState.from_json(normalized(session.state.to_json()))
        turn_no = session.state.turn_no + 1
        seed = turn_seed(conversation.session_id, turn_no)
        outcome = session.say(text, seed=seed, **options)
        turns.append(
            {
                "turn_no": turn_no,
                "seed": seed,
                "input": {"user_text": text, **options},
                "contract": outcome.contract,
                "signals": outcome.signals,
                "winning_rule": outcome.winning_rule,
                "telemetry": outcome.telemetry,
            }
        )
    record = {
        "session_id": conversation.session_id,
        "language": conversation.language.value,
        "opening": {"contract": opening.contract, "telemetry": opening.telemetry},
        "turns": turns,
        "final_state": session.state.to_json(),
    }
    return normalized(record), session


@pytest.mark.parametrize("conversation", CONVERSATIONS, ids=lambda c: c.name)
def test_golden_conversation(conversation):
    actual, _ = play(conversation)
    path = GOLDEN / f"{conversation.name}.json"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(json.dumps(actual, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    assert path.exists(), f"missing {path.name}: run with UPDATE_GOLDEN=1 and review it"
    expected = json.loads(path.read_text(encoding="utf-8"))
    assert actual["opening"] == expected["opening"]
    assert len(actual["turns"]) == len(expected["turns"]) == len(conversation.script)
    for got, want in zip(actual["turns"], expected["turns"], strict=True):
        assert got == want, f"turn {want['turn_no']} ({want['input']['user_text'][:40]!r}) changed"
    assert actual == expected


@pytest.mark.parametrize("conversation", CONVERSATIONS, ids=lambda c: c.name)
def test_replay_is_deterministic(conversation):
    first, _ = play(conversation)
    second, _ = play(conversation)
    assert first == second


@pytest.mark.parametrize("conversation", CONVERSATIONS, ids=lambda c: c.name)
def test_storing_and_reloading_the_state_between_turns_changes_nothing(conversation):
    direct, _ = play(conversation)
    reloaded, _ = play(conversation, through_json=True)
    assert reloaded == direct


@pytest.mark.parametrize("conversation", CONVERSATIONS, ids=lambda c: c.name)
def test_state_round_trips_through_json_on_every_turn(conversation):
    _, session = play(conversation)
    for outcome in session.outcomes:
        state = outcome.state_after
        assert SessionState.from_json(state.to_json()) == state
        assert SessionState.from_json(normalized(state.to_json())) == state


def test_the_english_golden_covers_the_acceptance_criteria():
    record, session = play(ENGLISH)
    turns = record["turns"]
    assert len(turns) == 30
    assert {t["winning_rule"] for t in turns} == {
        "safety_override",
        "contradiction_resolution",
        "high_emotion",
        "vagueness",
        "default",
    }
    actions = [t["contract"]["safety_action"] for t in turns]
    assert {"none", "deescalate", "redirect", "stop"} <= set(actions)
    reasons = {t["telemetry"]["depth"]["reason"] for t in turns}
    assert {
        "escalation_gate_passed",
        "no_consecutive_increase_without_elaboration",
        "depth_budget_exhausted",
        "refusal_or_discomfort",
        "route_holds_depth",
        "hard_stop",
    } <= reasons
    loop_states = {t["contract"]["loop_state"] for t in turns}
    assert {"precision_narrowing:exhausted", "emotional_expansion:exhausted"} <= loop_states
    assert "inconsistency_resolution:gentle_clarify" in loop_states
    assert any(t["telemetry"]["safety"]["step_sideways_offered"] for t in turns)
    assert {t["contract"]["topic_id"] for t in turns} == {"childhood", "work", "family"}
    assert sum(t["contract"]["depth_level_after"] > t["contract"]["depth_level_before"] for t in turns) >= 4
    assert "reflection" in {t["contract"]["conversation_phase"] for t in turns}
    last = turns[-1]
    assert last["signals"]["hard_stop"] == "stop_request"
    assert last["contract"]["conversation_phase"] == "close"
    assert session.state.closed is True
    assert all(not t["telemetry"]["safety"]["violated_rule_ids"] for t in turns)


def test_the_seed_is_the_services():
    record, _ = play(CHINESE)
    assert [t["seed"] for t in record["turns"]] == [
        turn_seed(CHINESE.session_id, n) for n in range(1, len(CHINESE.script) + 1)
    ]
