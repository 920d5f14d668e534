"""The hourly tick's chores before the summaries: close every user's abandoned dialogs (so the
week counts them), purge raw reasons past their retention, and erase the runtime state of expired
SPS encounters (spec §2: it does not outlive its session). Each is a SQL function of the
migrations, run as service_role, and each is idempotent: a retried tick redoes nothing that was
done.
"""

from __future__ import annotations

from dataclasses import dataclass

from persona_rails.db import Database
from persona_rails.observability import logger
from persona_rails.settings import InterceptSettings

# One statement closes (or purges) at most this many sessions; the loop runs until none is left.
PER_STATEMENT = 5000


@dataclass(frozen=True)
class Housekeeping:
    abandoned_closed: int
    reasons_purged: int
    encounter_states_erased: int

    def as_dict(self) -> dict[str, int]:
        return {
            "abandoned_closed": self.abandoned_closed,
            "reasons_purged": self.reasons_purged,
            "encounter_states_erased": self.encounter_states_erased,
        }


def _until_done(db: Database, sql: str, **params: int) -> int:
    """Run a batched chore until a batch comes back short: each batch is its own transaction,
    so a large first backlog never holds locks or a snapshot for long."""
    done = 0
    while True:
        with db.as_service() as tx:
            row = tx.one(sql, limit=PER_STATEMENT, **params)
        batch = int(row["n"]) if row else 0
        done += batch
        if batch < PER_STATEMENT:
            return done


def run_housekeeping(db: Database, settings: InterceptSettings) -> Housekeeping:
    report = Housekeeping(
        abandoned_closed=_until_done(
            db,
            "SELECT public.intercept_close_abandoned(:grace, :limit) AS n",
            grace=settings.abandon_grace_seconds,
        ),
        reasons_purged=_until_done(
            db,
            "SELECT public.intercept_purge_reasons(:days, :limit) AS n",
            days=settings.reason_retention_days,
        ),
        encounter_states_erased=_until_done(db, "SELECT public.sps_erase_expired_states(:limit) AS n"),
    )
    logger.info("housekeeping finished", extra=report.as_dict())
    return report
