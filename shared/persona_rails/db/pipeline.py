"""Many statements, one network round trip, on pg8000.

pg8000 runs a parameterized statement as Parse+Sync, Describe+Sync+Bind, then Execute+Sync:
three round trips each. The protocol allows sending any number of statements at once and
reading every reply afterwards. This module does that with pg8000's own message writers and
reader: each statement is Parse, Describe, Bind, Execute and its own Sync (so each runs with a
fresh snapshot and an error in one is reported by that one), simple-protocol statements such as
START TRANSACTION and COMMIT ride along, and everything is flushed once. It uses unnamed
statements only, so it stays safe behind Supabase's transaction pooler.

These are pg8000 internals (pinned in pyproject.toml); `missing_internals()` lists what an
upgrade took away, and a test fails with that list.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

_UNNAMED = b"\x00"

# Everything this module touches that pg8000 does not document.
REQUIRED_INTERNALS = (
    "pg8000.native.to_statement",
    "pg8000.converters.make_params",
    "pg8000.core.Context",
    "pg8000.core.SYNC_MSG",
    "pg8000.core._flush",
    "pg8000.core._write",
    *(
        f"pg8000.core.CoreConnection.{method}"
        for method in (
            "send_PARSE",
            "send_DESCRIBE_STATEMENT",
            "send_BIND",
            "send_EXECUTE",
            "send_QUERY",
            "handle_messages",
            "execute_simple",
        )
    ),
)


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for split in range(len(parts) - 1, 0, -1):
        try:
            target: Any = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for name in parts[split:]:
            if not hasattr(target, name):
                return False
            target = getattr(target, name)
        return True
    return False


def missing_internals() -> list[str]:
    """The pg8000 names this module needs and cannot find (empty when all is well)."""
    return [dotted for dotted in REQUIRED_INTERNALS if not _resolves(dotted)]


@dataclass(frozen=True)
class Statement:
    sql: str
    params: dict[str, Any] = field(default_factory=dict)
    # The simple protocol: no parameters, and the only way to send START TRANSACTION with others.
    simple: bool = False


@lru_cache(maxsize=512)
def _compiled(sql: str) -> tuple[str, Any]:
    from pg8000.native import to_statement

    statement, make_vals = to_statement(sql)
    return statement, make_vals


def _send(connection: Any, statement: Statement) -> Any:
    from pg8000.converters import make_params
    from pg8000.core import SYNC_MSG, Context, _write

    if statement.simple:
        connection.send_QUERY(statement.sql)
        return Context(statement.sql)
    sql, make_vals = _compiled(statement.sql)
    connection.send_PARSE(_UNNAMED, sql, ())
    connection.send_DESCRIBE_STATEMENT(_UNNAMED)
    connection.send_BIND(_UNNAMED, make_params(connection.py_types, make_vals(statement.params)))
    connection.send_EXECUTE()
    _write(connection._sock, SYNC_MSG)
    return Context(sql)


def run(connection: Any, statements: Sequence[Statement]) -> list[Any]:
    """Send every statement, flush once, read every reply: one round trip.

    Returns pg8000's result context for each (rows, columns, row_count). Raises the first
    statement's error after every reply is read, so the connection stays in step.
    """
    import pg8000.exceptions
    from pg8000.core import _flush

    contexts = [_send(connection, statement) for statement in statements]
    _flush(connection._sock)
    first_error: Exception | None = None
    for context in contexts:
        try:
            connection.handle_messages(context)
        except pg8000.exceptions.DatabaseError as exc:
            first_error = first_error or exc
        except pg8000.exceptions.InterfaceError:
            # pg8000's word for "a statement after the failed one": the first error is the news.
            if first_error is None:
                raise
    if first_error is not None:
        raise first_error
    return contexts


def execute(connection: Any, sql: str, params: dict[str, Any]) -> Any:
    """Run one statement (a script of several when it has no parameters) in one round trip."""
    if not params:
        return connection.execute_simple(sql)
    return run(connection, [Statement(sql, params)])[0]
