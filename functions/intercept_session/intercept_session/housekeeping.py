"""Lambda entry of InterceptHousekeepingFunction (template.yaml:
intercept_session.housekeeping.lambda_handler), the interception dialog's own chores on an hourly
schedule: close every user's abandoned dialogs (each user's next start also closes their own) and
purge raw reasons past their retention (docs/intercept-session.md, "Data rights").

The weekly summary does not wait for this: it counts a dialog still open past its grace as
abandoned by itself (weekly_aggregates), so neither schedule depends on the other.
"""

from dataclasses import dataclass
from typing import Any

from persona_rails.coldstart import end_of_init
from persona_rails.db import Database, get_database
from persona_rails.housekeeping import until_done
from persona_rails.observability import logger, metrics, publishing_metrics
from persona_rails.secrets import require_secrets
from persona_rails.settings import InterceptSettings, cached_settings

# Fetched and checked at init, so a wrong secret parameter fails the deploy's first tick.
require_secrets()


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


@logger.inject_lambda_context(log_event=False)
@publishing_metrics
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, int]:
    # Any event runs the chores: they are idempotent, and the scheduler's input only names its tick.
    report = run_housekeeping(get_database(), cached_settings(InterceptSettings))
    metrics.add_metric(name="AbandonedDialogsClosed", unit="Count", value=report.abandoned_closed)
    metrics.add_metric(name="ReasonsPurged", unit="Count", value=report.reasons_purged)
    return report.as_dict()


# The init is over: the collector back on, what it built frozen (persona_rails.coldstart).
end_of_init()
