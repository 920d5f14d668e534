"""Row-level security on the interview tables, checked as Postgres sees each caller: the function's
role acting for a narrator (`db.as_user`), the mobile app's `authenticated` role through
PostgREST, and `anon`. Narrators read only their own rows; only the function writes them."""

from __future__ import annotations

import pytest

from persona_rails.db import DbError
from tests.integration.interview_turn.helpers import (
    CONCRETE,
    SESSIONS,
    VAGUE,
    start,
    stored_turns,
    take,
)

TABLES = ("interview_sessions", "interview_turns", "decision_records")


@pytest.fixture
def two_narrators(api, users):
    """Alice and Bob, each with a session of three turns (opening included)."""
    sessions = {}
    for name in ("alice", "bob"):
        narrator = users.create()
        sid = start(api, narrator)["session_id"]
        take(api, narrator, sid, CONCRETE)
        take(api, narrator, sid, VAGUE)
        sessions[name] = (narrator, sid)
    return sessions


def as_app(db, narrator):
    """What the mobile app gets through PostgREST with the narrator's JWT: role `authenticated`."""
    return db.transaction("authenticated", narrator.claims)


@pytest.mark.parametrize("role", ["function", "app"])
@pytest.mark.parametrize("table", TABLES)
def test_a_narrator_reads_only_their_own_rows(db, two_narrators, table, role):
    alice, alice_sid = two_narrators["alice"]
    bob, bob_sid = two_narrators["bob"]
    where = "function_name = 'InterviewTurnFunction'" if table == "decision_records" else "TRUE"
    for me, other in ((alice, bob), (bob, alice)):
        session = db.as_user(me.claims) if role == "function" else as_app(db, me)
        with session as tx:
            mine = tx.one(f"SELECT count(*) AS n FROM public.{table} WHERE {where}")["n"]
            assert mine == (1 if table == "interview_sessions" else 3)
            assert (
                tx.one(f"SELECT count(*) AS n FROM public.{table} WHERE user_id <> (SELECT auth.uid())")["n"]
                == 0
            )
            assert (
                tx.one(
                    f"SELECT count(*) AS n FROM public.{table} WHERE user_id = CAST(:o AS uuid)", o=other.id
                )["n"]
                == 0
            )
    with as_app(db, bob) as tx:
        assert (
            tx.rows("SELECT * FROM public.interview_turns WHERE session_id = CAST(:s AS uuid)", s=alice_sid)
            == []
        )
        assert (
            tx.rows("SELECT * FROM public.interview_sessions WHERE id = CAST(:s AS uuid)", s=alice_sid) == []
        )
    with as_app(db, alice) as tx:
        assert (
            tx.rows("SELECT * FROM public.interview_turns WHERE session_id = CAST(:s AS uuid)", s=bob_sid)
            == []
        )


def test_over_the_api_a_narrator_reads_only_their_own_history(api, two_narrators):
    alice, alice_sid = two_narrators["alice"]
    bob, bob_sid = two_narrators["bob"]
    own = api.get(f"{SESSIONS}/{alice_sid}", alice.token)
    assert own.status == 200
    assert [t["user_text"] for t in own.body["turns"]] == [None, CONCRETE, VAGUE]
    assert api.get(f"{SESSIONS}/{bob_sid}", alice.token).status == 404
    assert api.get(f"{SESSIONS}/{alice_sid}", bob.token).status == 404


def test_anon_reads_nothing(db, two_narrators):
    for table in TABLES:
        with (
            pytest.raises(DbError, match="permission denied"),
            db.transaction("anon", {"role": "anon"}) as tx,
        ):
            tx.rows(f"SELECT * FROM public.{table}")


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE public.interview_sessions SET status = 'closed', closed_reason = 'stop_request', closed_at = now()",
        "UPDATE public.interview_sessions SET depth_level = 3",
        "UPDATE public.interview_sessions SET sensitive_consent = true",
        "UPDATE public.interview_turns SET response_text = 'rewritten'",
        "UPDATE public.interview_turns SET violated_rule_ids = '{}'",
        "DELETE FROM public.interview_turns",
        "DELETE FROM public.interview_sessions",
        """INSERT INTO public.interview_sessions (narrator_name, language, topic_id, engine_state,
             last_response_text, config_version, start_fingerprint)
           VALUES ('Mallory', 'en', 'life_story', '{}', 'hi', 'forged', 'forged')""",
        """INSERT INTO public.interview_turns (id, session_id, turn_no, topic_id, persona_used,
             conversation_phase, depth_level_before, depth_level_after, tactic_used, safety_action, metrics,
             response_text, winning_rule, depth_decision, depth_reason, telemetry, source, latency_ms,
             config_version, engine_version, user_text)
           SELECT gen_random_uuid(), id, 99, 'childhood', 'EMPATHY_BASE', 'warmup', 0, 0, 'warm_open', 'none',
             '{}', 'forged', 'default', 'hold', 'forged', '{}', 'offline', 0, 'forged', 'forged', 'forged'
           FROM public.interview_sessions""",
        "UPDATE public.decision_records SET output = '{}'",
        """INSERT INTO public.decision_records (id, function_name, kind, subject_type, subject_id,
             engine_version, config_version, inputs, output, source)
           VALUES (gen_random_uuid(), 'InterviewTurnFunction', 'interview.turn', 'interview_turn',
             gen_random_uuid(), 'forged', 'forged', '{}', '{}', 'offline')""",
    ],
    ids=[
        "close-session",
        "raise-depth",
        "grant-consent",
        "rewrite-turn",
        "clear-violations",
        "delete-turns",
        "delete-sessions",
        "insert-session",
        "insert-turn",
        "rewrite-record",
        "insert-record",
    ],
)
def test_the_app_role_cannot_write_the_interview_tables(db, two_narrators, statement):
    alice, sid = two_narrators["alice"]
    before = stored_turns(db, sid)
    with pytest.raises(DbError, match="permission denied"), as_app(db, alice) as tx:
        tx.execute(statement)
    assert stored_turns(db, sid) == before


def test_the_function_acting_for_one_narrator_cannot_touch_anothers_session(db, two_narrators):
    _, alice_sid = two_narrators["alice"]
    bob, _ = two_narrators["bob"]
    with db.as_user(bob.claims) as tx:
        assert (
            tx.execute(
                "UPDATE public.interview_sessions SET status = 'closed', closed_reason = 'stop_request',"
                " closed_at = now() WHERE id = CAST(:s AS uuid)",
                s=alice_sid,
            )
            == 0
        )
    with pytest.raises(DbError, match="row-level security"), db.as_user(bob.claims) as tx:
        tx.execute(
            """
            INSERT INTO public.interview_turns (id, session_id, turn_no, topic_id, persona_used,
              conversation_phase, depth_level_before, depth_level_after, tactic_used, safety_action, metrics,
              response_text, winning_rule, depth_decision, depth_reason, telemetry, source, latency_ms,
              config_version, engine_version, user_text)
            VALUES (gen_random_uuid(), CAST(:s AS uuid), 99, 'childhood', 'EMPATHY_BASE', 'warmup', 0, 0,
              'warm_open', 'none', '{}', 'forged', 'default', 'hold', 'forged', '{}', 'offline', 0, 'forged',
              'forged', 'slipped into alice''s history')
            """,
            s=alice_sid,
        )
    assert [t["turn_no"] for t in stored_turns(db, alice_sid)] == [0, 1, 2]
