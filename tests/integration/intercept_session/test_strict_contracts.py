"""Issue 11, item 6: the contract is strict. Every trigger field is required and unknown fields
are named; a body over 16 KB is refused before parsing; `timestamp` is RFC 3339 with an offset
and within 24 hours; session ids are scoped per user; claims that are not valid text get 401; and
a dialog's times never run backwards."""

from __future__ import annotations

import json
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest

from tests.integration.intercept_session.v2_helpers import (
    completed_events,
    end_window,
    new_dialog,
    payload,
    session_row,
    stamp,
    start_reply,
)
from tests.support.dialog import BORED, decide, reason, row_counts
from tests.support.fixtures import TEST_JWT_SECRET
from tests.support.users import make_token, service_token

LIMIT = 16 * 1024
TRIGGER_FIELDS = [
    "user_id",
    "rule_id",
    "app_identifier",
    "app_display_name",
    "trigger",
    "timestamp",
    "persona_key",
    "streak",
    "override_count_today",
]
# Powertools keeps one metrics buffer per process (Lambda runs one invocation at a time); threads
# here share it, so one may flush another's metrics and leave its own flush empty.
pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")


@pytest.fixture
def alice(users):
    user = users.create()
    return user, users.rule(user)


# --- every field required, unknown fields named ---------------------------------------------


@pytest.mark.parametrize("field", TRIGGER_FIELDS)
def test_every_trigger_field_is_required(api, alice, db, field):
    user, rule = alice
    body = payload(user, rule)
    del body[field]
    reply = api.post("/intercept-session", user.token, body)
    assert reply.status == 422, reply.body
    assert reply.error["field"] == field
    assert row_counts(db, user.id)["intercept_sessions"] == 0


def test_the_session_id_alone_is_optional(api, alice):
    user, rule = alice
    body = payload(user, rule)
    del body["session_id"]
    reply = api.post("/intercept-session", user.token, body)
    assert reply.status == 201, reply.body
    uuid.UUID(reply.body["session_id"])


def test_unknown_fields_are_refused_and_all_named(api, alice, db):
    user, rule = alice
    body = {**payload(user, rule), "is_premium": True, "unlock": "forever", "debug": {"x": 1}}
    reply = api.post("/intercept-session", user.token, body)
    assert reply.status == 422, reply.body
    assert reply.error["code"] == "validation_error"
    for name in ("is_premium", "unlock", "debug"):
        assert name in reply.error["message"]
    assert reply.error["field"] in {"is_premium", "unlock", "debug"}
    named = {entry["field"] for entry in reply.body["error"]["fields"] if entry["message"] == "unknown field"}
    assert named == {"is_premium", "unlock", "debug"}
    assert row_counts(db, user.id)["intercept_sessions"] == 0


@pytest.mark.parametrize(
    ("route", "body"),
    [
        ("reason", {"reason_text": BORED, "confidence": 1}),
        ("appeal", {"appeal_text": BORED, "force": True}),
        ("decision", {"user_decision": "comply", "unlock_minutes": 600}),
    ],
)
def test_unknown_fields_are_refused_on_every_route(api, alice, route, body):
    user, rule = alice
    sid = new_dialog(api, user, rule)["session_id"]
    if route == "appeal":
        reason(api, user, sid, BORED)
    reply = api.post(f"/intercept-session/{sid}/{route}", user.token, body)
    assert reply.status == 422, reply.body
    (unknown,) = set(body) - {"reason_text", "appeal_text", "user_decision"}
    assert reply.error["field"] == unknown
    assert unknown in reply.error["message"]


# --- 16 KB -------------------------------------------------------------------------------------


def padded(body: dict, size: int) -> bytes:
    """The JSON body followed by whitespace (still valid JSON) up to exactly `size` bytes."""
    raw = json.dumps(body, ensure_ascii=False).encode()
    assert len(raw) <= size
    return raw + b" " * (size - len(raw))


def test_a_body_of_exactly_16_kb_is_fine(api, alice):
    user, rule = alice
    reply = api.post("/intercept-session", user.token, raw_body=padded(payload(user, rule), LIMIT))
    assert reply.status == 201, reply.body


