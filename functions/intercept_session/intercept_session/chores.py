"""The interception dialog's chores, run by InterceptHousekeepingFunction (housekeeping.py) for
every user at once: close abandoned dialogs, purge raw reasons past their retention. Each is a SQL
function of the migrations, run in batches as service_role (persona_rails.housekeeping)."""

from __future__ import annotations

from dataclasses import dataclass

from persona_rails.db import Database
from persona_rails.housekeeping import until_done
from persona_rails.observability import logger
from persona_rails.settings import InterceptSettings


@dataclass(frozen=True)
class InterceptHousekeeping:
    abandoned_closed: int
    reasons_purged: int

    def as_dict(self) -> dict[str, int]:
        return {"abandoned_closed": self.abandoned_closed, "reasons_purged": self.reasons_purged}


def run_housekeeping(db: Database, settings: InterceptSettings) -> InterceptHousekeeping:
    report = InterceptHousekeeping(
        abandoned_closed=until_done(
            db,
            "SELECT public.intercept_close_abandoned(:grace, :limit) AS n",
            grace=settings.abandon_grace_seconds,
        ),
        reasons_purged=until_done(
            db,
            "SELECT public.intercept_purge_reasons(:days, :limit) AS n",
            days=settings.reason_retention_days,
        ),
    )
    logger.info("intercept housekeeping finished", extra=report.as_dict())
    return report
