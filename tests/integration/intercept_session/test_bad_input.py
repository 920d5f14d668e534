"""Bad input: a 4xx JSON error naming the field or state, never a 500, never a half-written row."""

import json
import time
import uuid

import pytest

from tests.support.api import trigger_payload
from tests.support.dialog import BORED, decide, reason, row_counts, start
from tests.support.fixtures import TEST_JWT_SECRET
from tests.support.users import make_token


@pytest.fixture
def alice(users):
    user = users.create()
    return user, users.rule(user)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda p: p.pop("rule_id"), "rule_id"),
        (lambda p: p.pop("user_id"), "user_id"),
        (lambda p: p.update(rule_id="not-a-uuid"), "rule_id"),
        (lambda p: p.update(session_id="123"), "session_id"),
        (lambda p: p.update(trigger="bored"), "trigger"),
        (lambda p: p.update(persona_key="grandma"), "persona_key"),
        # Today's clock (a stale date would be refused anyway), only the offset missing or wrong.
        (lambda p: p.update(timestamp=p["timestamp"][:19]), "timestamp"),
        (lambda p: p.update(timestamp="yesterday"), "timestamp"),
        (lambda p: p.update(timestamp=p["timestamp"][:19] + "+15:00"), "timestamp"),
        (lambda p: p.update(streak=-1), "streak"),
        (lambda p: p.update(override_count_today="many"), "override_count_today"),
        (lambda p: p.update(override_count_today=True), "override_count_today"),
        (lambda p: p.update(streak="3"), "streak"),
        (lambda p: p.update(timestamp=12345), "timestamp"),
        (lambda p: p.update(trigger=1), "trigger"),
        (lambda p: p.update(persona_key=7), "persona_key"),
        (lambda p: p.update(app_display_name=""), "app_display_name"),
        (lambda p: p.update(app_identifier="x" * 256), "app_identifier"),
    ],
)
def test_malformed_start_payloads_name_the_field(api, alice, db, change, field):
    user, rule = alice
    payload = trigger_payload(user.id, rule)
    change(payload)
    reply = api.post("/intercept-session", user.token, payload)
    assert reply.status == 422, reply.body
    assert reply.error["field"] == field
    assert all(set(entry) == {"field", "message"} for entry in reply.body["error"]["fields"])
    assert row_counts(db, user.id)["intercept_sessions"] == 0


def test_unknown_persona_lists_the_valid_keys(api, alice):
    user, rule = alice
    reply = api.post("/intercept-session", user.token, trigger_payload(user.id, rule, persona_key="grandma"))
    assert "valid keys: humor-coach, rational-mentor, strict-father" in reply.error["message"]


@pytest.mark.parametrize(
    ("raw", "status", "code"),
    [
        ("{not json", 400, "invalid_json"),
        ("", 400, "missing_body"),
        ("[1, 2]", 422, "validation_error"),
        # Bytes that are not UTF-8, and JSON nested deeper than the decoder goes (yet under the
        # 16 KB limit, past which it is a 413 before any parsing): still bad JSON.
        (b'{"user_id": "\xff\xfe"}', 400, "invalid_json"),
        ("[" * 8_000 + "]" * 8_000, 400, "invalid_json"),
    ],
)
def test_bodies_that_are_not_objects(api, alice, raw, status, code):
    user, _ = alice
    reply = api.post("/intercept-session", user.token, raw_body=raw)
    assert reply.status == status
    assert reply.error["code"] == code


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("太短了", "reason_text"),
        ("         短         ", "reason_text"),
        ("长" * 201, "reason_text"),
        ("\u200b" * 50, "reason_text"),  # fifty zero-width spaces say nothing
        ("\u202e" * 12, "reason_text"),  # nor do twelve right-to-left overrides
        (None, "reason_text"),
    ],
)
def test_reason_length_is_bounded(api, alice, db, text, field):
    user, rule = alice
    sid = start(api, user, rule)
    reply = api.post(f"/intercept-session/{sid}/reason", user.token, {"reason_text": text})
    assert reply.status == 422
    assert reply.error["field"] == field
    assert row_counts(db, user.id)["intercept_turns"] == 0


@pytest.mark.parametrize("text", ["这里有一个空字符\x00在中间的理由", "响铃字符\x07也不允许出现在理由里"])
def test_control_characters_are_rejected_not_stored(api, alice, db, text):
    user, rule = alice
    sid = start(api, user, rule)
    reply = reason(api, user, sid, text)
    assert reply.status == 422
    assert reply.error["field"] == "reason_text"
    assert row_counts(db, user.id)["intercept_turns"] == 0


def test_a_lone_surrogate_is_a_422_not_a_500(api, alice, db):
    user, rule = alice
    for field in ("persona_key", "app_display_name"):
        reply = api.post(
            "/intercept-session",
            user.token,
            raw_body=json.dumps(trigger_payload(user.id, rule)).replace(
                '"strict-father"' if field == "persona_key" else '"\\u6296\\u97f3"', '"humor\\ud800"'
            ),
        )
        assert reply.status == 422, (field, reply.body)
        assert reply.error["field"] == field
    assert row_counts(db, user.id)["intercept_sessions"] == 0


