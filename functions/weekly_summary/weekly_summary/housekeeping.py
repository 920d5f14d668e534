"""The hourly tick's chores before the summaries: close every user's abandoned dialogs (so the
week counts them) and purge raw reasons past their retention. Both are SQL functions of the
interception migrations, run as service_role, and both are idempotent: a retried tick redoes
nothing that was done.
"""

from __future__ import annotations

from dataclasses import dataclass

from persona_rails.db import Database
from persona_rails.observability import logger
from persona_rails.settings import InterceptSettings

# One statement closes at most this many dialogs; the loop runs until none is left.
ABANDONED_PER_STATEMENT = 5000


@dataclass(frozen=True)
class Housekeeping:
    abandoned_closed: int
    reasons_purged: int

    def as_dict(self) -> dict[str, int]:
        return {"abandoned_closed": self.abandoned_closed, "reasons_purged": self.reasons_purged}


def run_housekeeping(db: Database, settings: InterceptSettings) -> Housekeeping:
    closed = 0
    while True:
        with db.as_service() as tx:
            row = tx.one(
                "SELECT public.intercept_close_abandoned(:grace, :limit) AS n",
                grace=settings.abandon_grace_seconds,
                limit=ABANDONED_PER_STATEMENT,
            )
        batch = int(row["n"]) if row else 0
        closed += batch
        if batch < ABANDONED_PER_STATEMENT:
            break
    with db.as_service() as tx:
        row = tx.one(
            "SELECT public.intercept_purge_reasons(:days) AS n", days=settings.reason_retention_days
        )
    report = Housekeeping(abandoned_closed=closed, reasons_purged=int(row["n"]) if row else 0)
    logger.info("housekeeping finished", extra=report.as_dict())
    return report
