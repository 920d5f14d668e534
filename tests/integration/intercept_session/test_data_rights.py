"""Data rights, end to end through the Lambda handler and the embedded Postgres: a user exports
and deletes their whole interception history, and raw reasons are purged after the retention
period while everything a weekly summary counts stays (that purge:
test_retention_purge.py).

The database is shared by the whole test session, so every assertion is about this test's own
users; the purge is global by design and is only ever asked about them.
"""

from __future__ import annotations

import base64
import json
import uuid
from datetime import date, datetime, timedelta
from typing import Any

import pytest

from intercept_session import data_rights
from persona_rails.db import DbError
from tests.integration.intercept_session.history_rights import (
    EMERGENCY_REASON,
    HISTORY,
    owner_rows,
    summarize,
)
from tests.support.api import ApiClient, Reply, load_event, trigger_payload
from tests.support.dialog import OTHER, WORK_APPEAL, appeal, decide, reason, start
from tests.support.fixtures import TEST_JWT_SECRET
from tests.support.history import add_session, at
from tests.support.users import AppUser, UserFactory, service_token

pytestmark = pytest.mark.integration

# Lambda refuses an answer over 6 MB (the whole JSON it returns, headers and escapes included).
LAMBDA_ANSWER_LIMIT = 6 * 1024 * 1024
# What the owner of the tables sees of a user's history, table by table (no RLS).
HISTORY_TABLES = {
    "sessions": "intercept_sessions",
    "turns": "intercept_turns",
    "events": "analytics_events",
    "decision_records": "decision_records",
    "weekly_summaries": "weekly_summaries",
    "settings": "intercept_user_settings",
    "clock": "intercept_user_clock",
}


def delete(api: ApiClient, token: str, query: str = "") -> Reply:
    return api.request("DELETE", HISTORY + query, token)


def stored(db: Any, user_id: str) -> dict[str, int]:
    with db.as_owner() as tx:
        return {
            kind: int(
                tx.one(
                    f"SELECT count(*) AS n FROM public.{table} WHERE user_id = CAST(:u AS uuid)", u=user_id
                )["n"]
            )
            for kind, table in HISTORY_TABLES.items()
        }


def set_allowance(db: Any, user: AppUser, allowance: int) -> None:
    # Settings are the app's to write, through PostgREST, as `authenticated`.
    with db.transaction("authenticated", user.claims) as tx:
        tx.execute(
            "INSERT INTO public.intercept_user_settings (user_id, emergency_allowance_per_week)"
            " VALUES (CAST(:u AS uuid), :n)",
            u=user.id,
            n=allowance,
        )


def with_history(api: ApiClient, users: UserFactory, db: Any) -> AppUser:
    """A user with one of everything: a dialog with a reason, an appeal and an emergency decision
    (through the API), an unfinished dialog, two seeded past weeks, a summary, settings."""
    user = users.create()
    rule = users.rule(user)
    sid = start(api, user, rule)
    assert reason(api, user, sid, OTHER).status == 200
    assert appeal(api, user, sid, WORK_APPEAL).status == 200
    closed = decide(api, user, sid, "emergency", emergency_reason=EMERGENCY_REASON)
    assert closed.status == 200, closed.body
    # Another app: the emergency left the first one unlocked, and a start there opens no dialog.
    start(api, user, users.rule(user, app_identifier="com.tencent.mm", app_display_name="微信"))
    monday = date(2025, 6, 2)
    add_session(db, user.id, local_start=at(monday, 9), category="work", appeal=True)
    add_session(db, user.id, local_start=at(monday + timedelta(days=8), 21), category="other", decision=None)
    summarize(db, user.id, monday)
    set_allowance(db, user, 5)
    return user


# -- export ------------------------------------------------------------------------------------


