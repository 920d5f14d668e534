"""Lambda entry of InterceptHousekeepingFunction (template.yaml:
intercept_session.housekeeping.lambda_handler): the interception dialog's own chores
(intercept_session.chores) on an hourly schedule. Each user's next start also closes their own
abandoned dialogs (docs/intercept-session.md, "Abandoned dialogs" and "Data rights").

The weekly summary does not wait for this: it counts a dialog still open past its countdown and
grace as abandoned by itself (weekly_aggregates), so neither schedule depends on the other.
"""

from typing import Any

from intercept_session.chores import run_housekeeping
from persona_rails.coldstart import end_of_init
from persona_rails.db import get_database
from persona_rails.observability import logger, metrics, publishing_metrics
from persona_rails.secrets import require_secrets
from persona_rails.settings import InterceptSettings, cached_settings

# Fetched and checked at init, so a wrong secret parameter fails the deploy's first tick.
require_secrets()


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
