"""Apply `supabase/migrations/*.sql` to a database, recording them as the Supabase CLI does.

Real projects deploy the same files with `supabase db push`; this runner exists for the
embedded database and the tests, and writes to the CLI's own bookkeeping table so that both
agree on what is applied.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from persona_rails import env
from persona_rails.db.database import Database, Tx

_MIGRATION_NAME = re.compile(r"^(?P<version>\d+)_(?P<name>[\w-]+)\.sql$")
# Any constant works; it only has to be the same for every process migrating this database.
_ADVISORY_LOCK_KEY = 727_001


def supabase_dir() -> Path:
    override = os.environ.get(env.MIGRATIONS_DIR)
    if override:
        return Path(override).parent
    return Path(__file__).resolve().parents[3] / "supabase"


def migration_files(directory: Path) -> list[tuple[str, str, Path]]:
    found = []
    for path in sorted(directory.glob("*.sql")):
        match = _MIGRATION_NAME.match(path.name)
        if not match:
            raise ValueError(f"migration file name must be <version>_<name>.sql: {path.name}")
        found.append((match["version"], match["name"], path))
    return found


def applied_versions(tx: Tx) -> set[str]:
    """The versions recorded in the Supabase CLI's table (none when it does not exist yet)."""
    table = tx.one("SELECT to_regclass('supabase_migrations.schema_migrations') IS NOT NULL AS ok")
    if not (table and table["ok"]):
        return set()
    return {row["version"] for row in tx.rows("SELECT version FROM supabase_migrations.schema_migrations")}


def apply_migrations(database: Database, root: Path | None = None, *, seed: bool = False) -> list[str]:
    """Bring the schema up to date; returns the versions applied by this call."""
    root = root or supabase_dir()
    applied: list[str] = []
    with database.as_owner() as tx:
        tx.execute(f"SELECT pg_advisory_xact_lock({_ADVISORY_LOCK_KEY})")
        tx.execute((root / "embedded" / "bootstrap.sql").read_text())
        tx.execute(
            "CREATE SCHEMA IF NOT EXISTS supabase_migrations;"
            "CREATE TABLE IF NOT EXISTS supabase_migrations.schema_migrations"
            " (version text PRIMARY KEY, statements text[], name text)"
        )
        done = applied_versions(tx)
        for version, name, path in migration_files(root / "migrations"):
            if version in done:
                continue
            tx.execute(path.read_text())
            tx.execute(
                "INSERT INTO supabase_migrations.schema_migrations (version, name) VALUES (:v, :n)",
                v=version,
                n=name,
            )
            applied.append(version)
        if seed and (root / "seed.sql").exists():
            tx.execute((root / "seed.sql").read_text())
    return applied