def test_the_export_holds_the_whole_history_of_the_caller_and_nothing_of_anyone_else(api, users, db):
    alice, bob = with_history(api, users, db), with_history(api, users, db)

    reply = api.get(HISTORY, alice.token)

    assert reply.status == 200, reply.body
    export = reply.body
    assert export["format_version"] == 1
    assert export["user_id"] == alice.id
    assert export["next_cursor"] is None
    datetime.fromisoformat(export["exported_at"])
    sessions = owner_rows(db, "intercept_sessions", alice.id, "created_at, id")
    assert [s["id"] for s in export["sessions"]] == [str(s["id"]) for s in sessions]
    turns = owner_rows(db, "intercept_turns", alice.id)
    exported_turns = [turn for session in export["sessions"] for turn in session["turns"]]
    assert sorted(t["id"] for t in exported_turns) == sorted(str(t["id"]) for t in turns)
    # Each turn sits under its own session, with every column, its text included.
    for session in export["sessions"]:
        assert all(turn["session_id"] == session["id"] for turn in session["turns"])
    assert OTHER in [t["reason_text"] for t in exported_turns]
    assert WORK_APPEAL in [t["reason_text"] for t in exported_turns]
    decided = next(s for s in export["sessions"] if s["emergency_reason"])
    assert decided["emergency_reason"] == EMERGENCY_REASON
    assert {e["id"] for e in export["events"]} == {
        e["id"] for e in owner_rows(db, "analytics_events", alice.id)
    }
    (completed,) = [e for e in export["events"] if e["name"] == "interception.dialog_completed"]
    assert completed["subject_id"] == decided["id"]
    assert completed["properties"]["emergency_reason"] == EMERGENCY_REASON
    records = owner_rows(db, "decision_records", alice.id)
    assert len(records) == 2
    assert sorted(r["id"] for r in export["decision_records"]) == sorted(str(r["id"]) for r in records)
    assert [w["week_start"] for w in export["weekly_summaries"]] == ["2025-06-02"]
    assert export["settings"]["emergency_allowance_per_week"] == 5
    assert export["clock"]["user_id"] == alice.id
    assert [r["id"] for r in export["rules"]] == [
        str(r["id"]) for r in owner_rows(db, "rules", alice.id, "created_at, id")
    ]
    # Not one of Bob's ids (his user id is in every row of his).
    assert bob.id not in json.dumps(export)


def test_a_service_role_caller_exports_the_user_it_names(api, users, db):
    alice = with_history(api, users, db)
    backend = service_token(TEST_JWT_SECRET)

    as_backend = api.get(f"{HISTORY}?user_id={alice.id}", backend)
    as_alice = api.get(HISTORY, alice.token)

    assert as_backend.status == 200, as_backend.body
    assert as_backend.body["user_id"] == alice.id
    assert as_backend.body["sessions"] == as_alice.body["sessions"]
    unnamed = api.get(HISTORY, backend)
    assert (unnamed.status, unnamed.error["field"]) == (422, "user_id")
    stranger = users.create()
    foreign = api.get(f"{HISTORY}?user_id={stranger.id}", alice.token)
    assert (foreign.status, foreign.error["code"]) == (403, "user_mismatch")


def test_a_long_history_comes_in_pages_that_add_up_to_all_of_it(api, users, db):
    user = users.create()
    monday = date(2025, 9, 1)
    seeded = [
        add_session(db, user.id, local_start=at(monday, 8 + n), category="study", appeal=n % 2 == 0)
        for n in range(5)
    ]
    summarize(db, user.id, monday)

    pages, cursor = [], None
    while True:
        query = "?limit=2" + (f"&cursor={cursor}" if cursor else "")
        reply = api.get(HISTORY + query, user.token)
        assert reply.status == 200, reply.body
        pages.append(reply.body)
        cursor = reply.body["next_cursor"]
        if cursor is None:
            break

    assert [len(page["sessions"]) for page in pages] == [2, 2, 1]
    assert [s["id"] for page in pages for s in page["sessions"]] == seeded
    assert sum(len(s["turns"]) for page in pages for s in page["sessions"]) == 8
    # What is not per session comes once, with the first page.
    assert len(pages[0]["weekly_summaries"]) == 1
    assert all(page["weekly_summaries"] is None and page["rules"] is None for page in pages[1:])


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("?cursor=not-a-cursor", "cursor"),
        ("?cursor=" + "A" * 201, "cursor"),
        (
            "?cursor=" + base64.urlsafe_b64encode(b"v1|2026-11-22T01:30:00+00:00|not-a-uuid").decode(),
            "cursor",
        ),
        (
            "?cursor=" + base64.urlsafe_b64encode(f"v1|2026-11-22T01:30:00|{uuid.uuid4()}".encode()).decode(),
            "cursor",
        ),
        ("?cursor=%00", "cursor"),
        ("?limit=0", "limit"),
        (f"?limit={data_rights.MAX_PAGE_SIZE + 1}", "limit"),
        ("?limit=ten", "limit"),
    ],
)
def test_a_bad_page_request_is_a_422_naming_the_field(api, users, query, field):
    user = users.create()
    reply = api.get(HISTORY + query, user.token)
    assert reply.status == 422, reply.body
    assert reply.error["field"] == field


