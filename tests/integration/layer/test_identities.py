"""Caller identities (docs/architecture.md, "Who may call which route"), through the Lambda handler
with real API Gateway v2 events: a service-role JWT naming a `user_id` acts exactly as that user,
row-level security included; a user's JWT acts for its own `sub` only."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.api import ApiClient, trigger_payload
from tests.support.dialog import BORED, reason, start
from tests.support.fixtures import TEST_JWT_SECRET
from tests.support.users import AppUser, UserFactory, service_token

SERVICE = service_token(TEST_JWT_SECRET)


@pytest.fixture
def two_users(api: ApiClient, users: UserFactory) -> tuple[AppUser, str, AppUser, str]:
    """Alice and Bob, each with one open session of their own."""
    alice, bob = users.create(), users.create()
    return alice, start(api, alice, users.rule(alice)), bob, start(api, bob, users.rule(bob))


def stored_session(db: Any, session_id: str) -> dict[str, Any]:
    with db.as_owner() as tx:
        row = tx.one("SELECT * FROM public.intercept_sessions WHERE id = CAST(:s AS uuid)", s=session_id)
    assert row is not None
    return row


# -- a service-role caller acts as the user it names ---------------------------------------------


def test_a_service_caller_sees_the_named_users_session(api, two_users):
    alice, alice_sid, _, _ = two_users

    reply = api.get(f"/intercept-session/{alice_sid}?user_id={alice.id}", SERVICE)

    assert reply.status == 200, reply.body
    assert reply.body["session_id"] == alice_sid
    assert reply.body["state"] == "awaiting_reason"
    # The same answer the user gets with their own token.
    assert reply.body == api.get(f"/intercept-session/{alice_sid}", alice.token).body


def test_a_service_caller_acting_for_one_user_cannot_see_anothers_session(api, two_users):
    alice, _, _, bob_sid = two_users

    reply = api.get(f"/intercept-session/{bob_sid}?user_id={alice.id}", SERVICE)

    # RLS applies exactly as for Alice: Bob's session does not exist for her.
    assert reply.status == 404, reply.body
    assert reply.error["code"] == "session_not_found"


@pytest.mark.parametrize("route", ["reason", "appeal", "decision"])
def test_every_write_route_is_confined_to_the_named_user(api, db, two_users, route):
    alice, _, _, bob_sid = two_users
    bodies = {
        "reason": {"reason_text": BORED},
        "appeal": {"appeal_text": BORED},
        "decision": {"user_decision": "comply"},
    }

    reply = api.post(f"/intercept-session/{bob_sid}/{route}?user_id={alice.id}", SERVICE, bodies[route])

    assert reply.status == 404, reply.body
    assert stored_session(db, bob_sid)["state"] == "awaiting_reason"


def test_a_service_caller_runs_a_turn_and_a_decision_as_the_user(api, db, two_users):
    alice, alice_sid, _, _ = two_users

    turn = api.post(
        f"/intercept-session/{alice_sid}/reason?user_id={alice.id}", SERVICE, {"reason_text": BORED}
    )
    decided = api.post(
        f"/intercept-session/{alice_sid}/decision?user_id={alice.id}", SERVICE, {"user_decision": "comply"}
    )

    assert turn.status == 200, turn.body
    assert decided.status == 200, decided.body
    with db.as_owner() as tx:
        owners = {
            table: {
                str(row["user_id"])
                for row in tx.rows(
                    f"SELECT user_id FROM public.{table} WHERE {column} = CAST(:s AS uuid)", s=alice_sid
                )
            }
            for table, column in (
                ("intercept_turns", "session_id"),
                ("analytics_events", "subject_id"),
                ("intercept_sessions", "id"),
            )
        }
    # Every row the service wrote is Alice's own (auth.uid() was hers).
    assert owners == {table: {alice.id} for table in owners}
    # ... and Alice reads it with her own token.
    resumed = api.get(f"/intercept-session/{alice_sid}", alice.token)
    assert [t["ai_verdict"] for t in resumed.body["turns"]] == [turn.body["ai_verdict"]]
    assert resumed.body["state"] == "closed"


def test_a_service_caller_starts_a_session_for_the_bodys_user(api, db, users):
    alice = users.create()
    rule = users.rule(alice)

    reply = api.post("/intercept-session", SERVICE, trigger_payload(alice.id, rule))

    assert reply.status == 201, reply.body
    assert str(stored_session(db, reply.body["session_id"])["user_id"]) == alice.id
    assert api.get(f"/intercept-session/{reply.body['session_id']}", alice.token).status == 200


def test_a_service_caller_cannot_start_on_another_users_rule(api, db, users):
    alice, bob = users.create(), users.create()
    bobs_rule = users.rule(bob)

    # Acting for Alice, Bob's rule is invisible: the same 404 Alice herself would get.
    reply = api.post("/intercept-session", SERVICE, trigger_payload(alice.id, bobs_rule))

    assert reply.status == 404, reply.body
    assert reply.error["code"] == "rule_not_found"


# -- a service-role caller must name the user ----------------------------------------------------


@pytest.mark.parametrize(
    ("method", "route", "body"),
    [
        ("GET", "", None),
        ("POST", "/reason", {"reason_text": BORED}),
        ("POST", "/appeal", {"appeal_text": BORED}),
        ("POST", "/decision", {"user_decision": "comply"}),
    ],
)
def test_a_service_caller_without_user_id_gets_422_naming_the_field(api, db, two_users, method, route, body):
    _, alice_sid, _, _ = two_users

    reply = api.request(method, f"/intercept-session/{alice_sid}{route}", SERVICE, body)

    assert reply.status == 422, reply.body
    assert reply.error["field"] == "user_id"
    assert reply.error["code"] == "user_id_required"
    assert stored_session(db, alice_sid)["state"] == "awaiting_reason"


def test_a_service_caller_naming_no_valid_user_id_gets_422(api, two_users):
    _, alice_sid, _, _ = two_users

    reply = api.get(f"/intercept-session/{alice_sid}?user_id=not-a-uuid", SERVICE)

    assert reply.status == 422, reply.body
    assert reply.error["field"] == "user_id"


def test_a_service_caller_naming_an_unknown_user_sees_nothing(api, two_users):
    _, alice_sid, _, _ = two_users
    nobody = "00000000-0000-4000-8000-00000000dead"

    assert api.get(f"/intercept-session/{alice_sid}?user_id={nobody}", SERVICE).status == 404


def test_a_service_token_signed_with_another_secret_is_401(api, two_users):
    alice, alice_sid, _, _ = two_users
    forged = service_token("another-secret-that-is-at-least-32-characters")

    reply = api.get(f"/intercept-session/{alice_sid}?user_id={alice.id}", forged)

    assert reply.status == 401
    assert reply.error["code"] == "unauthorized"


# -- a user's token acts for its own sub only -----------------------------------------------------


def test_a_user_naming_another_user_gets_403(api, two_users):
    alice, alice_sid, bob, bob_sid = two_users

    for path in (f"/intercept-session/{alice_sid}", f"/intercept-session/{bob_sid}"):
        reply = api.get(f"{path}?user_id={bob.id}", alice.token)
        assert reply.status == 403, reply.body
        assert reply.error["code"] == "user_mismatch"
    turn = api.post(
        f"/intercept-session/{alice_sid}/reason?user_id={bob.id}", alice.token, {"reason_text": BORED}
    )
    assert turn.status == 403, turn.body


def test_a_user_naming_themselves_is_fine(api, two_users):
    alice, alice_sid, _, _ = two_users

    assert api.get(f"/intercept-session/{alice_sid}?user_id={alice.id}", alice.token).status == 200
    assert reason(api, alice, alice_sid).status == 200


def test_a_user_starting_a_session_for_another_user_gets_403(api, db, users):
    alice, bob = users.create(), users.create()
    bobs_rule = users.rule(bob)

    reply = api.post("/intercept-session", alice.token, trigger_payload(bob.id, bobs_rule))

    assert reply.status == 403, reply.body
    assert reply.error["code"] == "user_mismatch"
    with db.as_owner() as tx:
        count = tx.one(
            "SELECT count(*) AS n FROM public.intercept_sessions WHERE user_id = CAST(:u AS uuid)", u=bob.id
        )
    assert count["n"] == 0
