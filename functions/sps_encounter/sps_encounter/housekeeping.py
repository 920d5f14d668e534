"""Lambda entry of SpsHousekeepingFunction (template.yaml: sps_encounter.housekeeping.lambda_handler):
the encounters' own chore (sps_encounter.chores) on an hourly schedule. A learner's next start
also erases their own expired states.
"""

from typing import Any

from persona_rails.coldstart import end_of_init
from persona_rails.db import get_database
from persona_rails.observability import logger, metrics, publishing_metrics
from persona_rails.secrets import require_secrets
from sps_encounter.chores import erase_expired_states

# Fetched and checked at init, so a wrong secret parameter fails the deploy's first tick.
require_secrets()


@logger.inject_lambda_context(log_event=False)
@publishing_metrics
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, int]:
    # Any event runs the chore: it is idempotent, and the scheduler's input only names its tick.
    erased = erase_expired_states(get_database())
    metrics.add_metric(name="EncounterStatesErased", unit="Count", value=erased)
    return {"encounter_states_erased": erased}


# The init is over: the collector back on, what it built frozen (persona_rails.coldstart).
end_of_init()
