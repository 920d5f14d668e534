"""The process's database: the one `DATABASE_URL` names, or the embedded PostgreSQL with the
project's migrations when none is configured (a bare machine). One connection per warm container.
"""

from __future__ import annotations

from functools import cache

from persona_rails.db.database import Database
from persona_rails.settings import DatabaseSettings, cached_settings


def resolve_database_url(settings: DatabaseSettings) -> str:
    if settings.database_url:
        return settings.database_url
    # Imported only on a bare machine: a deployed function never loads the embedded server's code.
    from persona_rails.db.embedded import ensure_embedded_database

    return ensure_embedded_database(settings.embedded_pgdata)


@cache
def get_database() -> Database:
    settings = cached_settings(DatabaseSettings)
    return Database(resolve_database_url(settings), timeout=settings.db_timeout_seconds)
