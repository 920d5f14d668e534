"""The interception dialog through the Lambda handler, against the embedded Postgres."""

import uuid

import pytest

from tests.support.api import trigger_payload
from tests.support.dialog import (
    BORED,
    OTHER,
    SPECIFIC_WORK,
    WORK_APPEAL,
    appeal,
    decide,
    reason,
    row_counts,
    start,
)


@pytest.fixture
def alice(users):
    user = users.create()
    return user, users.rule(user)


def test_start_returns_the_persona_challenge_and_countdown(api, alice):
    user, rule = alice
    reply = api.post(
        "/intercept-session", user.token, trigger_payload(user.id, rule, persona_key="rational-mentor")
    )
    assert reply.status == 201
    body = reply.body
    uuid.UUID(body["session_id"])
    assert body["persona"] == {
        "key": "rational-mentor",
        "display_name": "理性导师",
        "avatar_asset_key": "avatars/rational-mentor.png",
        # 2: v2 gave every persona its emergency, challenge_excess and delayed lines.
        "version": 3,
    }
    assert body["challenge_message"] == "请告诉我你此刻的计划，我们一起评估是否合理。"
    assert body["countdown_seconds"] == 20
    assert body["state"] == "awaiting_reason"


def test_the_challenge_names_the_app(api, alice):
    user, rule = alice
    reply = api.post("/intercept-session", user.token, trigger_payload(user.id, rule))
    assert reply.body["challenge_message"] == "现在想打开抖音的理由是什么？保持诚实。"


def test_a_reason_gets_a_verdict_filled_from_the_rule(api, alice):
    user, rule = alice
    sid = start(api, user, rule)
    reply = reason(api, user, sid, BORED)
    assert reply.status == 200
    assert reply.body == {
        "session_id": sid,
        "turn_no": 1,
        "ai_verdict": "delay",
        "confidence": reply.body["confidence"],
        "reason_category": "mental_break",
        "persona_response": "给你10分钟缓冲，回来后我要看到执行结果。",
        "recommended_action": "accept_delay",
        "verdict_badge": "amber",
        "delay_minutes": 10,
        "emergency": False,
        "emergency_suggested": False,
        "appeal_used": False,
        "can_appeal": True,
        "state": "awaiting_decision",
        "source": "offline",
    }
    assert 0 <= reply.body["confidence"] <= 1


def test_deny_fills_next_action_and_recommends_comply(api, users):
    user = users.create()
    rule = users.rule(user, next_action="英语阅读")
    sid = start(api, user, rule, persona_key="humor-coach")
    body = reason(api, user, sid, OTHER).body
    assert body["ai_verdict"] == "deny"
    assert body["persona_response"] == "这个借口太弱啦。不如先英语阅读，待会儿再刷，保证更香。"
    assert body["recommended_action"] == "comply"
    assert body["delay_minutes"] is None


def test_every_turn_stores_the_specs_fields(api, alice, db):
    user, rule = alice
    sid = start(api, user, rule)
    reason(api, user, sid, BORED)
    appeal(api, user, sid, WORK_APPEAL)
    decide(api, user, sid, "override")
    with db.as_owner() as tx:
        turns = tx.rows(
            "SELECT * FROM public.intercept_turns WHERE session_id = CAST(:s AS uuid) ORDER BY turn_no", s=sid
        )
    assert [t["reason_text"] for t in turns] == [BORED, WORK_APPEAL]
    assert [t["appeal_used"] for t in turns] == [False, True]
    assert [t["user_decision"] for t in turns] == ["override", "override"]
    for turn in turns:
        assert turn["reason_category"] in {"work", "study", "mental_break", "emergency", "other"}
        assert turn["ai_verdict"] in {"deny", "delay", "allow"}
        assert 0 <= float(turn["confidence"]) <= 1
        assert 1 <= len(turn["persona_response"]) <= 60
        assert turn["source"] == "offline"
        assert turn["justification"].startswith("offline:")
        assert turn["latency_ms"] >= 0


def test_one_appeal_then_409(api, alice, db):
    user, rule = alice
    sid = start(api, user, rule)
    reason(api, user, sid, BORED)
    first = appeal(api, user, sid, WORK_APPEAL)
    assert first.status == 200
    assert first.body["turn_no"] == 2
    assert first.body["appeal_used"] is True
    assert first.body["can_appeal"] is False
    second = appeal(api, user, sid, "我真的真的需要打开它，求求你了")
    assert second.status == 409
    assert second.error["code"] == "appeal_limit_reached"
    assert second.error["state"] == "awaiting_decision"
    assert row_counts(db, user.id)["intercept_turns"] == 2


def test_an_allow_cannot_be_appealed(api, alice):
    user, rule = alice
    sid = start(api, user, rule)
    assert reason(api, user, sid, SPECIFIC_WORK).body["ai_verdict"] == "allow"
    reply = appeal(api, user, sid)
    assert reply.status == 409
    assert reply.error["code"] == "nothing_to_appeal"


