"""Transactions that run as the JWT's user, exactly as PostgREST runs them.

Every unit of work starts a transaction, switches to the caller's role and publishes the JWT
claims in `request.jwt.claims`, so that `auth.uid()` and row-level security behave as they do
behind Supabase's REST API. The connection itself is cached for the life of a warm container.
"""

from __future__ import annotations

import json
import queue
import socket
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from persona_rails.db.pipeline import Statement
from persona_rails.db.pipeline import run as run_pipeline
from persona_rails.db.url import connect_kwargs
from persona_rails.observability import logger

ROLE_AUTHENTICATED = "authenticated"
# `authenticated` plus the write grants on the dialog's history (see the migrations): what the
# functions act as on a user's behalf. PostgREST can never switch to it.
ROLE_FUNCTION = "persona_rails_function"
ROLE_SERVICE = "service_role"


class DbError(Exception):
    """A Postgres error with its SQLSTATE and, when there is one, the constraint it names."""

    def __init__(self, sqlstate: str, message: str, constraint: str | None) -> None:
        super().__init__(f"{sqlstate}: {message}")
        self.sqlstate = sqlstate
        self.constraint = constraint

    @property
    def unique_violation(self) -> bool:
        return self.sqlstate == "23505"


def _as_db_error(exc: Exception) -> Exception:
    # Only the SQLSTATE, message and constraint survive: the driver's detail field quotes
    # the failing row, which may hold user text, and must not reach a log or a traceback.
    fields = exc.args[0] if exc.args and isinstance(exc.args[0], dict) else {}
    sqlstate = str(fields.get("C", "XX000"))
    if sqlstate == USER_NOT_FOUND:
        from persona_rails.errors import NotFound

        return NotFound("user_not_found", "no such user", field="user_id")
    return DbError(sqlstate, str(fields.get("M", exc)), fields.get("n"))


class Tx:
    """One transaction: every statement returns rows as dicts.

    START TRANSACTION and the role set-up are not sent on their own: they travel with the first
    statement (or batch), so a transaction costs one round trip per statement plus its COMMIT.
    In AWS each round trip crosses the network to the pooler, and that is the latency.
    """

    def __init__(self, database: Database, setup: list[Statement]) -> None:
        self._database = database
        self._pending = setup
        self.connection: Any = None

    @property
    def started(self) -> bool:
        return self.connection is not None

    def _send(self, statements: list[Statement]) -> list[Any]:
        import pg8000.exceptions

        try:
            if self.connection is None:
                self.connection, contexts = self._database._open(self._pending, statements)
                return contexts
            return run_pipeline(self.connection, statements)
        except pg8000.exceptions.DatabaseError as exc:
            raise _as_db_error(exc) from None

    def batch(self, *statements: tuple[str, dict[str, Any]]) -> list[list[dict[str, Any]]]:
        """Several statements in one round trip; each runs with its own snapshot, in order."""
        contexts = self._send([_statement(sql, params) for sql, params in statements])
        return [_as_dicts(context) for context in contexts]

    def rows(self, sql: str, **params: Any) -> list[dict[str, Any]]:
        return self.batch((sql, params))[0]

    def one(self, sql: str, **params: Any) -> dict[str, Any] | None:
        found = self.rows(sql, **params)
        return found[0] if found else None

    def execute(self, sql: str, **params: Any) -> int:
        return int(self._send([_statement(sql, params)])[0].row_count)


def _statement(sql: str, params: dict[str, Any]) -> Statement:
    # Without parameters the simple protocol runs it, which also takes scripts (migrations, seeds).
    return Statement(sql, params, simple=not params)


def _as_dicts(context: Any) -> list[dict[str, Any]]:
    columns = [column["name"] for column in context.columns or ()]
    return [dict(zip(columns, row, strict=True)) for row in context.rows or ()]


_BEGIN = Statement("START TRANSACTION", simple=True)
_COMMIT = Statement("COMMIT", simple=True)
_ROLE_SETUP = "SELECT set_config('role', :role, true), set_config('request.jwt.claims', :claims, true)"
# A user's transaction also checks, in the same statement, that the user exists (migration
# 20261127000100_require_user): a deleted account's token, or a service-role caller naming an
# unknown user_id, is 404 user_not_found wherever it lands, never a foreign-key 500.
_USER_SETUP = (
    "SELECT persona_rails_private.require_user(:sub), set_config('role', :role, true), "
    "set_config('request.jwt.claims', :claims, true)"
)
USER_NOT_FOUND = "PRU01"


