"""One network round trip per statement on pg8000.

pg8000 runs a parameterized statement as Parse+Sync, Describe+Sync+Bind, then Execute+Sync:
three round trips, most of a warm request's time. The extended-query protocol allows sending
Parse, Describe, Bind, Execute and a single Sync together and reading every reply once; this
module does that with pg8000's own message writers and reader. It uses unnamed statements only,
so it stays safe behind Supabase's transaction pooler. Named-parameter parsing is cached.

These are pg8000 internals (pinned in pyproject.toml); every database test exercises them.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

_UNNAMED = b"\x00"


@lru_cache(maxsize=512)
def _compiled(sql: str) -> tuple[str, Any]:
    from pg8000.native import to_statement

    statement, make_vals = to_statement(sql)
    return statement, make_vals


def _send_extended(connection: Any, sql: str, params: dict[str, Any]) -> Any:
    from pg8000.converters import make_params
    from pg8000.core import Context

    statement, make_vals = _compiled(sql)
    connection.send_PARSE(_UNNAMED, statement, ())
    connection.send_DESCRIBE_STATEMENT(_UNNAMED)
    connection.send_BIND(_UNNAMED, make_params(connection.py_types, make_vals(params)))
    connection.send_EXECUTE()
    return Context(statement)


def _sync_and_read(connection: Any, context: Any) -> Any:
    from pg8000.core import SYNC_MSG, _flush, _write

    _write(connection._sock, SYNC_MSG)
    _flush(connection._sock)
    connection.handle_messages(context)
    return context


def execute(connection: Any, sql: str, params: dict[str, Any]) -> Any:
    """Run one statement and return pg8000's result context (rows, columns, row_count)."""
    if not params:
        return connection.execute_simple(sql)
    return _sync_and_read(connection, _send_extended(connection, sql, params))


def begin(connection: Any, setup_sql: str | None, params: dict[str, Any]) -> None:
    """START TRANSACTION and the session set-up statement, in a single round trip."""
    from pg8000.core import Context, _flush

    connection.send_QUERY("START TRANSACTION")
    if setup_sql is None:
        _flush(connection._sock)
        connection.handle_messages(Context("START TRANSACTION"))
        return
    setup = _send_extended(connection, setup_sql, params)
    from pg8000.core import SYNC_MSG, _write

    _write(connection._sock, SYNC_MSG)
    _flush(connection._sock)
    # The simple query's replies end with its own ReadyForQuery, then the extended one's.
    connection.handle_messages(Context("START TRANSACTION"))
    connection.handle_messages(setup)
