"""Lambda entry of SpsHousekeepingFunction (template.yaml: sps_encounter.housekeeping.lambda_handler),
the encounters' own chore on an hourly schedule: erase the runtime state of every expired
encounter (spec §2: it does not outlive its session). A learner's next start also erases their own.
"""

from typing import Any

from persona_rails.coldstart import end_of_init
from persona_rails.db import Database, get_database
from persona_rails.housekeeping import until_done
from persona_rails.observability import logger, metrics, publishing_metrics
from persona_rails.secrets import require_secrets

# Fetched and checked at init, so a wrong secret parameter fails the deploy's first tick.
require_secrets()


def erase_expired_states(db: Database) -> int:
    erased = until_done(db, "SELECT public.sps_erase_expired_states(:limit) AS n")
    logger.info("sps housekeeping finished", extra={"encounter_states_erased": erased})
    return erased


@logger.inject_lambda_context(log_event=False)
@publishing_metrics
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, int]:
    # Any event runs the chore: it is idempotent, and the scheduler's input only names its tick.
    erased = erase_expired_states(get_database())
    metrics.add_metric(name="EncounterStatesErased", unit="Count", value=erased)
    return {"encounter_states_erased": erased}


# The init is over: the collector back on, what it built frozen (persona_rails.coldstart).
end_of_init()
