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


def test_every_public_table_has_rls_and_policies(db):
    with db.as_owner() as tx:
        tables = tx.rows(
            """
            SELECT c.relname, c.relrowsecurity,
                   (SELECT count(*) FROM pg_policies p WHERE p.schemaname = 'public' AND p.tablename = c.relname) AS policies
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'public' AND c.relkind = 'r'
            """
        )
    assert {t["relname"] for t in tables} >= set(TABLES)
    for table in tables:
        assert table["relrowsecurity"], table["relname"]
        assert table["policies"] > 0, table["relname"]


def test_policies_call_auth_uid_once_per_statement(db):
    """Splinter's auth_rls_initplan lint: `(select auth.uid())`, never a bare per-row auth.uid()."""
    with db.as_owner() as tx:
        policies = tx.rows("SELECT policyname, qual, with_check FROM pg_policies WHERE schemaname = 'public'")
    for policy in policies:
        for expression in (policy["qual"], policy["with_check"]):
            if expression and "auth.uid()" in expression:
                assert expression.count("auth.uid()") == expression.count("SELECT auth.uid()"), policy[
                    "policyname"
                ]


def test_functions_pin_their_search_path(db):
    """Splinter's function_search_path_mutable lint."""
    with db.as_owner() as tx:
        functions = tx.rows(
            """
            SELECT p.proname, p.proconfig FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname IN ('public', 'auth')
            """
        )
    assert functions
    for function in functions:
        assert any(setting.startswith("search_path=") for setting in function["proconfig"] or []), function[
            "proname"
        ]


def test_policy_columns_are_indexed(db):
    """Splinter's unindexed-policy-column advice: every user_id has an index leading with it."""
    with db.as_owner() as tx:
        unindexed = tx.rows(
            """
            SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'public' AND c.relkind = 'r'
              AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'user_id')
              AND NOT EXISTS (
                SELECT 1 FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
                WHERE i.indrelid = c.oid AND a.attname = 'user_id')
            """
        )
    assert unindexed == []


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


def test_only_the_functions_can_act_as_the_writer_role(db):
    with db.as_owner() as tx:
        row = tx.one(
            "SELECT pg_has_role('authenticator', 'persona_rails_function', 'MEMBER') AS api,"
            " pg_has_role('persona_rails_function', 'authenticated', 'USAGE') AS reads_like_a_user"
        )
    assert row == {"api": False, "reads_like_a_user": True}
