"""The encounters' chore, run by SpsHousekeepingFunction (housekeeping.py) for every learner at
once: erase the runtime state of every expired encounter (spec §2: it does not outlive its
session), in batches as service_role (persona_rails.housekeeping)."""

from __future__ import annotations

from persona_rails.db import Database
from persona_rails.housekeeping import until_done
from persona_rails.observability import logger


def erase_expired_states(db: Database) -> int:
    erased = until_done(db, "SELECT public.sps_erase_expired_states(:limit) AS n")
    logger.info("sps housekeeping finished", extra={"encounter_states_erased": erased})
    return erased
