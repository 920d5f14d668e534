"""Schema-wide lints (Supabase splinter's RLS bar), over every table and function the migrations
create: a new table is checked the day it is added, with no edit here."""

import re

import pytest

pytestmark = pytest.mark.integration

# A table the mobile app may write through PostgREST says so in its comment; every other table
# is written by the functions only.
APP_WRITES_TAG = "app-writes:"


def _public_tables(tx):
    return tx.rows(
        """
        SELECT c.oid, c.relname, c.relrowsecurity, obj_description(c.oid, 'pg_class') AS comment,
               (SELECT count(*) FROM pg_policies p WHERE p.schemaname = 'public' AND p.tablename = c.relname)
                 AS policies
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
        """
    )


def test_every_public_table_has_rls_and_policies(db):
    with db.as_owner() as tx:
        tables = _public_tables(tx)
    assert {"rules", "intercept_sessions", "decision_records", "analytics_events"} <= {
        t["relname"] for t in tables
    }
    missing = [t["relname"] for t in tables if not (t["relrowsecurity"] and t["policies"] > 0)]
    assert missing == [], f"tables without RLS or without a policy: {missing}"


def test_policies_call_auth_functions_once_per_statement(db):
    """Splinter's auth_rls_initplan lint: `(select auth.uid())`, never a bare per-row call."""
    with db.as_owner() as tx:
        policies = tx.rows(
            "SELECT tablename, policyname, qual, with_check FROM pg_policies WHERE schemaname = 'public'"
        )
    bare = []
    for policy in policies:
        for expression in (policy["qual"], policy["with_check"]):
            for call in ("auth.uid()", "auth.jwt()", "auth.role()"):
                if expression and expression.count(call) != expression.count(f"SELECT {call}"):
                    bare.append(f"{policy['tablename']}.{policy['policyname']}")
    assert bare == [], f"policies calling auth functions per row: {bare}"


def _policy_columns(expression, columns):
    # Columns of the policy's own table: bare names, not `s.user_id` inside a subquery.
    names = set(re.findall(r"(?<![.\w])([a-z_][a-z0-9_]*)(?![\w(])", expression or ""))
    return names & columns


def test_policy_columns_are_indexed(db):
    """Splinter's advice: every column a policy filters on leads some index of its table."""
    with db.as_owner() as tx:
        tables = _public_tables(tx)
        unindexed = []
        for table in tables:
            columns = {
                row["attname"]
                for row in tx.rows(
                    "SELECT attname FROM pg_attribute WHERE attrelid = :oid AND attnum > 0 AND NOT attisdropped",
                    oid=table["oid"],
                )
            }
            leading = {
                row["attname"]
                for row in tx.rows(
                    """
                    SELECT a.attname FROM pg_index i
                    JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
                    WHERE i.indrelid = :oid
                    """,
                    oid=table["oid"],
                )
            }
            for policy in tx.rows(
                "SELECT qual, with_check FROM pg_policies WHERE schemaname = 'public' AND tablename = :t",
                t=table["relname"],
            ):
                for column in _policy_columns(policy["qual"], columns) | _policy_columns(
                    policy["with_check"], columns
                ):
                    if column not in leading:
                        unindexed.append(f"{table['relname']}.{column}")
    assert unindexed == [], f"policy columns with no index leading on them: {sorted(set(unindexed))}"


def test_functions_pin_their_search_path(db):
    """Splinter's function_search_path_mutable lint."""
    with db.as_owner() as tx:
        functions = tx.rows(
            """
            SELECT n.nspname, p.proname, p.proconfig FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname IN ('public', 'auth', 'persona_rails_private')
            """
        )
    assert functions
    mutable = [
        f"{f['nspname']}.{f['proname']}"
        for f in functions
        if not any(setting.startswith("search_path=") for setting in f["proconfig"] or [])
    ]
    assert mutable == [], f"functions without a pinned search_path: {mutable}"


def test_every_user_transaction_refuses_a_user_missing_from_auth_users(db):
    """A missing auth.users row maps the same way in every function: the check runs in the set-up
    statement of each user transaction (persona_rails.db), before any table is touched, so no
    function can meet it as a foreign-key violation first (tests/infra/test_unknown_users.py sends
    every route such a caller)."""
    import uuid

    from persona_rails.errors import NotFound

    ghost = {"sub": str(uuid.uuid4()), "role": "authenticated", "aud": "authenticated"}
    with pytest.raises(NotFound) as raised, db.as_user(ghost) as tx:
        tx.rows("SELECT 1")
    assert (raised.value.code, raised.value.field) == ("user_not_found", "user_id")
    with pytest.raises(NotFound):
        db.run_as_user(ghost, ("SELECT 1", {}))


def test_only_the_functions_can_ask_whether_a_user_exists(db):
    """persona_rails_private.require_user reads auth.users as its owner: the app's roles (anon,
    authenticated, through PostgREST) must not be able to call it and probe for accounts."""
    with db.as_owner() as tx:
        rows = tx.rows(
            """
            SELECT r.rolname, has_function_privilege(r.oid, 'persona_rails_private.require_user(text)', 'EXECUTE')
                     AND has_schema_privilege(r.oid, 'persona_rails_private', 'USAGE') AS can
            FROM pg_roles r WHERE r.rolname IN ('anon', 'authenticated', 'persona_rails_function')
            """
        )
        definer = tx.one(
            "SELECT prosecdef FROM pg_proc WHERE oid = 'persona_rails_private.require_user(text)'::regprocedure"
        )
    assert {row["rolname"]: row["can"] for row in rows} == {
        "anon": False,
        "authenticated": False,
        "persona_rails_function": True,
    }
    assert definer == {"prosecdef": True}


def test_the_app_cannot_write_tables_only_the_functions_write(db):
    """The app's JWT is PostgREST's `authenticated`: it may write only tables tagged app-writes."""
    with db.as_owner() as tx:
        tables = _public_tables(tx)
        writable = []
        for table in tables:
            if (table["comment"] or "").startswith(APP_WRITES_TAG):
                continue
            for privilege in ("INSERT", "UPDATE", "DELETE", "TRUNCATE"):
                if tx.one(
                    "SELECT has_table_privilege('authenticated', CAST(:oid AS oid), :p) AS ok",
                    oid=table["oid"],
                    p=privilege,
                )["ok"]:
                    writable.append(f"{table['relname']}: {privilege}")
    assert writable == [], f"`authenticated` can write function-only tables: {writable}"


def test_only_the_functions_can_act_as_the_writer_role(db):
    with db.as_owner() as tx:
        row = tx.one(
            "SELECT pg_has_role('authenticator', 'persona_rails_function', 'MEMBER') AS api,"
            " pg_has_role('persona_rails_function', 'authenticated', 'USAGE') AS reads_like_a_user"
        )
    assert row == {"api": False, "reads_like_a_user": True}
