"""InterviewTurnFunction over HTTP, end to end through the Lambda handler and the embedded Postgres:
the opening turn, turns routed by the spec's priority order, the session's history, and who may
act for a narrator. Every contract is validated against turn-contract.schema.json."""

from __future__ import annotations

import uuid
from itertools import pairwise

import pytest

from tests.integration.interview_turn.helpers import (
    CONCRETE,
    CONTRADICTING,
    DECISION_KIND,
    DISTRESSING,
    EMOTIONAL,
    FUNCTION,
    REFUSAL,
    SESSIONS,
    VAGUE,
    assert_contract,
    config,
    contract_of,
    decision_record,
    lines,
    post_turn,
    row_counts,
    start,
    start_body,
    stored_session,
    stored_turns,
    take,
)
from tests.support.fixtures import TEST_JWT_SECRET
from tests.support.users import service_token


def test_starting_a_session_returns_the_opening_turn_contract(api, users, db):
    narrator = users.create()
    body = start(api, narrator)
    uuid.UUID(body["session_id"])
    assert body["status"] == "open"
    assert (body["narrator"], body["language"], body["locale"]) == (
        {"display_name": "Margaret"},
        "en",
        "en-US",
    )
    assert body["topic_id"] == "childhood"
    opening = body["opening"]
    assert {
        name: opening[name]
        for name in (
            "persona_used",
            "tactic_used",
            "depth_level_before",
            "depth_level_after",
            "conversation_phase",
            "safety_action",
            "topic_id",
            "loop_state",
        )
    } == {
        "persona_used": "EMPATHY_BASE",
        "tactic_used": "warm_open",
        "depth_level_before": 0,
        "depth_level_after": 0,
        "conversation_phase": "warmup",
        "safety_action": "none",
        "topic_id": "childhood",
        "loop_state": None,
    }
    warm_open = config("persona-profiles.json")["personas"]["EMPATHY_BASE"]["tactics"]["warm_open"]
    assert opening["response_text"] in lines(warm_open, name="Margaret", topic="your childhood")
    assert opening["metrics"]["question_count"] == opening["response_text"].count("?")
    meta = body["opening_turn"]
    assert (meta["turn_no"], meta["session_status"], meta["source"]) == (0, "open", "offline")

    # Stored: the session, its opening turn (no narrator text) and the turn's decision record.
    assert row_counts(db, narrator.id) == {"sessions": 1, "turns": 1, "records": 1, "turn_counts": 0}
    (turn,) = stored_turns(db, body["session_id"])
    assert str(turn["id"]) == meta["turn_id"]
    assert turn["user_text"] is None
    assert contract_of(turn) == opening
    record = decision_record(db, meta["turn_id"])
    assert (record["function_name"], record["kind"], str(record["user_id"])) == (
        FUNCTION,
        DECISION_KIND,
        narrator.id,
    )
    assert record["output"]["contract"] == opening


def test_a_session_without_a_plan_opens_on_a_default_topic_in_chinese(api, users):
    narrator = users.create()
    body = start(
        api, narrator, narrator={"display_name": "王阿姨"}, language="zh", locale=None, topic_plan=[]
    )
    assert body["locale"] is None
    opening = body["opening"]
    assert (opening["persona_used"], opening["tactic_used"], opening["conversation_phase"]) == (
        "EMPATHY_BASE",
        "warm_open",
        "warmup",
    )
    assert "王阿姨" in opening["response_text"]
    assert opening["topic_id"] == body["topic_id"]


