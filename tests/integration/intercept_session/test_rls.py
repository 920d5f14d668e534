"""Row-level security, checked the way PostgREST runs queries: role `authenticated` + JWT claims."""

import pytest

from persona_rails.db import DbError
from tests.support.dialog import BORED, decide, reason, start

TABLES = ("rules", "intercept_sessions", "intercept_turns", "analytics_events")


@pytest.fixture
def alice_with_history(api, users):
    alice = users.create()
    rule = users.rule(alice)
    sid = start(api, alice, rule)
    reason(api, alice, sid, BORED)
    decide(api, alice, sid, "override")
    return alice, sid


@pytest.mark.parametrize("table", TABLES)
def test_a_user_reads_only_their_own_rows(db, users, alice_with_history, table):
    alice, _ = alice_with_history
    bob = users.create()
    with db.as_user(alice.claims) as tx:
        assert tx.one(f"SELECT count(*) AS n FROM public.{table}")["n"] >= 1
        assert (
            tx.one(f"SELECT count(*) AS n FROM public.{table} WHERE user_id <> (SELECT auth.uid())")["n"] == 0
        )
    with db.as_user(bob.claims) as tx:
        assert (
            tx.one(f"SELECT count(*) AS n FROM public.{table} WHERE user_id = CAST(:a AS uuid)", a=alice.id)[
                "n"
            ]
            == 0
        )


def test_anon_reads_nothing(db, alice_with_history):
    for table in TABLES:
        with (
            pytest.raises(Exception, match="permission denied"),
            db.transaction("anon", {"role": "anon"}) as tx,
        ):
            tx.rows(f"SELECT * FROM public.{table}")


def test_a_user_cannot_write_into_someone_elses_session(db, users, alice_with_history):
    _, sid = alice_with_history
    bob = users.create()
    with pytest.raises(Exception, match="row-level security"), db.as_user(bob.claims) as tx:
        tx.execute(
            """
            INSERT INTO public.intercept_turns (session_id, turn_no, reason_text, reason_category, ai_verdict,
              confidence, persona_response, appeal_used, recommended_action, justification, source, latency_ms,
              override_count_today, streak, text_fingerprint)
            VALUES (CAST(:s AS uuid), 2, '我想偷偷加一条记录进去', 'other', 'allow', 0.5, '好', true, 'unlock', '', 'offline',
              0, 0, 0, 'x')
            """,
            s=sid,
        )


def test_a_user_cannot_insert_rows_in_another_users_name(db, users):
    alice, bob = users.create(), users.create()
    with pytest.raises(Exception, match="row-level security"), db.as_user(bob.claims) as tx:
        tx.execute(
            "INSERT INTO public.rules (user_id, app_identifier, app_display_name, summary)"
            " VALUES (CAST(:u AS uuid), 'a', 'b', 'c')",
            u=alice.id,
        )


def test_updates_to_foreign_rows_touch_nothing(db, users, alice_with_history):
    alice, sid = alice_with_history
    bob = users.create()
    with db.as_user(bob.claims) as tx:
        assert (
            tx.execute(
                "UPDATE public.intercept_sessions SET state = 'awaiting_reason' WHERE id = CAST(:s AS uuid)",
                s=sid,
            )
            == 0
        )
        assert tx.execute("DELETE FROM public.rules WHERE user_id = CAST(:u AS uuid)", u=alice.id) == 0


def test_a_failed_role_switch_leaves_the_pool_usable(db, users):
    with pytest.raises(Exception, match="role"), db.transaction("no_such_role", {"role": "x"}) as tx:
        tx.rows("SELECT 1")
    user = users.create()
    with db.as_user(user.claims) as tx:
        assert tx.one("SELECT auth.uid() AS uid")["uid"].hex == user.id.replace("-", "")


def as_app(db, user):
    """What the mobile app gets through PostgREST with the user's JWT: role `authenticated`."""
    return db.transaction("authenticated", user.claims)


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE public.intercept_sessions SET user_decision = 'comply' WHERE user_decision = 'override'",
        "UPDATE public.intercept_sessions SET state = 'awaiting_decision', user_decision = NULL, closed_at = NULL",
        "UPDATE public.intercept_turns SET ai_verdict = 'allow'",
        "DELETE FROM public.intercept_sessions",
        "INSERT INTO public.analytics_events (name, properties) VALUES ('interception.dialog_completed', '{}')",
    ],
)
def test_the_app_cannot_rewrite_its_own_history(db, alice_with_history, statement):
    """Counts are the server's: a user's JWT reads their history but cannot change it."""
    alice, _ = alice_with_history
    with pytest.raises(DbError, match="permission denied"), as_app(db, alice) as tx:
        tx.execute(statement)
    with as_app(db, alice) as tx:
        overrides = tx.one("SELECT override_count_today FROM public.intercept_day_stats(480)")[
            "override_count_today"
        ]
        assert overrides == 1
        assert len(tx.rows("SELECT * FROM public.intercept_turns")) == 1