def test_decision_closes_the_session_and_emits_the_completed_event(api, alice, db):
    user, rule = alice
    sid = start(api, user, rule)
    reason(api, user, sid, BORED)
    reply = decide(api, user, sid, "comply", accepted_delay=True)
    assert reply.status == 200
    assert reply.body["state"] == "closed"
    assert reply.body["user_decision"] == "comply"
    assert reply.body["accepted_delay"] is True
    assert reply.body["final_verdict"] == "delay"
    with db.as_owner() as tx:
        event = tx.one(
            "SELECT * FROM public.analytics_events WHERE subject_type = 'intercept_session' AND subject_id = CAST(:s AS uuid)",
            s=sid,
        )
    assert event["name"] == "interception.dialog_completed"
    props = event["properties"]
    assert props["user_decision"] == "comply"
    assert props["appeal_used"] is False
    assert props["turns"][0]["reason_text"] == BORED
    # The spec's per-turn fields sit at the top level too, with real numbers.
    assert props["reason_text"] == BORED
    assert props["reason_category"] == "mental_break"
    assert props["ai_verdict"] == "delay"
    assert isinstance(props["confidence"], float)
    assert props["persona_response"] == "给你10分钟缓冲，回来后我要看到执行结果。"
    assert set(props["turns"][0]) >= {
        "reason_text",
        "reason_category",
        "ai_verdict",
        "confidence",
        "persona_response",
        "user_decision",
        "appeal_used",
    }
    assert props["response_latency_ms"] >= 0


def test_a_retried_decision_returns_the_same_answer_and_adds_nothing(api, alice, db):
    user, rule = alice
    sid = start(api, user, rule)
    reason(api, user, sid, BORED)
    first = decide(api, user, sid, "override")
    before = row_counts(db, user.id)
    again = decide(api, user, sid, "override")
    assert again.status == 200
    assert again.body == first.body
    assert row_counts(db, user.id) == before


def test_a_different_decision_on_a_closed_session_is_409(api, alice):
    user, rule = alice
    sid = start(api, user, rule)
    reason(api, user, sid, BORED)
    decide(api, user, sid, "override")
    reply = decide(api, user, sid, "comply")
    assert reply.status == 409
    assert reply.error == {"code": "session_closed", "message": reply.error["message"], "state": "closed"}


def test_auto_dismiss_records_comply_before_any_reason(api, alice, db):
    user, rule = alice
    sid = start(api, user, rule)
    reply = decide(api, user, sid, "comply", auto_dismissed=True)
    assert reply.status == 200
    assert reply.body["auto_dismissed"] is True
    assert reply.body["final_verdict"] is None
    assert row_counts(db, user.id) == {"intercept_sessions": 1, "intercept_turns": 0, "analytics_events": 1}


@pytest.mark.parametrize(
    ("typed", "stored"),
    [("孩子发烧了要去医院", "孩子发烧了要去医院"), ("火", "火"), (None, None), ("   ", None)],
    ids=["with-reason", "one-character", "no-typed-reason", "blank-reason"],
)
@pytest.mark.parametrize("stage", ["awaiting_reason", "after_reason", "after_appeal"])
def test_emergency_from_every_open_state_bypasses_and_records_the_reason(
    api, alice, db, stage, typed, stored
):
    user, rule = alice
    sid = start(api, user, rule)
    if stage != "awaiting_reason":
        reason(api, user, sid, BORED)
    if stage == "after_appeal":
        appeal(api, user, sid, WORK_APPEAL)
    extra = {"emergency_reason": typed} if typed is not None else {}
    reply = decide(api, user, sid, "emergency", **extra)
    assert reply.status == 200
    assert (reply.body["state"], reply.body["user_decision"], reply.body["emergency"]) == (
        "closed",
        "emergency",
        True,
    )
    with db.as_owner() as tx:
        session = tx.one("SELECT * FROM public.intercept_sessions WHERE id = CAST(:s AS uuid)", s=sid)
        event = tx.one(
            "SELECT properties FROM public.analytics_events WHERE subject_type = 'intercept_session' AND subject_id = CAST(:s AS uuid)",
            s=sid,
        )
    assert session["emergency_reason"] == stored
    assert event["properties"]["user_decision"] == "emergency"
    assert event["properties"]["emergency_reason"] == stored


def test_emergency_on_a_closed_session_is_409(api, alice):
    user, rule = alice
    sid = start(api, user, rule)
    decide(api, user, sid, "comply", auto_dismissed=True)
    reply = decide(api, user, sid, "emergency", emergency_reason="家里着火了")
    assert reply.status == 409
    assert reply.error["state"] == "closed"


def test_urgent_keywords_allow_with_the_emergency_flag(api, alice):
    user, rule = alice
    sid = start(api, user, rule, trigger="blocked_window")
    body = reason(api, user, sid, "家里着火了，快帮我叫119").body
    assert body["ai_verdict"] == "allow"
    assert body["emergency"] is True
    assert body["reason_category"] == "emergency"
    assert body["recommended_action"] == "unlock"


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("need to reply to my boss about the client meeting", "work"),
        ("老板 wants the report 今天下班前", "work"),
        ("明天的 exam 还没复习完，要看 lecture notes", "study"),
        ("my mom is in the hospital, need to call", "emergency"),
    ],
)
def test_bilingual_reasons(api, alice, text, category):
    user, rule = alice
    sid = start(api, user, rule)
    assert reason(api, user, sid, text).body["reason_category"] == category