class Database:
    """A tiny pool: Lambda runs one request at a time and keeps one connection; the local
    server's threads each borrow their own."""

    MAX_IDLE = 4

    def __init__(self, url: str, *, timeout: float | None = 30) -> None:
        self._kwargs = connect_kwargs(url, timeout)
        self._idle: queue.LifoQueue[Any] = queue.LifoQueue()

    def _open(self, setup: list[Statement], statements: list[Statement]) -> tuple[Any, list[Any]]:
        """Check out a connection and send START TRANSACTION, the set-up and the first statements
        together. An idle connection may have been closed by the pooler while the container
        slept: nothing ran on it, so try the next one, then a fresh one."""
        import pg8000.exceptions
        import pg8000.native

        batch = [_BEGIN, *setup, *statements]
        while True:
            try:
                connection = self._idle.get_nowait()
            except queue.Empty:
                connection = pg8000.native.Connection(**self._kwargs)
                _send_without_delay(connection)
                return connection, self._first_batch(connection, batch, len(setup))
            try:
                return connection, self._first_batch(connection, batch, len(setup))
            except (pg8000.exceptions.InterfaceError, OSError):
                _close_quietly(connection)

    def _first_batch(self, connection: Any, batch: list[Statement], setup_count: int) -> list[Any]:
        import pg8000.exceptions

        try:
            contexts = run_pipeline(connection, batch)
        except pg8000.exceptions.DatabaseError:
            # The transaction failed; end it and keep the connection for the next request.
            connection.run("ROLLBACK")
            self._checkin(connection)
            raise
        return contexts[1 + setup_count :]

    def _checkin(self, connection: Any) -> None:
        if self._idle.qsize() < self.MAX_IDLE:
            self._idle.put(connection)
        else:
            _close_quietly(connection)

    @contextmanager
    def _unit_of_work(self, setup: list[Statement]) -> Iterator[Tx]:
        import pg8000.exceptions

        tx = Tx(self, setup)
        try:
            yield tx
            if tx.started:
                tx.connection.run("COMMIT")
        except BaseException as exc:
            if tx.started:
                try:
                    tx.connection.run("ROLLBACK")
                except (pg8000.exceptions.InterfaceError, OSError):
                    _close_quietly(tx.connection)
                    tx.connection = None
            if isinstance(exc, pg8000.exceptions.DatabaseError):
                raise _as_db_error(exc) from None
            raise
        finally:
            if tx.connection is not None:
                self._checkin(tx.connection)

    def transaction(self, role: str, claims: dict[str, Any]) -> AbstractContextManager[Tx]:
        """A transaction run as `role` with these JWT claims, set up as PostgREST does it."""
        return self._unit_of_work([_role_setup(role, claims)])

    def as_user(self, claims: dict[str, Any]) -> AbstractContextManager[Tx]:
        """Act for the JWT's user: their claims, auth.uid() and every RLS policy apply. The user
        must exist (NotFound user_not_found otherwise), checked by the transaction's first statement."""
        return self._unit_of_work([_user_setup(claims)])

    def require_user(self, claims: dict[str, Any]) -> None:
        """For a request that reads and writes nothing of its user's (a catalog, a pure check): the
        user must exist all the same (NotFound user_not_found). One round trip."""
        self.run_as_user(claims)

    def as_service(self) -> AbstractContextManager[Tx]:
        return self.transaction(ROLE_SERVICE, {"role": ROLE_SERVICE})

    def as_owner(self) -> AbstractContextManager[Tx]:
        """The connecting role itself: migrations, seeds and test set-up only."""
        return self._unit_of_work([])

    def run_as_user(
        self, claims: dict[str, Any], *statements: tuple[str, dict[str, Any]]
    ) -> list[list[dict[str, Any]]]:
        """A whole transaction in one round trip: START TRANSACTION, the set-up, the statements
        and COMMIT sent together. For a unit of work whose statements do not depend on each
        other's results; if any fails, the COMMIT turns into a rollback and its error is raised."""
        import pg8000.exceptions

        setup = [_user_setup(claims)]
        work = [_statement(sql, params) for sql, params in statements]
        try:
            connection, contexts = self._open(setup, [*work, _COMMIT])
        except pg8000.exceptions.DatabaseError as exc:
            raise _as_db_error(exc) from None
        self._checkin(connection)
        return [_as_dicts(context) for context in contexts[: len(work)]]

    def close(self) -> None:
        while True:
            try:
                _close_quietly(self._idle.get_nowait())
            except queue.Empty:
                return


def _role_setup(role: str, claims: dict[str, Any]) -> Statement:
    return Statement(_ROLE_SETUP, {"role": role, "claims": json.dumps(claims)})


def _user_setup(claims: dict[str, Any]) -> Statement:
    return Statement(
        _USER_SETUP, {"sub": claims.get("sub"), "role": ROLE_FUNCTION, "claims": json.dumps(claims)}
    )


FOREIGN_KEY_VIOLATION = "23503"


@contextmanager
def unknown_user_is_not_found() -> Iterator[None]:
    """A service-role caller may name a `user_id` with no account. The first row that references
    `auth.users` then fails its foreign key: that is the caller's mistake (404 user_not_found),
    not the server's (500). Wrap the writes of a use case that a service-role token can reach."""
    from persona_rails.errors import NotFound

    try:
        yield
    except DbError as exc:
        if exc.sqlstate == FOREIGN_KEY_VIOLATION:
            raise NotFound("user_not_found", "no such user", field="user_id") from None
        raise


def _send_without_delay(connection: Any) -> None:
    """Turn off Nagle's algorithm on a TCP connection.

    pg8000 writes through an 8 KiB buffer, so a larger pipelined batch leaves in several
    segments; with Nagle on, the last one waits for the first one's ACK, and the server (which
    has started answering) costs the request one more network round trip, or a delayed ACK's
    40 ms. A unix socket has no such delay and takes no such option.
    """
    sock = getattr(connection, "_usock", None)
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def _close_quietly(connection: Any) -> None:
    try:
        connection.close()
    except Exception:  # noqa: BLE001 - the socket is already gone; nothing to save
        logger.debug("closing a broken database connection failed")
