"""events/interview-turn/ doubles as `sam local invoke -e` input; here each fixture goes through the
handler against supabase/seed.sql (its development narrator and its session at the opening turn)."""

from __future__ import annotations

import json

from tests.integration.interview_turn.helpers import (
    ROOT,
    assert_contract,
    assert_turn_response,
    contract_of,
    stored_session,
)
from tests.support.api import load_event

DEV_USER = "00000000-0000-4000-8000-000000000001"
SEEDED_SESSION = "5e551011-0000-4000-8000-000000000001"


def _load_seed(db) -> None:
    with db.as_owner() as tx:
        tx.execute((ROOT / "supabase" / "seed.sql").read_text(encoding="utf-8"))
        # Sessions the start fixtures made on an earlier run would turn their 201 into a 200.
        tx.execute(
            "DELETE FROM public.interview_sessions WHERE user_id = CAST(:u AS uuid) AND idempotency_key IN"
            " ('fixture-interview-start-1', 'fixture-interview-start-backend-1')",
            u=DEV_USER,
        )


def _invoke(api, name: str):
    return api.invoke_event(load_event(f"interview-turn/{name}.json"))


def test_the_events_fixtures_run_a_whole_interview(api, db):
    _load_seed(db)

    started = _invoke(api, "start")
    assert started.status == 201, started.body
    opening = assert_contract(started.body["opening"])
    assert (opening["persona_used"], opening["tactic_used"], opening["conversation_phase"]) == (
        "EMPATHY_BASE",
        "warm_open",
        "warmup",
    )
    assert (opening["depth_level_before"], opening["depth_level_after"]) == (0, 0)
    assert (started.body["locale"], started.body["topic_id"]) == ("en-US", "childhood")
    assert "Margaret" in opening["response_text"]
    assert str(stored_session(db, started.body["session_id"])["user_id"]) == DEV_USER
    # Sent again (its Idempotency-Key), the start is a retry: 200, the same session.
    again = _invoke(api, "start")
    assert (again.status, again.body) == (200, started.body)

    backend = _invoke(api, "start-as-backend")
    assert backend.status == 201, backend.body
    assert_contract(backend.body["opening"])
    assert (backend.body["language"], backend.body["locale"], backend.body["topic_id"]) == (
        "zh",
        "zh-CN",
        "hometown",
    )
    assert "王阿姨" in backend.body["opening"]["response_text"]
    assert str(stored_session(db, backend.body["session_id"])["user_id"]) == DEV_USER

    turn = _invoke(api, "turn")
    assert turn.status == 200, turn.body
    assert_turn_response(turn.body)
    assert (turn.body["winning_rule"], turn.body["persona_used"]) == ("default", "EMPATHY_BASE")
    assert (turn.body["turn"]["turn_no"], turn.body["turn"]["session_id"]) == (1, SEEDED_SESSION)
    assert turn.body["signals"]["refusal_or_discomfort"] is False
    assert _invoke(api, "turn").body == turn.body  # the fixture's Idempotency-Key replays it

    vague = _invoke(api, "turn-vague")
    assert vague.status == 200, vague.body
    assert_turn_response(vague.body)
    # The turn before gave a year, an age and a place: narrowing asks for none of them again, so
    # the loop goes straight to its exit and lets the narrator lead.
    assert (vague.body["winning_rule"], vague.body["persona_used"]) == ("vagueness", "EMPATHY_BASE")
    assert vague.body["loop_state"] == "precision_narrowing:exhausted"
    assert vague.body["turn"]["turn_no"] == 2

    refusal = _invoke(api, "turn-refusal")
    assert refusal.status == 200, refusal.body
    assert_turn_response(refusal.body)
    assert (refusal.body["winning_rule"], refusal.body["persona_used"]) == (
        "safety_override",
        "SAFETY_FALLBACK",
    )
    assert (refusal.body["safety_action"], refusal.body["topic_id"]) == ("redirect", "first_job")
    assert refusal.body["depth_level_after"] <= refusal.body["depth_level_before"]

    stop = _invoke(api, "turn-stop")
    assert stop.status == 200, stop.body
    assert_turn_response(stop.body)
    assert (stop.body["persona_used"], stop.body["safety_action"], stop.body["conversation_phase"]) == (
        "SAFETY_FALLBACK",
        "stop",
        "close",
    )
    assert stop.body["signals"]["hard_stop"] == "stop_request"
    assert stop.body["turn"]["session_status"] == "closed"

    history = _invoke(api, "get")
    assert history.status == 200, history.body
    assert (history.body["session_id"], history.body["status"], history.body["closed_reason"]) == (
        SEEDED_SESSION,
        "closed",
        "stop_request",
    )
    turns = history.body["turns"]
    assert [t["turn_no"] for t in turns] == [0, 1, 2, 3, 4]
    for stored in turns:
        assert_contract(contract_of(stored))
    assert [t["persona_used"] for t in turns] == [
        "EMPATHY_BASE",
        "EMPATHY_BASE",
        "EMPATHY_BASE",
        "SAFETY_FALLBACK",
        "SAFETY_FALLBACK",
    ]
    assert [t["user_text"] for t in turns[1:]] == [
        json.loads(load_event(f"interview-turn/{name}.json")["body"])["user_text"]
        for name in ("turn", "turn-vague", "turn-refusal", "turn-stop")
    ]
    assert history.body["state"]["turn_count"] == 4

    # Loading the seed again starts the fixture session over.
    _load_seed(db)
    assert _invoke(api, "turn").body["turn"]["turn_no"] == 1
