"""`rails db-check`: a database migrated from supabase/migrations/ matches them; one that lacks
a migration, a table, a function or row-level security is reported, naming what differs."""

from __future__ import annotations

from persona_rails.db.migrations import supabase_dir
from persona_rails_dev import db_check


def test_the_migrated_database_matches(db):
    report = db_check.check(db)
    assert report.problems == [], report.problems


def test_what_the_migrations_make_is_read_from_them():
    expected = db_check.expected_from(supabase_dir() / "migrations")
    assert {"intercept_sessions", "intercept_user_clock", "weekly_summaries"} <= expected.tables
    assert {"intercept_close_abandoned", "intercept_purge_reasons", "weekly_aggregates"} <= expected.functions
    assert {"persona_rails_function", *db_check.LOGINS} <= expected.roles
    assert expected.versions == tuple(sorted(expected.versions))


def test_every_kind_of_difference_is_named():
    expected = db_check.Expected(
        versions=("1", "2"), tables=frozenset({"a", "b"}), functions=frozenset({"f"}), roles=frozenset({"r"})
    )
    live = {"tables": {"a", "b"}, "functions": set(), "roles": {"r"}, "logins": set()}
    report = db_check.compare(expected, applied={"1", "9"}, live=live, rls_off={"b"})
    assert report.problems == [
        "migrations not applied: 2 (run: supabase db push)",
        "applied migrations this checkout does not have: 9",
        "functions missing: f",
        "row-level security off: b",
    ]
    assert len(report.notes) == 1
    assert "enable_function_logins.sql" in report.notes[0]
    assert not report.ok


def test_the_cli_exits_zero_on_a_match(database_url, capsys):
    assert db_check.run(database_url) == 0
    assert "matches" in capsys.readouterr().out
