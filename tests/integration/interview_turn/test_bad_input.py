"""Bad input: a 4xx JSON error naming the field or the state, never a 500, and never a half-written
row. After each refusal the narrator's stored rows are counted again: nothing may have changed."""

from __future__ import annotations

import uuid

import pytest

from tests.integration.interview_turn.helpers import (
    CONCRETE,
    SESSIONS,
    STOP,
    post_turn,
    row_counts,
    start,
    start_body,
    stored_session,
    take,
)


@pytest.fixture
def opened(api, users, db):
    """A narrator with an open session (the opening turn stored) and what is stored for them."""
    narrator = users.create()
    sid = start(api, narrator)["session_id"]
    return narrator, sid, row_counts(db, narrator.id)


def _assert_error(reply, status: int, code: str | None = None, *, field=None, state=None) -> None:
    assert reply.status == status, reply.body
    error = reply.error
    assert isinstance(error["message"], str)
    assert error["message"]
    if code is not None:
        assert error["code"] == code
    if field is not None:
        assert error["field"] == field
    if state is not None:
        assert error["state"] == state


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"user_text": ""}, "user_text"),
        ({"user_text": "   \n\t  "}, "user_text"),
        ({"user_text": "\u200b\u200b"}, "user_text"),
        ({"user_text": "We moved\x07 to Boston."}, "user_text"),
        ({"user_text": "We moved\x00 to Boston."}, "user_text"),
        ({"user_text": "We moved\x1b[31m to Boston."}, "user_text"),
        ({"user_text": "a" * 4001}, "user_text"),
        ({"user_text": "长" * 4001}, "user_text"),
        ({"user_text": None}, "user_text"),
        ({"user_text": 42}, "user_text"),
        ({}, "user_text"),
        ({"user_text": "We moved to Boston.", "mood": "happy"}, "mood"),
        ({"user_text": "We moved to Boston.", "topic_id": "Bad Topic"}, "topic_id"),
        ({"user_text": "We moved to Boston.", "topic_id": ""}, "topic_id"),
        ({"user_text": "We moved to Boston.", "consent": "yes"}, "consent"),
        ({"user_text": "We moved to Boston.", "consent": {"go_deeper": True, "always": True}}, "consent"),
    ],
    ids=[
        "empty",
        "whitespace",
        "invisible-only",
        "bell",
        "nul",
        "escape",
        "4001-latin",
        "4001-cjk",
        "null",
        "number",
        "missing",
        "unknown-field",
        "bad-topic-slug",
        "empty-topic",
        "consent-string",
        "consent-unknown-field",
    ],
)
def test_a_bad_turn_is_a_422_naming_the_field_and_writes_nothing(api, db, opened, body, field):
    narrator, sid, before = opened
    reply = api.post(f"{SESSIONS}/{sid}/turns", narrator.token, body)
    assert reply.status == 422, reply.body
    assert reply.error["field"].split(".")[0] == field
    assert row_counts(db, narrator.id) == before
    assert stored_session(db, sid)["turn_count"] == 0


def test_an_answer_of_exactly_4000_characters_is_taken(api, db, opened):
    narrator, sid, before = opened
    body = take(api, narrator, sid, ("We lived by the harbour. " * 200)[:4000])
    assert body["turn"]["turn_no"] == 1
    assert row_counts(db, narrator.id)["turns"] == before["turns"] + 1


@pytest.mark.parametrize(
    ("raw", "status", "code"),
    [
        ("{not json", 400, "invalid_json"),
        ('{"user_text": "We moved to Boston."', 400, "invalid_json"),
        (b'{"user_text": "\xff\xfe"}', 400, "invalid_json"),
        ("", 400, "missing_body"),
        ("[1, 2]", 422, "validation_error"),
        ('"We moved to Boston."', 422, "validation_error"),
    ],
    ids=["garbage", "truncated", "not-utf8", "empty", "array", "bare-string"],
)
def test_a_turn_body_that_is_not_a_json_object_is_refused(api, db, opened, raw, status, code):
    narrator, sid, before = opened
    reply = api.post(f"{SESSIONS}/{sid}/turns", narrator.token, raw_body=raw)
    _assert_error(reply, status, code)
    assert row_counts(db, narrator.id) == before


