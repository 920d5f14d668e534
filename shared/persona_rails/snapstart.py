"""Lambda SnapStart: a restored snapshot must not reuse the network clients of the init it froze.

With the template's `SnapStart` parameter at PublishedVersions, Lambda runs init once per published
version, snapshots the memory, and resumes copies of it for later cold starts: minutes or days
later, in another execution environment. A pooled Postgres connection or an HTTP keep-alive pool
captured in the snapshot then points at a socket that no longer exists, or that several restored
copies would share. The after-restore hook drops them; each is recreated on first use.

`snapshot_restore_py` is provided by Lambda's Python runtime (PyPI: snapshot-restore-py), so it is
imported only when the runtime says it initialises for a snapshot; elsewhere `register` does nothing.
"""

from __future__ import annotations

import os

_SNAPSTART_INIT = "snap-start"


def recreate_network_clients() -> None:
    """Forget every cached client that holds a connection: the database pool, the LLM client and the
    JWKS client. Settings and secrets stay cached (persona_rails.ssm keeps no connection open)."""
    from persona_rails import auth
    from persona_rails.db.default import get_database
    from persona_rails.llm import structured

    if get_database.cache_info().currsize:
        get_database().close()
    get_database.cache_clear()
    structured._client.cache_clear()
    auth._jwks_client.cache_clear()


def snapshotting() -> bool:
    """This init ends in a snapshot: it runs once per published version, not at a user's cold
    start, so work done here (compiling what a first request would) costs no user anything."""
    return os.environ.get("AWS_LAMBDA_INITIALIZATION_TYPE") == _SNAPSTART_INIT


def register() -> bool:
    """Register the after-restore hook when this init will be snapshotted; True when it was."""
    if not snapshotting():
        return False
    from snapshot_restore_py import register_after_restore

    register_after_restore(recreate_network_clients)
    return True
