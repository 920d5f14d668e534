"""Every stored interview turn replays identically with no network, `rails replay
InterviewTurnFunction ID`: offline turns from their seed, LLM turns (generated, overridden, or
with assisted signals) from their recorded replies; a tampered record shows a diff."""

from __future__ import annotations

import pytest

from interview_turn.replay import replay as replay_turn
from persona_rails.decisions import DecisionRecord, diff
from persona_rails.settings import cached_settings
from persona_rails_dev.cli import main as rails
from persona_rails_dev.replay import replay
from persona_rails_dev.template import functions
from tests.integration.interview_turn.helpers import (
    CONCRETE,
    CONTRADICTING,
    EMOTIONAL,
    FUNCTION,
    REFUSAL,
    SELF_HARM,
    VAGUE,
    decision_record,
    start,
    take,
)
from tests.support.decisions import tampered_output
from tests.support.fake_openai import json_content, server_error


def _records(db, user_id: str) -> list[dict]:
    with db.as_owner() as tx:
        return tx.rows(
            "SELECT * FROM public.decision_records WHERE user_id = CAST(:u AS uuid) AND function_name = :f"
            " ORDER BY created_at, id",
            u=user_id,
            f=FUNCTION,
        )


def _assert_replays_in_process(rows: list[dict]) -> None:
    for row in rows:
        record = DecisionRecord.from_row(row)
        assert diff(record.output, replay_turn(record)) == [], row["id"]


def test_every_offline_turn_replays_identically(api, users, db, capfd):
    narrator = users.create()
    sid = start(api, narrator, locale="en-US")["session_id"]
    for answer in (
        CONCRETE,
        VAGUE,
        "Something like that, I guess, somewhere.",
        EMOTIONAL,
        CONTRADICTING,
        REFUSAL,
    ):
        take(api, narrator, sid, answer)
    take(api, narrator, sid, "We lived near the harbour, I want to tell you more.", consent=True)
    take(api, narrator, sid, SELF_HARM)
    rows = _records(db, narrator.id)
    assert len(rows) == 9
    assert {row["source"] for row in rows} == {"offline"}
    assert all(row["seed"] is not None for row in rows)
    _assert_replays_in_process(rows)

    ids = [str(row["id"]) for row in rows]
    capfd.readouterr()
    assert rails(["replay", FUNCTION, *ids]) == 0
    out = capfd.readouterr().out
    assert out.count(": identical") == len(ids)
    assert f"replayed {len(ids)} decision(s)" in out


def test_llm_turns_replay_from_their_recorded_replies(api, users, db, database_url, fake_openai, capfd):
    narrator = users.create()
    sid = start(api, narrator)["session_id"]
    fake_openai.script(
        json_content({"response_text": "Thank you. What do you remember about the harbour?"}),
        json_content({"response_text": "It sounds like you have depression. What happened next?"}),
        server_error(500),
    )
    used = take(api, narrator, sid, CONCRETE)
    overridden = take(api, narrator, sid, "We lived by the harbour for years.")
    fell_back = take(api, narrator, sid, "My father worked at the shipyard.")
    assert (used["turn"]["source"], used["persona_used"]) == ("llm", "EMPATHY_BASE")
    assert (overridden["turn"]["source"], overridden["safety_action"]) == ("llm", "override")
    assert fell_back["turn"]["source"] == "offline"
    records = {name: decision_record(db, body["turn"]["turn_id"]) for name, body in (
        ("used", used), ("overridden", overridden), ("fell_back", fell_back))}  # fmt: skip
    assert records["used"]["raw_reply"] is not None
    assert records["overridden"]["raw_reply"] is not None
    assert records["fell_back"]["raw_reply"] is None
    requests_before = len(fake_openai.requests)

    rows = _records(db, narrator.id)
    _assert_replays_in_process(rows)
    capfd.readouterr()
    # The fake server is still configured in this process; the child replays with no LLM at all.
    ids = [str(row["id"]) for row in rows]
    assert replay(functions()[FUNCTION], database_url, ids) == 0
    assert capfd.readouterr().out.count(": identical") == len(ids)
    assert len(fake_openai.requests) == requests_before


def test_turns_with_assisted_signals_replay_from_the_recorded_scores(
    api, users, db, database_url, fake_openai, monkeypatch, capfd
):
    monkeypatch.setenv("PERSONA_RAILS_INTERVIEW_LLM_SIGNALS", "true")
    cached_settings.cache_clear()
    scores = {
        "vagueness_score": 0.2,
        "emotion_score": 0.0,
        "contradiction_score": 0.0,
        "contradiction": None,
        "refusal_or_discomfort": False,
        "user_initiated_elaboration": False,
        "hard_stop": "none",
    }
    narrator = users.create()
    sid = start(api, narrator)["session_id"]
    fake_openai.script(
        json_content(scores),
        json_content({"response_text": "Thank you. What else do you remember?"}),
        json_content({**scores, "emotion_score": 0.8}),
        server_error(500),
        json_content({**scores, "contradiction_score": 0.9, "contradiction": {"fact_index": 0, "current_value": "1987"}}),
        json_content({"response_text": "Thank you. I have both years in my notes; which should I keep?"}),
    )  # fmt: skip
    take(api, narrator, sid, "We moved to Boston in 1985.")
    raised = take(api, narrator, sid, "We had a small garden there.")
    clarified = take(api, narrator, sid, "That was the autumn we came to the city.")
    assert raised["winning_rule"] == "high_emotion"
    assert clarified["winning_rule"] == "contradiction_resolution"
    cached_settings.cache_clear()

    rows = _records(db, narrator.id)
    assert [row["source"] for row in rows] == ["offline", "llm", "llm", "llm"]
    _assert_replays_in_process(rows)
    capfd.readouterr()
    assert replay(functions()[FUNCTION], database_url, [str(row["id"]) for row in rows]) == 0
    assert capfd.readouterr().out.count(": identical") == len(rows)


@pytest.mark.parametrize(
    ("path", "value", "shown"),
    [
        ("{contract,persona_used}", '"LOGIC_CLARIFY"', '-    "persona_used": "LOGIC_CLARIFY"'),
        ("{contract,depth_level_after}", "3", '-    "depth_level_after": 3'),
        ("{winning_rule}", '"default"', '-  "winning_rule": "default"'),
    ],
)
def test_a_tampered_record_shows_the_diff(api, users, db, database_url, capfd, path, value, shown):
    narrator = users.create()
    sid = start(api, narrator)["session_id"]
    turn_id = take(api, narrator, sid, VAGUE)["turn"]["turn_id"]
    with tampered_output(db, turn_id, path, value):
        record = DecisionRecord.from_row(decision_record(db, turn_id))
        assert diff(record.output, replay_turn(record)) != []
        capfd.readouterr()
        assert replay(functions()[FUNCTION], database_url, [turn_id]) == 1
        out = capfd.readouterr().out
        assert f"{turn_id}: differs" in out
        assert shown in out
    record = DecisionRecord.from_row(decision_record(db, turn_id))
    assert diff(record.output, replay_turn(record)) == []


def test_an_unknown_id_is_reported_as_not_found(database_url, capfd):
    capfd.readouterr()
    assert replay(functions()[FUNCTION], database_url, ["00000000-0000-4000-8000-00000000dead"]) == 2
    assert "no such decision record" in capfd.readouterr().out