def test_each_turn_is_routed_by_the_spec_priority_and_get_returns_the_history(api, users, db):
    narrator = users.create()
    sid = start(api, narrator)["session_id"]

    concrete = take(api, narrator, sid, CONCRETE)
    assert (concrete["winning_rule"], concrete["persona_used"]) == ("default", "EMPATHY_BASE")
    assert concrete["turn"]["turn_no"] == 1
    assert concrete["signals"]["refusal_or_discomfort"] is False

    vague = take(api, narrator, sid, VAGUE)
    # Vague, right after an answer that gave the year, the age and the place: precision narrowing
    # has nothing left to ask that was not just told, so it exits and lets the narrator lead.
    assert (vague["winning_rule"], vague["persona_used"]) == ("vagueness", "EMPATHY_BASE")
    assert vague["signals"]["vagueness_score"] >= config("router-policy.json")["thresholds"]["vagueness"]
    assert vague["loop_state"] == "precision_narrowing:exhausted"

    emotional = take(api, narrator, sid, EMOTIONAL)
    assert (emotional["winning_rule"], emotional["persona_used"]) == ("high_emotion", "EMPATHY_EXPAND")
    assert emotional["loop_state"] is not None
    # "Always provide a step sideways option when emotion is high."
    sideways = config("negative-constraints.json")["step_sideways"]["en"]
    assert any(line in emotional["response_text"] for line in sideways)

    clarify = take(api, narrator, sid, CONTRADICTING)
    assert (clarify["winning_rule"], clarify["persona_used"]) == ("contradiction_resolution", "LOGIC_CLARIFY")
    assert clarify["signals"]["contradiction"]["earlier"] == "1985"
    assert clarify["signals"]["contradiction"]["current"] == "1987"
    assert "1985" in clarify["response_text"]
    assert "1987" in clarify["response_text"]

    refusal = take(api, narrator, sid, REFUSAL)
    assert (refusal["winning_rule"], refusal["persona_used"]) == ("safety_override", "SAFETY_FALLBACK")
    assert refusal["signals"]["refusal_or_discomfort"] is True
    assert refusal["depth_level_after"] <= refusal["depth_level_before"]
    # The narrator asked to change the topic: the fallback lands on the plan's next topic.
    assert (refusal["safety_action"], refusal["topic_id"]) == ("redirect", "first_job")

    responses = [concrete, vague, emotional, clarify, refusal]
    for number, response in enumerate(responses, start=1):
        assert response["turn"]["turn_no"] == number
        assert response["turn"]["session_id"] == sid
        assert response["turn"]["session_status"] == "open"
        assert response["depth_level_after"] <= response["depth_level_before"] + 1

    history = api.get(f"{SESSIONS}/{sid}", narrator.token)
    assert history.status == 200, history.body
    assert (history.body["status"], history.body["closed_reason"], history.body["closed_at"]) == (
        "open",
        None,
        None,
    )
    assert history.body["state"]["turn_count"] == 5
    assert history.body["state"]["topic_id"] == "first_job"
    turns = history.body["turns"]
    assert [t["turn_no"] for t in turns] == [0, 1, 2, 3, 4, 5]
    for turn in turns:
        assert_contract(contract_of(turn))
    assert [contract_of(t) for t in turns[1:]] == [contract_of(r) for r in responses]
    assert [t["turn_id"] for t in turns[1:]] == [r["turn"]["turn_id"] for r in responses]
    assert [t["user_text"] for t in turns] == [None, CONCRETE, VAGUE, EMOTIONAL, CONTRADICTING, REFUSAL]
    assert [t["winning_rule"] for t in turns] == [
        "opening",
        "default",
        "vagueness",
        "high_emotion",
        "contradiction_resolution",
        "safety_override",
    ]

    # Every turn is a decision record of its own, under the turn's id.
    for turn in turns:
        record = decision_record(db, turn["turn_id"])
        assert (record["kind"], record["function_name"]) == (DECISION_KIND, FUNCTION)
        assert record["output"]["contract"] == contract_of(turn)
    assert row_counts(db, narrator.id) == {"sessions": 1, "turns": 6, "records": 6, "turn_counts": 5}


def test_depth_rises_one_level_at_a_time_with_consent_and_never_twice_in_a_row(api, users):
    narrator = users.create()
    sid = start(api, narrator)["session_id"]
    answers = [
        take(api, narrator, sid, f"We lived near the harbour, story {n}.", consent=True) for n in range(5)
    ]
    levels = [(a["depth_level_before"], a["depth_level_after"]) for a in answers]
    for (_, after), (before, _) in pairwise(levels):
        assert before == after, levels
    assert all(after - before <= 1 for before, after in levels), levels
    increases = [after > before for before, after in levels]
    assert not any(a and b for a, b in pairwise(increases)), levels
    assert levels[0] == (0, 1)
    # The default budget stops at depth 2 without the sensitive-topics consent.
    assert max(after for _, after in levels) == config("depth-governor.json")["default_budget"]["max_depth"]


def test_a_start_retried_without_a_key_returns_the_same_session_with_200(api, users, db):
    narrator = users.create()
    first = api.post(SESSIONS, narrator.token, start_body())
    again = api.post(SESSIONS, narrator.token, start_body())
    assert (first.status, again.status) == (201, 200)
    assert again.body == first.body
    assert_contract(again.body["opening"])
    assert row_counts(db, narrator.id)["sessions"] == 1