def test_no_token_is_a_401_on_both_routes(api):
    assert api.get(HISTORY, None).status == 401
    assert delete(api, None).status == 401


def test_a_worst_case_page_fits_in_one_lambda_answer(api, users, db):
    """A full page of sessions at every length limit, as Lambda serializes the answer."""
    user = users.create()
    _seed_worst_case_sessions(db, user.id, data_rights.MAX_PAGE_SIZE + 1)
    event = load_event("intercept-session/export-history.json")
    event["headers"]["authorization"] = f"Bearer {user.token}"
    entry = next(m for m in api.mounted if m.route.route_key == event["routeKey"])

    result = entry.invoke(event)

    assert result["statusCode"] == 200
    page = json.loads(result["body"])
    assert len(page["sessions"]) == data_rights.MAX_PAGE_SIZE
    assert page["next_cursor"] is not None
    size = len(json.dumps(result).encode())
    assert size < LAMBDA_ANSWER_LIMIT, f"{size} bytes"


def _seed_worst_case_sessions(db: Any, user_id: str, count: int) -> None:
    reason, emergency = "急" * 500, "火" * 500
    justification, reply = "析" * 600, json.dumps({"justification": "析" * 300, "pad": "x" * 700})
    with db.as_owner() as tx:
        tx.execute(
            """
            WITH s AS (
              INSERT INTO public.intercept_sessions (id, user_id, app_identifier, app_display_name, trigger,
                persona_key, persona_version, client_timestamp, utc_offset_minutes, local_date, state,
                evaluation_turns, final_verdict, emergency, user_decision, emergency_reason, start_fingerprint,
                decision_fingerprint, created_at, closed_at)
              SELECT gen_random_uuid(), CAST(:u AS uuid), repeat('a', 255), repeat('应', 100), 'quota_exceeded',
                'strict-father', 1, now(), 480, current_date, 'closed', 2, 'allow', true, 'emergency', :emergency,
                repeat('f', 64), repeat('f', 64), now() - make_interval(secs => n), now()
              FROM generate_series(1, :count) n
              RETURNING id, user_id
            ), t AS (
              INSERT INTO public.intercept_turns (id, session_id, user_id, turn_no, reason_text, reason_category,
                ai_verdict, confidence, persona_response, appeal_used, emergency, recommended_action,
                justification, source, model, latency_ms, override_count_today, streak, text_fingerprint,
                user_decision)
              SELECT gen_random_uuid(), s.id, s.user_id, n, :reason, 'emergency', 'allow', 0.9, repeat('回', 60),
                n = 2, true, 'unlock', :justification, 'llm', repeat('m', 40), 1000, 3, 3, repeat('f', 64),
                'emergency'
              FROM s, generate_series(1, 2) n
              RETURNING id, user_id
            ), r AS (
              INSERT INTO public.decision_records (id, user_id, function_name, kind, subject_type, subject_id,
                engine_version, config_version, inputs, output, source, model, raw_reply)
              SELECT t.id, t.user_id, 'InterceptSessionFunction', 'intercept.verdict', 'intercept_turn', t.id,
                'intercept-turn/1', repeat('c', 40),
                jsonb_build_object('reason_text', :reason, 'rule', jsonb_build_object('summary', repeat('规', 200)),
                                   'appeal_of', jsonb_build_object('reason_text', :reason, 'verdict', 'deny')),
                jsonb_build_object('justification', :justification, 'persona_response', repeat('回', 60)),
                'llm', repeat('m', 40), :reply
              FROM t
            )
            INSERT INTO public.analytics_events (user_id, subject_type, subject_id, name, properties)
            SELECT s.user_id, 'intercept_session', s.id, 'interception.dialog_completed',
              jsonb_build_object('reason_text', :reason, 'emergency_reason', :emergency, 'persona_response',
                repeat('回', 60), 'turns', jsonb_build_array(
                  jsonb_build_object('reason_text', :reason, 'persona_response', repeat('回', 60)),
                  jsonb_build_object('reason_text', :reason, 'persona_response', repeat('回', 60))))
            FROM s
            """,
            u=user_id,
            count=count,
            reason=reason,
            emergency=emergency,
            justification=justification,
            reply=reply,
        )