def test_one_byte_more_is_413(api, alice, db):
    user, rule = alice
    reply = api.post("/intercept-session", user.token, raw_body=padded(payload(user, rule), LIMIT + 1))
    assert reply.status == 413, reply.body
    assert reply.error["code"] == "body_too_large"
    assert row_counts(db, user.id)["intercept_sessions"] == 0


def test_a_megabyte_of_unknown_fields_is_413_not_a_validation(api, alice, db):
    user, rule = alice
    body = {**payload(user, rule), **{f"junk_{n}": "x" * 100 for n in range(10_000)}}
    raw = json.dumps(body).encode()
    assert len(raw) > 1_000_000
    reply = api.post("/intercept-session", user.token, raw_body=raw)
    assert reply.status == 413, reply.body
    assert reply.error["code"] == "body_too_large"
    assert "junk_" not in json.dumps(reply.body)
    assert row_counts(db, user.id)["intercept_sessions"] == 0


@pytest.mark.parametrize(
    "raw", [b"{" * 1_000_000, b"\xff" * (LIMIT + 1), b'{"reason_text": "' + "长".encode() * 6000 + b'"}']
)
def test_an_oversized_body_is_refused_before_it_is_parsed(api, alice, raw):
    """Not JSON, not UTF-8, or JSON nested a million deep: parsing it would answer 400; the limit
    answers first."""
    user, rule = alice
    sid = new_dialog(api, user, rule)["session_id"]
    for path in (
        "/intercept-session",
        f"/intercept-session/{sid}/reason",
        f"/intercept-session/{sid}/decision",
    ):
        reply = api.post(path, user.token, raw_body=raw)
        assert reply.status == 413, (path, reply.body)
        assert reply.error["code"] == "body_too_large"


# --- timestamp -----------------------------------------------------------------------------------

NOW = datetime.now(UTC)


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(int(NOW.timestamp()), id="a-number"),
        pytest.param(NOW.timestamp(), id="a-float"),
        pytest.param(str(int(NOW.timestamp())), id="a-numeric-string"),
        pytest.param("1795400000", id="the-issues-numeric-string"),
        pytest.param(NOW.replace(tzinfo=None).isoformat(), id="no-offset"),
        pytest.param(NOW.date().isoformat(), id="a-date"),
        pytest.param(NOW.strftime("%Y-%m-%dT%H:%M:%S+0800"), id="offset-without-colon"),
        pytest.param("0001-01-01T00:00:00Z", id="year-0001"),
        pytest.param("0001-01-01T00:00:00+14:00", id="year-0001-east"),
        pytest.param("9999-12-31T23:59:59Z", id="year-9999"),
        pytest.param("9999-12-31T23:59:59-12:00", id="year-9999-west"),
        pytest.param((NOW - timedelta(hours=25)).isoformat(), id="25h-in-the-past"),
        pytest.param((NOW + timedelta(hours=25)).isoformat(), id="25h-in-the-future"),
        pytest.param(stamp(480, shift=timedelta(hours=-25)), id="25h-in-the-past-beijing"),
        pytest.param(None, id="null"),
        pytest.param("", id="empty"),
    ],
)
def test_a_timestamp_that_is_not_rfc3339_with_an_offset_within_24h_is_422(api, alice, db, value):
    user, rule = alice
    reply = api.post("/intercept-session", user.token, payload(user, rule, timestamp=value))
    assert reply.status == 422, reply.body
    assert reply.error["field"] == "timestamp"
    assert row_counts(db, user.id)["intercept_sessions"] == 0


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(stamp(0, shift=timedelta(hours=-23)), id="23h-in-the-past"),
        pytest.param(stamp(0, shift=timedelta(hours=23)), id="23h-in-the-future"),
        pytest.param(stamp(-720, shift=timedelta(hours=23)), id="23h-ahead-at-minus-12"),
        pytest.param(stamp(840, shift=timedelta(hours=-23)), id="23h-behind-at-plus-14"),
        pytest.param(datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), id="zulu"),
        pytest.param(datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.123456789+00:00"), id="nanoseconds"),
    ],
)
def test_a_timestamp_within_24h_is_fine(api, alice, value):
    user, rule = alice
    reply = api.post("/intercept-session", user.token, payload(user, rule, timestamp=value))
    assert reply.status == 201, reply.body