def test_get_resumes_the_current_state(api, alice):
    user, rule = alice
    sid = start(api, user, rule)
    fresh = api.get(f"/intercept-session/{sid}", user.token)
    assert fresh.status == 200
    assert fresh.body["state"] == "awaiting_reason"
    assert fresh.body["turns"] == []
    assert fresh.body["challenge_message"] == "现在想打开抖音的理由是什么？保持诚实。"
    reason(api, user, sid, BORED)
    mid = api.get(f"/intercept-session/{sid}", user.token).body
    assert mid["state"] == "awaiting_decision"
    assert mid["can_appeal"] is True
    assert mid["turns"][0]["ai_verdict"] == "delay"
    assert mid["decision"] is None
    decide(api, user, sid, "comply", accepted_delay=True)
    done = api.get(f"/intercept-session/{sid}", user.token).body
    assert done["state"] == "closed"
    assert done["decision"]["accepted_delay"] is True


def test_the_events_fixtures_run_a_whole_dialog(api, db):
    """events/ doubles as `sam local invoke -e` input; here each one goes through the handler."""
    from tests.support.api import load_event

    root = __import__("pathlib").Path(__file__).resolve().parents[3]
    with db.as_owner() as tx:
        tx.execute((root / "supabase" / "seed.sql").read_text(encoding="utf-8"))
        tx.execute("DELETE FROM public.intercept_sessions WHERE id = 'a1b2c3d4-0000-4000-8000-000000000001'")
    expected = {"start": 201, "reason": 200, "appeal": 200, "decision": 200, "get": 200}
    for name, status in expected.items():
        reply = api.invoke_event(load_event(f"intercept-session/{name}.json"))
        assert reply.status == status, (name, reply.body)
    assert reply.body["state"] == "closed"
    assert [t["turn_no"] for t in reply.body["turns"]] == [1, 2]


FIXTURE_SESSION = "a1b2c3d4-0000-4000-8000-000000000001"


def _load_seed(db):
    root = __import__("pathlib").Path(__file__).resolve().parents[3]
    with db.as_owner() as tx:
        tx.execute((root / "supabase" / "seed.sql").read_text(encoding="utf-8"))


def test_the_fixtures_run_again_after_each_load_of_the_seed(api, db):
    """Each `rails invoke` loads the seed first. The fixtures' start, sent again the same day, is
    a retry; once its stored timestamp is another day's, the seed starts the fixtures' session
    over; and the unlock window the last run opened never turns the start into `unlocked`."""
    import json

    from tests.support.api import load_event

    _load_seed(db)
    with db.as_owner() as tx:
        tx.execute(f"DELETE FROM public.intercept_sessions WHERE id = '{FIXTURE_SESSION}'")
    for name in ("start", "reason"):
        assert api.invoke_event(load_event(f"intercept-session/{name}.json")).status in (200, 201)
    decision = load_event("intercept-session/decision.json")
    decision["body"] = json.dumps({"user_decision": "override"})
    closed = api.invoke_event(decision)
    assert (closed.status, closed.body["unlock_kind"]) == (200, "override"), closed.body

    _load_seed(db)
    with db.as_owner() as tx:
        window = tx.one(
            "SELECT unlock_kind, unlocked_until <= now() AS ended FROM public.intercept_sessions"
            f" WHERE id = '{FIXTURE_SESSION}'"
        )
    assert window == {"unlock_kind": "override", "ended": True}
    retried = api.invoke_event(load_event("intercept-session/start.json"))
    assert (retried.status, retried.body["session_id"], retried.body["state"]) == (
        200,
        FIXTURE_SESSION,
        "closed",
    )

    with db.as_owner() as tx:
        tx.execute(
            "UPDATE public.intercept_sessions SET client_timestamp = client_timestamp - interval '1 day',"
            f" created_at = created_at - interval '1 day' WHERE id = '{FIXTURE_SESSION}'"
        )
    _load_seed(db)
    with db.as_owner() as tx:
        left = tx.one(
            "SELECT count(*) AS sessions, (SELECT count(*) FROM public.analytics_events"
            f"  WHERE subject_id = '{FIXTURE_SESSION}') AS events"
            f" FROM public.intercept_sessions WHERE id = '{FIXTURE_SESSION}'"
        )
        running = tx.one(
            "SELECT count(*) AS n FROM public.intercept_sessions"
            " WHERE user_id = '00000000-0000-4000-8000-000000000001'"
            " AND (unlocked_until > now() OR retry_after > now())"
        )
    assert (left["sessions"], left["events"], running["n"]) == (0, 0, 0)
    again = api.invoke_event(load_event("intercept-session/start.json"))
    assert (again.status, again.body["state"]) == (201, "awaiting_reason"), again.body