# -- delete ------------------------------------------------------------------------------------


def test_delete_removes_the_whole_history_and_a_second_delete_finds_nothing(api, users, db):
    alice, bob = with_history(api, users, db), with_history(api, users, db)
    before, bobs = stored(db, alice.id), stored(db, bob.id)
    assert all(before.values()), before
    sid = str(owner_rows(db, "intercept_sessions", alice.id)[0]["id"])
    rules = owner_rows(db, "rules", alice.id)

    reply = delete(api, alice.token)

    assert reply.status == 200, reply.body
    assert reply.body == {"user_id": alice.id, "deleted": before}
    assert stored(db, alice.id) == dict.fromkeys(HISTORY_TABLES, 0)
    assert stored(db, bob.id) == bobs
    # Rules are configuration: they stay, and the app goes on working with them.
    assert owner_rows(db, "rules", alice.id) == rules
    assert api.get(f"/intercept-session/{sid}", alice.token).status == 404
    empty = api.get(HISTORY, alice.token).body
    assert (empty["sessions"], empty["events"], empty["decision_records"]) == ([], [], [])
    again = delete(api, alice.token)
    assert again.status == 200
    assert again.body == {"user_id": alice.id, "deleted": dict.fromkeys(HISTORY_TABLES, 0)}
    assert start(api, alice, rules[0])


def test_a_service_role_caller_deletes_the_history_of_the_user_it_names(api, users, db):
    alice, bob = with_history(api, users, db), with_history(api, users, db)
    bobs = stored(db, bob.id)
    backend = service_token(TEST_JWT_SECRET)

    assert delete(api, backend).status == 422
    assert delete(api, alice.token, f"?user_id={bob.id}").status == 403
    reply = delete(api, backend, f"?user_id={alice.id}")

    assert reply.status == 200, reply.body
    assert reply.body["deleted"]["sessions"] == 4
    assert stored(db, alice.id) == dict.fromkeys(HISTORY_TABLES, 0)
    assert stored(db, bob.id) == bobs


def test_rls_lets_nobody_delete_another_users_rows(users, api, db):
    alice, bob = with_history(api, users, db), with_history(api, users, db)
    bobs = stored(db, bob.id)
    # As the function acting for Alice: Bob's rows are invisible, so nothing is deleted.
    with db.as_user(alice.claims) as tx:
        for table in HISTORY_TABLES.values():
            gone = tx.execute(f"DELETE FROM public.{table} WHERE user_id = CAST(:u AS uuid)", u=bob.id)
            assert gone == 0, table
    assert stored(db, bob.id) == bobs
    # With the app's own JWT (PostgREST's `authenticated`), not even one's own history.
    for table in ("intercept_sessions", "intercept_turns", "analytics_events", "decision_records"):
        with pytest.raises(DbError) as refused, db.transaction("authenticated", alice.claims) as tx:
            tx.execute(f"DELETE FROM public.{table} WHERE user_id = CAST(:u AS uuid)", u=alice.id)
        assert refused.value.sqlstate == "42501", table
    assert stored(db, alice.id)["sessions"] == 4


def test_the_event_fixtures_export_and_delete_the_seeded_users_history(api, seeded_db):
    exported = api.invoke_event(load_event("intercept-session/export-history.json"))
    deleted = api.invoke_event(load_event("intercept-session/delete-history.json"))

    seeded_user = "00000000-0000-4000-8000-000000000001"
    assert (exported.status, exported.body["user_id"]) == (200, seeded_user)
    assert (deleted.status, deleted.body["user_id"]) == (200, seeded_user)
    assert set(deleted.body["deleted"]) == set(HISTORY_TABLES)


def test_a_session_id_from_before_the_deletion_starts_afresh(api, users, db):
    user = users.create()
    rule = users.rule(user)
    sid = str(uuid.uuid4())
    first = api.post("/intercept-session", user.token, trigger_payload(user.id, rule, session_id=sid))
    assert first.status == 201, first.body
    assert delete(api, user.token).body["deleted"]["sessions"] == 1

    again = api.post("/intercept-session", user.token, trigger_payload(user.id, rule, session_id=sid))

    assert again.status == 201, again.body