# --- session ids scoped per user -----------------------------------------------------------------


def test_another_users_session_id_behaves_exactly_like_a_fresh_one(api, users, db):
    alice, bob, carol = users.create(), users.create(), users.create()
    alice_rule = users.rule(alice)
    bob_rule = users.rule(bob, app_identifier="tv.danmaku.bili", app_display_name="哔哩哔哩")
    shared = str(uuid.uuid4())
    assert start_reply(api, alice, alice_rule, session_id=shared).status == 201

    bobs = start_reply(api, bob, bob_rule, session_id=shared)

    assert bobs.status == 201, bobs.body
    assert bobs.body["session_id"] == shared
    assert "哔哩哔哩" in bobs.body["challenge_message"]
    assert bobs.body["counts"]["opens_today"] == 1
    # Each sees their own session under the id, and nothing of the other's.
    assert api.get(f"/intercept-session/{shared}", bob.token).body["app_display_name"] == "哔哩哔哩"
    assert decide(api, bob, shared, "comply", auto_dismissed=True).status == 200
    alices = api.get(f"/intercept-session/{shared}", alice.token).body
    assert (alices["app_display_name"], alices["state"]) == ("抖音", "awaiting_reason")
    assert session_row(db, alice, shared)["state"] == "awaiting_reason"
    assert session_row(db, bob, shared)["state"] == "closed"
    assert len(completed_events(db, bob, shared)) == 1
    assert completed_events(db, alice, shared) == []

    # A third user learns nothing: the used id answers exactly like one never used.
    never = str(uuid.uuid4())
    for method, route, body in (
        ("GET", "", None),
        ("POST", "/reason", {"reason_text": BORED}),
        ("POST", "/appeal", {"appeal_text": BORED}),
        ("POST", "/decision", {"user_decision": "emergency"}),
    ):
        used = api.request(method, f"/intercept-session/{shared}{route}", carol.token, body)
        unused = api.request(method, f"/intercept-session/{never}{route}", carol.token, body)
        assert (used.status, unused.status) == (404, 404), route
        assert used.error["code"] == unused.error["code"] == "session_not_found"
        assert used.error["message"].replace(shared, "ID") == unused.error["message"].replace(never, "ID")
    assert session_row(db, alice, shared)["state"] == "awaiting_reason"


def test_the_same_users_id_still_settles_retries_and_conflicts(api, alice):
    user, rule = alice
    body = payload(user, rule)
    assert api.post("/intercept-session", user.token, body).status == 201
    retry = api.post("/intercept-session", user.token, body)
    assert retry.status == 200
    assert retry.body["session_id"] == body["session_id"]
    conflict = api.post("/intercept-session", user.token, {**body, "trigger": "blocked_window"})
    assert conflict.status == 409
    assert conflict.error["code"] == "session_id_conflict"


# --- claims that are not valid text --------------------------------------------------------------

HOSTILE = [
    pytest.param({"sub_suffix": "\u0000"}, id="nul-in-sub"),
    pytest.param({"sub_suffix": "\ud800"}, id="surrogate-in-sub"),
    pytest.param({"role": "authenticated\u0000"}, id="nul-in-role"),
    pytest.param({"role": "\ud800"}, id="surrogate-in-role"),
    pytest.param({"email": "a\u0000@example.test"}, id="nul-in-a-claim"),
    pytest.param({"email": "\udc00@example.test"}, id="low-surrogate-in-a-claim"),
    pytest.param({"app_metadata": {"provider": "email\u0000"}}, id="nul-nested"),
    pytest.param({"user_metadata": {"names": ["Ann", {"nick": "\ud83d"}]}}, id="surrogate-nested-in-a-list"),
    pytest.param({"user_metadata": {"\u0000": 1}}, id="nul-in-a-key"),
    pytest.param({"\ud800": True}, id="surrogate-as-a-claim-name"),
]


def hostile_token(user, claims: dict) -> str:
    claims = dict(claims)
    sub = user.id + claims.pop("sub_suffix", "")
    return make_token(sub, TEST_JWT_SECRET, **claims)


