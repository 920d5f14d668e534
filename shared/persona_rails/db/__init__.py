"""Postgres access: one connection per warm Lambda, each unit of work a transaction run as the caller."""

from persona_rails.db.database import Database, DbError, Tx, unknown_user_is_not_found
from persona_rails.db.default import get_database

__all__ = ["Database", "DbError", "Tx", "get_database", "unknown_user_is_not_found"]