@pytest.mark.parametrize(
    ("raw", "status", "code"),
    [("{not json", 400, "invalid_json"), ("", 400, "missing_body"), ("[]", 422, "validation_error")],
    ids=["garbage", "empty", "array"],
)
def test_a_start_body_that_is_not_a_json_object_is_refused(api, users, db, raw, status, code):
    narrator = users.create()
    reply = api.post(SESSIONS, narrator.token, raw_body=raw)
    _assert_error(reply, status, code)
    assert row_counts(db, narrator.id)["sessions"] == 0


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"language": "fr"}, "language"),
        ({"language": "EN"}, "language"),
        ({"language": None}, "language"),
        ({"locale": "en_US"}, "locale"),
        ({"locale": "english"}, "locale"),
        ({"locale": "en-us"}, "locale"),
        ({"locale": "EN-US"}, "locale"),
        ({"narrator": None}, "narrator"),
        ({"narrator": {"display_name": ""}}, "narrator.display_name"),
        ({"narrator": {"display_name": "   "}}, "narrator.display_name"),
        ({"narrator": {"display_name": "Mar\x07garet"}}, "narrator.display_name"),
        ({"narrator": {"display_name": "M" * 61}}, "narrator.display_name"),
        ({"narrator": {"display_name": "Margaret", "age": 80}}, "narrator.age"),
        ({"mood": "happy"}, "mood"),
        (
            {
                "topic_plan": [
                    {"topic_id": "childhood", "title": "your childhood"},
                    {"topic_id": "childhood", "title": "your childhood again"},
                ]
            },
            "topic_plan",
        ),
        ({"topic_plan": [{"topic_id": "Childhood Home", "title": "home"}]}, "topic_plan[0].topic_id"),
        ({"topic_plan": [{"topic_id": "home", "title": ""}]}, "topic_plan[0].title"),
        ({"topic_plan": [{"topic_id": "home", "title": "home", "max_depth": 4}]}, "topic_plan[0].max_depth"),
        ({"topic_plan": [{"topic_id": "home", "title": "home", "max_depth": -1}]}, "topic_plan[0].max_depth"),
        ({"topic_plan": [{"topic_id": "home", "title": "home", "weight": 2}]}, "topic_plan[0].weight"),
        (
            {"topic_plan": [{"topic_id": f"topic_{n}", "title": f"topic {n}"} for n in range(21)]},
            "topic_plan",
        ),
        ({"consent": {"sensitive_topics": "yes"}}, "consent.sensitive_topics"),
        ({"consent": {"sensitive_topics": True, "go_deeper": True}}, "consent.go_deeper"),
        ({"user_id": "not-a-uuid"}, "user_id"),
    ],
)
def test_a_bad_start_is_a_422_naming_the_field_and_starts_nothing(api, users, db, change, field):
    narrator = users.create()
    body = start_body()
    body.update(change)
    body = {name: value for name, value in body.items() if value is not None}
    reply = api.post(SESSIONS, narrator.token, body)
    assert reply.status == 422, reply.body
    assert reply.error["field"] == field
    assert row_counts(db, narrator.id) == {"sessions": 0, "turns": 0, "records": 0, "turn_counts": 0}


def test_an_unknown_session_is_404_for_a_turn_and_a_read(api, users, db, opened):
    narrator, _, before = opened
    unknown = str(uuid.uuid4())
    turn = post_turn(api, narrator.token, unknown, CONCRETE)
    _assert_error(turn, 404, "session_not_found", field="session_id")
    read = api.get(f"{SESSIONS}/{unknown}", narrator.token)
    _assert_error(read, 404, "session_not_found", field="session_id")
    assert row_counts(db, narrator.id) == before


def test_a_session_id_that_is_not_a_uuid_names_the_field(api, opened):
    narrator, _, _ = opened
    reply = post_turn(api, narrator.token, "not-a-session", CONCRETE)
    _assert_error(reply, 422, field="session_id")
    assert api.get(f"{SESSIONS}/not-a-session", narrator.token).error["field"] == "session_id"