def test_a_start_retried_with_its_key_returns_the_same_session_with_200(api, users, db):
    narrator = users.create()
    key = {"Idempotency-Key": f"start-{uuid.uuid4()}"}
    first = api.post(SESSIONS, narrator.token, start_body(), headers=key)
    again = api.post(SESSIONS, narrator.token, start_body(), headers=key)
    assert (first.status, again.status) == (201, 200)
    assert_contract(first.body["opening"])
    assert again.body == first.body
    assert row_counts(db, narrator.id) == {"sessions": 1, "turns": 1, "records": 1, "turn_counts": 0}


def test_a_backend_with_a_service_role_token_acts_for_the_narrator_it_names(api, users, db):
    narrator = users.create()
    backend = service_token(TEST_JWT_SECRET)
    started = api.post(SESSIONS, backend, start_body(user_id=narrator.id))
    assert started.status == 201, started.body
    assert_contract(started.body["opening"])
    sid = started.body["session_id"]
    assert str(stored_session(db, sid)["user_id"]) == narrator.id

    reply = post_turn(api, backend, sid, CONCRETE, query=f"?user_id={narrator.id}")
    assert reply.status == 200, reply.body
    assert_contract(contract_of(reply.body))
    assert all(str(t["user_id"]) == narrator.id for t in stored_turns(db, sid))

    history = api.get(f"{SESSIONS}/{sid}?user_id={narrator.id}", backend)
    assert history.status == 200, history.body
    assert [t["turn_no"] for t in history.body["turns"]] == [0, 1]
    # The narrator's own token sees the same session.
    assert api.get(f"{SESSIONS}/{sid}", narrator.token).body == history.body

    # Acting for someone else, the backend sees nothing of this narrator's session.
    stranger = users.create()
    hidden = api.get(f"{SESSIONS}/{sid}?user_id={stranger.id}", backend)
    assert (hidden.status, hidden.error["code"]) == (404, "session_not_found")


@pytest.mark.parametrize("route", ["start", "turn", "get"])
def test_a_service_role_token_must_name_the_narrator(api, users, db, route):
    narrator = users.create()
    sid = start(api, narrator)["session_id"]
    backend = service_token(TEST_JWT_SECRET)
    before = row_counts(db, narrator.id)
    if route == "start":
        reply = api.post(SESSIONS, backend, start_body())
    elif route == "turn":
        reply = post_turn(api, backend, sid, CONCRETE)
    else:
        reply = api.get(f"{SESSIONS}/{sid}", backend)
    assert reply.status == 422, reply.body
    assert reply.error["field"] == "user_id"
    assert row_counts(db, narrator.id) == before


@pytest.mark.parametrize("route", ["start", "turn", "get"])
def test_a_user_token_naming_another_user_is_403(api, users, db, route):
    narrator, other = users.create(), users.create()
    sid = start(api, narrator)["session_id"]
    before = row_counts(db, narrator.id), row_counts(db, other.id)
    if route == "start":
        reply = api.post(SESSIONS, narrator.token, start_body(user_id=other.id))
    elif route == "turn":
        reply = post_turn(api, narrator.token, sid, CONCRETE, query=f"?user_id={other.id}")
    else:
        reply = api.get(f"{SESSIONS}/{sid}?user_id={other.id}", narrator.token)
    assert reply.status == 403, reply.body
    assert reply.error["code"] == "user_mismatch"
    assert (row_counts(db, narrator.id), row_counts(db, other.id)) == before


@pytest.mark.parametrize("route", ["start", "turn", "get"])
def test_no_token_is_401(api, users, route):
    narrator = users.create()
    sid = start(api, narrator)["session_id"]
    if route == "start":
        reply = api.post(SESSIONS, None, start_body())
    elif route == "turn":
        reply = post_turn(api, None, sid, CONCRETE)  # type: ignore[arg-type]
    else:
        reply = api.get(f"{SESSIONS}/{sid}", None)
    assert reply.status == 401
    assert reply.error["code"] == "unauthorized"


LOOPS = [
    (
        "precision_narrowing",
        [VAGUE, "Something like that, I guess, somewhere.", "Maybe, I'm not sure, stuff like that.",
         "Perhaps, I don't know, things."],
    ),
    (
        "emotional_expansion",
        ["I felt sad and lonely, I cried when we left.", "I was so proud and grateful, I cried at the wedding.",
         EMOTIONAL, "I felt guilty and sad, I cried on the train."],
    ),
    ("inconsistency_resolution", ["We moved to Boston in 1985.", "We moved to Boston in 1987.", "We moved to Boston in 1989."]),
]  # fmt: skip
# The spec's recursion caps per state machine invocation.
CAPS = {"precision_narrowing": 2, "emotional_expansion": 2, "inconsistency_resolution": 1}


