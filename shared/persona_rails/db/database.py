"""Transactions that run as the JWT's user, exactly as PostgREST runs them.

Every unit of work starts a transaction, switches to the caller's role and publishes the JWT
claims in `request.jwt.claims`, so that `auth.uid()` and row-level security behave as they do
behind Supabase's REST API. The connection itself is cached for the life of a warm container.
"""

from __future__ import annotations

import json
import queue
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from functools import cache
from typing import Any

from persona_rails.db import pipeline
from persona_rails.db.url import connect_kwargs
from persona_rails.observability import logger
from persona_rails.settings import DatabaseSettings, cached_settings

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


def _as_db_error(exc: Exception) -> DbError:
    # Only the SQLSTATE, message and constraint survive: the driver's detail field quotes
    # the failing row, which may hold user text, and must not reach a log or a traceback.
    fields = exc.args[0] if exc.args and isinstance(exc.args[0], dict) else {}
    return DbError(str(fields.get("C", "XX000")), str(fields.get("M", exc)), fields.get("n"))


class Tx:
    """One open transaction: every statement returns rows as dicts."""

    def __init__(self, connection: Any) -> None:
        self._connection = connection

    def _run(self, sql: str, params: dict[str, Any]) -> Any:
        import pg8000.exceptions

        try:
            return pipeline.execute(self._connection, sql, params)
        except pg8000.exceptions.DatabaseError as exc:
            raise _as_db_error(exc) from None

    def rows(self, sql: str, **params: Any) -> list[dict[str, Any]]:
        context = self._run(sql, params)
        columns = [column["name"] for column in context.columns or ()]
        return [dict(zip(columns, row, strict=True)) for row in context.rows or ()]

    def one(self, sql: str, **params: Any) -> dict[str, Any] | None:
        found = self.rows(sql, **params)
        return found[0] if found else None

    def execute(self, sql: str, **params: Any) -> int:
        return int(self._run(sql, params).row_count)


class Database:
    """A tiny pool: Lambda runs one request at a time and keeps one connection; the local
    server's threads each borrow their own."""

    MAX_IDLE = 4

    def __init__(self, url: str, *, timeout: float | None = 30) -> None:
        self._kwargs = connect_kwargs(url, timeout)
        self._idle: queue.LifoQueue[Any] = queue.LifoQueue()

    def _checkout(self, setup_sql: str | None, params: dict[str, Any]) -> Any:
        import pg8000.exceptions
        import pg8000.native

        # An idle connection may have been closed by the pooler while the container slept:
        # try the next one, and open a fresh one when none is left.
        while True:
            try:
                connection = self._idle.get_nowait()
            except queue.Empty:
                connection = pg8000.native.Connection(**self._kwargs)
                self._begin(connection, setup_sql, params)
                return connection
            try:
                self._begin(connection, setup_sql, params)
                return connection
            except (pg8000.exceptions.InterfaceError, OSError):
                _close_quietly(connection)

    def _begin(self, connection: Any, setup_sql: str | None, params: dict[str, Any]) -> None:
        import pg8000.exceptions

        try:
            pipeline.begin(connection, setup_sql, params)
        except pg8000.exceptions.DatabaseError:
            # The set-up failed inside the new transaction: end it and keep the connection.
            connection.run("ROLLBACK")
            self._checkin(connection)
            raise

    def _checkin(self, connection: Any) -> None:
        if self._idle.qsize() < self.MAX_IDLE:
            self._idle.put(connection)
        else:
            _close_quietly(connection)

    @contextmanager
    def _unit_of_work(self, setup_sql: str | None = None, **params: Any) -> Iterator[Tx]:
        import pg8000.exceptions

        try:
            connection = self._checkout(setup_sql, params)
        except pg8000.exceptions.DatabaseError as exc:
            raise _as_db_error(exc) from None
        try:
            yield Tx(connection)
            connection.run("COMMIT")
        except BaseException as exc:
            try:
                connection.run("ROLLBACK")
            except (pg8000.exceptions.InterfaceError, OSError):
                _close_quietly(connection)
                connection = None
            if isinstance(exc, pg8000.exceptions.DatabaseError):
                raise _as_db_error(exc) from None
            raise
        finally:
            if connection is not None:
                self._checkin(connection)

    def transaction(self, role: str, claims: dict[str, Any]) -> AbstractContextManager[Tx]:
        """A transaction run as `role` with these JWT claims, set up as PostgREST does it."""
        return self._unit_of_work(
            "SELECT set_config('role', :role, true), set_config('request.jwt.claims', :claims, true)",
            role=role,
            claims=json.dumps(claims),
        )

    def as_user(self, claims: dict[str, Any]) -> AbstractContextManager[Tx]:
        """Act for the JWT's user: their claims, auth.uid() and every RLS policy apply."""
        return self.transaction(ROLE_FUNCTION, claims)

    def as_service(self) -> AbstractContextManager[Tx]:
        return self.transaction(ROLE_SERVICE, {"role": ROLE_SERVICE})

    def as_owner(self) -> AbstractContextManager[Tx]:
        """The connecting role itself: migrations, seeds and test set-up only."""
        return self._unit_of_work()

    def close(self) -> None:
        while True:
            try:
                _close_quietly(self._idle.get_nowait())
            except queue.Empty:
                return


def _close_quietly(connection: Any) -> None:
    try:
        connection.close()
    except Exception:  # noqa: BLE001 - the socket is already gone; nothing to save
        logger.debug("closing a broken database connection failed")


def resolve_database_url(settings: DatabaseSettings) -> str:
    if settings.database_url:
        return settings.database_url
    from persona_rails.db.embedded import ensure_embedded_database

    return ensure_embedded_database(settings.embedded_pgdata)


@cache
def get_database() -> Database:
    settings = cached_settings(DatabaseSettings)
    return Database(resolve_database_url(settings), timeout=settings.db_timeout_seconds)