def test_another_narrators_session_reads_exactly_like_an_unknown_one(api, users, db, opened):
    owner, sid, before = opened
    intruder = users.create()
    unknown = str(uuid.uuid4())

    def anonymized(reply, session_id):
        assert reply.status == 404, reply.body
        return {k: str(v).replace(session_id, "<id>") for k, v in reply.error.items()}

    foreign_turn = post_turn(api, intruder.token, sid, CONCRETE)
    unknown_turn = post_turn(api, intruder.token, unknown, CONCRETE)
    assert anonymized(foreign_turn, sid) == anonymized(unknown_turn, unknown)
    foreign_read = api.get(f"{SESSIONS}/{sid}", intruder.token)
    unknown_read = api.get(f"{SESSIONS}/{unknown}", intruder.token)
    assert anonymized(foreign_read, sid) == anonymized(unknown_read, unknown)
    keyed = post_turn(api, intruder.token, sid, CONCRETE, key="intruder-key")
    assert anonymized(keyed, sid) == anonymized(unknown_turn, unknown)
    assert row_counts(db, owner.id) == before
    assert row_counts(db, intruder.id) == {"sessions": 0, "turns": 0, "records": 0, "turn_counts": 0}


def test_a_turn_on_a_closed_session_is_409_session_closed(api, db, opened):
    narrator, sid, _ = opened
    stopped = take(api, narrator, sid, STOP)
    assert stopped["turn"]["session_status"] == "closed"
    closed = row_counts(db, narrator.id)
    for reply in (
        post_turn(api, narrator.token, sid, CONCRETE),
        post_turn(api, narrator.token, sid, CONCRETE, key="after-close"),
        post_turn(api, narrator.token, sid, "Let me go on about my first job.", topic_id="first_job"),
    ):
        _assert_error(reply, 409, "session_closed", state="closed")
    assert row_counts(db, narrator.id) == closed
    assert stored_session(db, sid)["status"] == "closed"


def test_an_unknown_topic_is_422_when_the_session_has_a_plan(api, db, opened):
    narrator, sid, before = opened
    reply = post_turn(api, narrator.token, sid, CONCRETE, topic_id="military_service")
    _assert_error(reply, 422, "unknown_topic", field="topic_id")
    assert row_counts(db, narrator.id) == before
    # A planned topic is fine.
    assert take(api, narrator, sid, CONCRETE, topic_id="first_job")["topic_id"] == "first_job"


def test_a_session_without_a_plan_accepts_a_new_topic(api, users):
    narrator = users.create()
    sid = start(api, narrator, topic_plan=[])["session_id"]
    assert take(api, narrator, sid, CONCRETE, topic_id="military_service")["topic_id"] == "military_service"


def test_a_turn_key_reused_with_a_different_body_is_409_and_writes_nothing(api, db, opened):
    narrator, sid, _ = opened
    take(api, narrator, sid, CONCRETE, key="turn-key-1")
    after_first = row_counts(db, narrator.id)
    for changed in (
        {"text": "We moved to Chicago in 1990."},
        {"text": CONCRETE, "consent": True},
        {"text": CONCRETE, "topic_id": "first_job"},
    ):
        text = changed.pop("text")
        reply = post_turn(api, narrator.token, sid, text, key="turn-key-1", **changed)
        _assert_error(reply, 409, "idempotency_key_reused", field="Idempotency-Key")
    assert row_counts(db, narrator.id) == after_first


def test_a_start_key_reused_with_a_different_body_is_409_and_starts_nothing(api, users, db):
    narrator = users.create()
    key = {"Idempotency-Key": "start-key-1"}
    assert api.post(SESSIONS, narrator.token, start_body(), headers=key).status == 201
    before = row_counts(db, narrator.id)
    reply = api.post(SESSIONS, narrator.token, start_body(language="zh"), headers=key)
    _assert_error(reply, 409, "idempotency_key_reused", field="Idempotency-Key")
    assert row_counts(db, narrator.id) == before


@pytest.mark.parametrize("key", ["", "k" * 201])
def test_an_idempotency_key_out_of_bounds_names_the_header(api, db, opened, key):
    narrator, sid, before = opened
    reply = api.post(
        f"{SESSIONS}/{sid}/turns", narrator.token, {"user_text": CONCRETE}, headers={"Idempotency-Key": key}
    )
    _assert_error(reply, 422, field="Idempotency-Key")
    assert row_counts(db, narrator.id) == before
