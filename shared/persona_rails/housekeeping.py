"""What every function's scheduled housekeeping shares: running a chore to the end.

A chore is a SQL function of the migrations that handles at most `limit` rows per call and
returns how many it handled. It runs as service_role (the scheduled functions' login: docs/deploy.md),
one transaction per call, until a call comes back short, so a large first backlog never holds
locks or a snapshot for long. Each chore is idempotent: a retried tick redoes nothing that was done.
"""

from __future__ import annotations

from persona_rails.db import Database

# One statement handles at most this many rows; the loop runs until none is left.
PER_STATEMENT = 5000


def until_done(db: Database, sql: str, **params: int) -> int:
    """Run `sql` (which takes `:limit` and answers one row with `n`) until a batch comes back short."""
    done = 0
    while True:
        with db.as_service() as tx:
            row = tx.one(sql, limit=PER_STATEMENT, **params)
        batch = int(row["n"]) if row else 0
        done += batch
        if batch < PER_STATEMENT:
            return done
