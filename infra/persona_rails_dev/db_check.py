"""Does a live database match the migrations? `rails db-check` answers before a deploy (or after
`supabase db push`), against the project's DATABASE_URL, as its `postgres` user.

What is expected comes from `supabase/migrations/` itself, never from a second list: every
migration file is recorded as applied (and nothing unknown is), and every table, function and
role the files create exists, every public table with row-level security on. The functions'
logins (migration 0800) are reported apart: they only need LOGIN once
`infra/sql/enable_function_logins.sql` has run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from persona_rails.db import Database
from persona_rails.db.migrations import applied_versions, migration_files, supabase_dir

_TABLE = re.compile(r"CREATE TABLE (?:IF NOT EXISTS )?public\.(\w+)", re.IGNORECASE)
_FUNCTION = re.compile(r"CREATE (?:OR REPLACE )?FUNCTION public\.(\w+)", re.IGNORECASE)
_ROLE = re.compile(r"CREATE ROLE (\w+)", re.IGNORECASE)
_DROPPED_FUNCTION = re.compile(r"DROP FUNCTION (?:IF EXISTS )?public\.(\w+)", re.IGNORECASE)
_DROPPED_TABLE = re.compile(r"DROP TABLE (?:IF EXISTS )?public\.(\w+)", re.IGNORECASE)
LOGINS = ("persona_rails_api_login", "persona_rails_weekly_login")


@dataclass(frozen=True)
class Expected:
    versions: tuple[str, ...]
    tables: frozenset[str]
    functions: frozenset[str]
    roles: frozenset[str]


def expected_from(directory: Path) -> Expected:
    versions, tables, functions, roles = [], set(), set(), set()
    for version, _, path in migration_files(directory):
        versions.append(version)
        text = path.read_text(encoding="utf-8")
        tables |= set(_TABLE.findall(text))
        functions |= set(_FUNCTION.findall(text))
        roles |= set(_ROLE.findall(text))
        # A later file may drop what an earlier one made (and create it again after).
        for dropped in _DROPPED_TABLE.findall(text):
            if dropped not in _TABLE.findall(text):
                tables.discard(dropped)
        for dropped in _DROPPED_FUNCTION.findall(text):
            if dropped not in _FUNCTION.findall(text):
                functions.discard(dropped)
    return Expected(tuple(versions), frozenset(tables), frozenset(functions), frozenset(roles))


@dataclass
class Report:
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def compare(expected: Expected, applied: set[str], live: dict[str, set[str]], rls_off: set[str]) -> Report:
    """The differences between what the migrations make and what the database holds."""
    report = Report()
    missing = [version for version in expected.versions if version not in applied]
    unknown = sorted(applied - set(expected.versions))
    if missing:
        report.problems.append(f"migrations not applied: {', '.join(missing)} (run: supabase db push)")
    if unknown:
        report.problems.append(f"applied migrations this checkout does not have: {', '.join(unknown)}")
    for kind in ("tables", "functions", "roles"):
        absent = sorted(getattr(expected, kind) - live[kind])
        if absent:
            report.problems.append(f"{kind} missing: {', '.join(absent)}")
    if rls_off:
        report.problems.append(f"row-level security off: {', '.join(sorted(rls_off))}")
    no_login = sorted(set(LOGINS) - live["logins"])
    if no_login:
        report.notes.append(
            f"logins without LOGIN yet: {', '.join(no_login)} (run infra/sql/enable_function_logins.sql)"
        )
    return report


def check(database: Database, root: Path | None = None) -> Report:
    expected = expected_from((root or supabase_dir()) / "migrations")
    with database.as_owner() as tx:
        applied = applied_versions(tx)
        tables = {
            row["relname"]: row["relrowsecurity"]
            for row in tx.rows(
                "SELECT c.relname, c.relrowsecurity FROM pg_class c"
                " JOIN pg_namespace n ON n.oid = c.relnamespace"
                " WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')"
            )
        }
        live = {
            "tables": set(tables),
            "functions": {
                row["proname"]
                for row in tx.rows(
                    "SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
                    " WHERE n.nspname = 'public'"
                )
            },
            "roles": {row["rolname"] for row in tx.rows("SELECT rolname FROM pg_roles")},
            "logins": {row["rolname"] for row in tx.rows("SELECT rolname FROM pg_roles WHERE rolcanlogin")},
        }
    rls_off = {name for name, on in tables.items() if not on and name in expected.tables}
    return compare(expected, applied, live, rls_off)


def run(url: str) -> int:
    database = Database(url)
    try:
        report = check(database)
    finally:
        database.close()
    for problem in report.problems:
        print(f"MISMATCH {problem}")
    for note in report.notes:
        print(f"note     {note}")
    if report.ok:
        print("the database matches supabase/migrations/")
    return 0 if report.ok else 1