@pytest.mark.parametrize(("machine", "answers"), LOOPS, ids=[name for name, _ in LOOPS])
def test_a_follow_up_loop_never_runs_past_its_recursion_cap(api, users, machine, answers):
    narrator = users.create()
    sid = start(api, narrator)["session_id"]
    bodies = [take(api, narrator, sid, answer) for answer in answers]
    spec = config("state-machines.json")["machines"][machine]
    states = [f"{machine}:{state['id']}" for state in spec["states"]]
    ran = [b["loop_state"] for b in bodies if b["loop_state"] in states]
    assert ran == states[: CAPS[machine]], [b["loop_state"] for b in bodies]
    # Past the cap the machine's persona no longer asks.
    last = bodies[-1]
    assert last["persona_used"] != spec["persona"], (last["persona_used"], last["loop_state"])
    for body in bodies:
        assert body["depth_level_after"] <= body["depth_level_before"] + 1


@pytest.mark.parametrize(("machine", "answers"), LOOPS, ids=[name for name, _ in LOOPS])
def test_loop_telemetry_never_reports_more_steps_than_the_cap(api, users, db, machine, answers):
    narrator = users.create()
    sid = start(api, narrator)["session_id"]
    for answer in answers:
        take(api, narrator, sid, answer)
    loops = [turn["telemetry"]["loop"] for turn in stored_turns(db, sid)[1:]]
    steps = [loop["steps_executed"] for loop in loops]
    assert CAPS[machine] in steps, loops
    assert max(steps) <= CAPS[machine], (
        f"{machine} is capped at {CAPS[machine]} steps; telemetry says {steps}"
    )


def test_a_refusal_never_deepens_even_with_consent(api, users):
    narrator = users.create()
    sid = start(api, narrator)["session_id"]
    take(api, narrator, sid, "We lived near the harbour, I want to tell you more.", consent=True)
    refused = take(api, narrator, sid, "I'd rather not talk about that part.", consent=True)
    assert refused["signals"]["refusal_or_discomfort"] is True
    assert (refused["persona_used"], refused["winning_rule"]) == ("SAFETY_FALLBACK", "safety_override")
    assert refused["safety_action"] in {"deescalate", "redirect"}
    assert refused["depth_level_after"] <= refused["depth_level_before"]


def test_emotion_at_the_distress_threshold_deescalates_and_holds_depth(api, users, db):
    """Spec, Failure Handling: when risk is high, stabilize and offer a choice, reduce or hold the
    depth, and log `deescalate` with its trigger."""
    narrator = users.create()
    sid = start(api, narrator)["session_id"]
    take(api, narrator, sid, "We lived near the harbour, I want to tell you more.", consent=True)
    body = take(api, narrator, sid, DISTRESSING, consent=True)
    assert body["signals"]["emotion_score"] >= config("depth-governor.json")["distress_hard_stop_threshold"]
    assert body["signals"]["hard_stop"] is None
    assert body["winning_rule"] == "high_emotion"
    assert body["safety_action"] == "deescalate"
    assert body["depth_level_after"] <= body["depth_level_before"]
    assert body["turn"]["session_status"] == "open"
    assert "?" in body["response_text"]  # a choice is offered, not a statement
    stored = stored_turns(db, sid)[-1]
    assert stored["telemetry"]["safety"]["action"] == "deescalate"
    assert stored["depth_decision"] in {"hold", "decrease"}


def test_a_backend_naming_a_user_without_an_account_gets_404_not_a_500(api, db):
    """The first row referencing auth.users fails its foreign key: the caller's mistake."""
    import uuid

    nobody = str(uuid.uuid4())
    reply = api.post(SESSIONS, service_token(TEST_JWT_SECRET), start_body(user_id=nobody))
    assert reply.status == 404, reply.body
    assert (reply.error["code"], reply.error["field"]) == ("user_not_found", "user_id")
    with db.as_owner() as tx:
        assert (
            tx.rows("SELECT id FROM public.interview_sessions WHERE user_id = CAST(:u AS uuid)", u=nobody)
            == []
        )