def test_a_nul_in_the_app_name_is_rejected(api, alice):
    user, rule = alice
    reply = api.post(
        "/intercept-session", user.token, trigger_payload(user.id, rule, app_display_name="抖\x00音")
    )
    assert reply.status == 422
    assert reply.error["field"] == "app_display_name"


def test_exactly_ten_characters_is_enough(api, alice):
    user, rule = alice
    sid = start(api, user, rule)
    assert reason(api, user, sid, "一二三四五六七八九十").status == 200


def test_appeal_text_is_validated_too(api, alice):
    user, rule = alice
    sid = start(api, user, rule)
    reason(api, user, sid, BORED)
    reply = api.post(f"/intercept-session/{sid}/appeal", user.token, {"appeal_text": "short"})
    assert reply.status == 422
    assert reply.error["field"] == "appeal_text"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"user_decision": "maybe"}, "user_decision"),
        ({}, "user_decision"),
        ({"user_decision": "comply", "emergency_reason": "着火了"}, "emergency_reason"),
        ({"user_decision": "emergency", "emergency_reason": "长" * 501}, "emergency_reason"),
        ({"user_decision": "override", "auto_dismissed": True}, "auto_dismissed"),
        ({"user_decision": "comply", "accepted_delay": "sure"}, "accepted_delay"),
        ({"user_decision": "comply", "accepted_delay": "yes"}, "accepted_delay"),
        ({"user_decision": "comply", "auto_dismissed": 1}, "auto_dismissed"),
    ],
)
def test_malformed_decisions_name_the_field(api, alice, db, body, field):
    user, rule = alice
    sid = start(api, user, rule)
    reason(api, user, sid, BORED)
    reply = api.post(f"/intercept-session/{sid}/decision", user.token, body)
    assert reply.status == 422, reply.body
    assert reply.error["field"] == field
    with db.as_owner() as tx:
        state = tx.one("SELECT state FROM public.intercept_sessions WHERE id = CAST(:s AS uuid)", s=sid)[
            "state"
        ]
    assert state == "awaiting_decision"


@pytest.mark.parametrize("path", ["/intercept-session/not-a-uuid/reason", "/intercept-session/42"])
def test_a_session_id_that_is_not_a_uuid(api, alice, path):
    user, _ = alice
    reply = api.request("GET" if path.endswith("42") else "POST", path, user.token, {"reason_text": BORED})
    assert reply.status == 422
    assert reply.error["field"] == "session_id"


def test_unknown_and_foreign_sessions_look_the_same(api, alice, users):
    user, rule = alice
    sid = start(api, user, rule)
    mallory = users.create()
    for target in (str(uuid.uuid4()), sid):
        reply = reason(api, mallory, target, BORED)
        assert reply.status == 404
        assert reply.error["code"] == "session_not_found"
        assert reply.error["field"] == "session_id"
        assert api.get(f"/intercept-session/{target}", mallory.token).status == 404
        assert decide(api, mallory, target, "override").status == 404


def test_a_foreign_rule_is_404(api, alice, users):
    user, _ = alice
    other = users.create()
    foreign_rule = users.rule(other)
    reply = api.post("/intercept-session", user.token, trigger_payload(user.id, foreign_rule))
    assert reply.status == 404
    assert reply.error == {"code": "rule_not_found", "message": reply.error["message"], "field": "rule_id"}


def test_an_app_the_rule_does_not_govern_is_422(api, alice):
    user, rule = alice
    reply = api.post(
        "/intercept-session", user.token, trigger_payload(user.id, rule, app_identifier="com.other.app")
    )
    assert reply.status == 422
    assert reply.error["field"] == "app_identifier"


def test_a_session_id_reused_with_another_payload_is_409(api, alice, users, db):
    user, rule = alice
    sid = str(uuid.uuid4())
    assert (
        api.post("/intercept-session", user.token, trigger_payload(user.id, rule, session_id=sid)).status
        == 201
    )
    again = api.post(
        "/intercept-session",
        user.token,
        trigger_payload(user.id, rule, session_id=sid, trigger="blocked_window"),
    )
    assert again.status == 409
    assert again.error["code"] == "session_id_conflict"
    # Session ids are scoped per user: someone else's id is a fresh one for them, which tells
    # them nothing about whether it exists, and leaves the first user's session as it was.
    mallory = users.create()
    theirs = api.post(
        "/intercept-session", mallory.token, trigger_payload(mallory.id, users.rule(mallory), session_id=sid)
    )
    assert theirs.status == 201, theirs.body
    assert theirs.body["session_id"] == sid
    assert theirs.body["state"] == "awaiting_reason"
    assert row_counts(db, mallory.id)["intercept_sessions"] == 1
    assert row_counts(db, user.id)["intercept_sessions"] == 1
    with db.as_owner() as tx:
        mine = tx.one(
            "SELECT trigger, rule_id FROM public.intercept_sessions"
            " WHERE user_id = CAST(:u AS uuid) AND id = CAST(:s AS uuid)",
            u=user.id,
            s=sid,
        )
    assert mine == {"trigger": "quota_exceeded", "rule_id": rule["id"]}
    mine_read = api.get(f"/intercept-session/{sid}", user.token)
    assert (mine_read.status, mine_read.body["app_identifier"]) == (200, rule["app_identifier"])