@pytest.mark.parametrize("claims", HOSTILE)
def test_claims_that_are_not_valid_text_get_401_on_every_route(api, alice, db, claims):
    user, rule = alice
    sid = new_dialog(api, user, rule)["session_id"]
    token = hostile_token(user, claims)
    calls = [
        ("POST", "/intercept-session", payload(user, rule)),
        ("GET", f"/intercept-session/{sid}", None),
        ("POST", f"/intercept-session/{sid}/reason", {"reason_text": BORED}),
        ("POST", f"/intercept-session/{sid}/appeal", {"appeal_text": BORED}),
        ("POST", f"/intercept-session/{sid}/decision", {"user_decision": "emergency"}),
    ]
    for method, path, body in calls:
        reply = api.request(method, path, token, body)
        assert reply.status == 401, (path, reply.status, reply.body)
        assert reply.error["code"] == "unauthorized"
    assert row_counts(db, user.id) == {"intercept_sessions": 1, "intercept_turns": 0, "analytics_events": 0}


@pytest.mark.parametrize("claims", [{"note": "\u0000"}, {"note": "\ud800"}])
def test_a_service_role_token_with_invalid_text_gets_401(api, alice, claims):
    user, rule = alice
    reply = api.post("/intercept-session", service_token(TEST_JWT_SECRET, **claims), payload(user, rule))
    assert reply.status == 401, reply.body


def test_claims_in_any_real_script_are_fine(api, alice):
    user, rule = alice
    token = make_token(
        user.id, TEST_JWT_SECRET, user_metadata={"name": "王小明 😀", "note": "tab\tand newline\n"}
    )
    assert api.post("/intercept-session", token, payload(user, rule)).status == 201


# --- times that never run backwards --------------------------------------------------------------

RACES = 30


def test_closed_at_is_never_before_the_last_turn_when_a_decision_races_a_reason(api, alice, db):
    """A reason and a decision sent at the same instant (the countdown ends as the user taps
    send), many times: whichever wins, the session closes at or after its last turn, so the
    event's latency is never negative."""
    user, rule = alice
    decisions = [
        {"user_decision": "comply", "auto_dismissed": True},
        {"user_decision": "emergency"},
        {"user_decision": "comply"},
    ]
    sids = []
    for attempt in range(RACES):
        sid = new_dialog(api, user, rule)["session_id"]
        barrier = threading.Barrier(2)
        decision = decisions[attempt % len(decisions)]

        def send_reason(sid=sid, barrier=barrier):
            barrier.wait()
            return reason(api, user, sid, BORED)

        def send_decision(sid=sid, barrier=barrier, decision=decision, lag=(attempt % 10) * 0.004):
            # A reason takes a few milliseconds to evaluate: staggering the decision by 0-36 ms
            # lets either one win, and makes some land while the other is committing.
            barrier.wait()
            time.sleep(lag)
            return api.post(f"/intercept-session/{sid}/decision", user.token, decision)

        with ThreadPoolExecutor(max_workers=2) as pool:
            turn, closed = pool.submit(send_reason), pool.submit(send_decision)
        assert closed.result().status == 200, closed.result().body
        assert turn.result().status in (200, 409), turn.result().body
        end_window(db, user, sid)
        sids.append(sid)

    with db.as_owner() as tx:
        rows = tx.rows(
            "SELECT s.id, s.created_at, s.closed_at, max(t.created_at) AS last_turn, count(t.id) AS turns"
            " FROM public.intercept_sessions s LEFT JOIN public.intercept_turns t"
            "   ON t.user_id = s.user_id AND t.session_id = s.id"
            " WHERE s.user_id = CAST(:u AS uuid) GROUP BY s.id, s.created_at, s.closed_at",
            u=user.id,
        )
    assert len(rows) == RACES
    # Both orders happened: the race was run, not one side always first.
    assert any(row["turns"] for row in rows), "no reason ever got in before the decision"
    assert not all(row["turns"] for row in rows), "every reason got in before the decision"
    for row in rows:
        assert row["closed_at"] is not None
        assert row["closed_at"] >= row["created_at"]
        if row["last_turn"] is not None:
            assert row["closed_at"] >= row["last_turn"], row
    for sid in sids:
        (event,) = completed_events(db, user, sid)
        assert event["properties"]["response_latency_ms"] >= 0