def test_a_retried_start_returns_the_same_session(api, alice, db):
    user, rule = alice
    payload = trigger_payload(user.id, rule, session_id=str(uuid.uuid4()))
    first = api.post("/intercept-session", user.token, payload)
    again = api.post("/intercept-session", user.token, payload)
    assert (first.status, again.status) == (201, 200)
    assert again.body == first.body
    assert row_counts(db, user.id)["intercept_sessions"] == 1


@pytest.mark.parametrize(
    ("action", "code", "state"),
    [
        ("appeal_before_reason", "no_verdict_to_appeal", "awaiting_reason"),
        ("override_before_reason", "no_verdict_yet", "awaiting_reason"),
        ("second_reason", "reason_already_submitted", "awaiting_decision"),
        ("reason_after_close", "session_closed", "closed"),
        ("accept_delay_after_deny", "delay_not_offered", "awaiting_decision"),
    ],
)
def test_wrong_state_actions_are_409_naming_the_state(api, alice, db, action, code, state):
    user, rule = alice
    sid = start(api, user, rule)
    if action == "appeal_before_reason":
        reply = api.post(f"/intercept-session/{sid}/appeal", user.token, {"appeal_text": BORED})
    elif action == "override_before_reason":
        reply = decide(api, user, sid, "override")
    elif action == "second_reason":
        reason(api, user, sid, BORED)
        reply = reason(api, user, sid, "换个理由再试一次，看看行不行")
    elif action == "reason_after_close":
        decide(api, user, sid, "comply", auto_dismissed=True)
        reply = reason(api, user, sid, BORED)
    else:
        reason(api, user, sid, "就是想看看有什么好玩的东西")
        reply = decide(api, user, sid, "comply", accepted_delay=True)
    assert reply.status == 409
    assert reply.error["code"] == code
    assert reply.error["state"] == state
    with db.as_owner() as tx:
        assert (
            tx.one("SELECT state FROM public.intercept_sessions WHERE id = CAST(:s AS uuid)", s=sid)["state"]
            == state
        )


def _expired(user_id):
    return make_token(user_id, TEST_JWT_SECRET, ttl=-3600)


@pytest.mark.parametrize(
    "token",
    [
        lambda user: None,
        lambda user: "garbage",
        _expired,
        lambda user: make_token(user, "a-different-secret-that-is-long-enough-to-use"),
        lambda user: make_token(user, TEST_JWT_SECRET, aud="anon"),
    ],
)
def test_missing_invalid_or_expired_tokens_are_401(api, alice, db, token):
    user, rule = alice
    reply = api.post("/intercept-session", token(user.id), trigger_payload(user.id, rule))
    assert reply.status == 401
    assert reply.error["code"] == "unauthorized"
    assert reply.headers.get("www-authenticate") == "Bearer"
    assert row_counts(db, user.id)["intercept_sessions"] == 0


def test_a_payload_user_id_that_is_not_the_token_subject_is_403(api, alice, users, db):
    user, rule = alice
    other = users.create()
    reply = api.post("/intercept-session", other.token, trigger_payload(user.id, rule))
    assert reply.status == 403
    assert reply.error["field"] == "user_id"
    assert row_counts(db, user.id)["intercept_sessions"] == 0


def test_every_route_requires_a_token(api, alice):
    user, rule = alice
    sid = start(api, user, rule)
    for method, path in [
        ("GET", f"/intercept-session/{sid}"),
        ("POST", f"/intercept-session/{sid}/reason"),
        ("POST", f"/intercept-session/{sid}/appeal"),
        ("POST", f"/intercept-session/{sid}/decision"),
    ]:
        assert api.request(method, path, None, {}).status == 401


def test_a_token_issued_now_works_immediately(api, alice):
    user, rule = alice
    fresh = make_token(user.id, TEST_JWT_SECRET, iat=int(time.time()))
    assert api.post("/intercept-session", fresh, trigger_payload(user.id, rule)).status == 201


@pytest.mark.parametrize("raw", ["{not json", "", '{"user_id": 42}', b'{"user_id": "\xff"}'])
def test_an_unauthenticated_request_gets_401_before_its_body_is_judged(api, raw):
    reply = api.post("/intercept-session", None, raw_body=raw)
    assert reply.status == 401
    assert reply.error["code"] == "unauthorized"
    forged = api.post("/intercept-session", "not-a-token", raw_body=raw)
    assert forged.status == 401
