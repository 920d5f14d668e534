"""SpsHousekeepingFunction through its Lambda entry and events/ fixture: one tick erases the state
of every expired encounter and keeps the rest (the chore's own cases: tests/integration/sps_encounter)."""

from __future__ import annotations

import pytest

from persona_rails_dev.lambda_runtime import LambdaContext, load_handler
from persona_rails_dev.template import functions
from tests.support.api import load_event

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")

ENCOUNTER = """INSERT INTO public.sps_encounters (user_id, scenario_id, scenario_source, scenario_hash, scenario,
     persona_id, persona_source, persona_hash, persona, seed, state, expires_at, config_version, start_fingerprint)
   VALUES (CAST(:u AS uuid), 'chest-pain', 'inline', repeat('a', 64), '{}', 'p', 'inline', repeat('b', 64), '{}', 1,
     '{"rapport": "guarded"}', now() + make_interval(mins => :minutes), 'v', 'f')
   RETURNING id"""


def tick() -> dict:
    handler = load_handler(functions()["SpsHousekeepingFunction"])
    return handler(load_event("sps-housekeeping/scheduled.json"), LambdaContext("SpsHousekeepingFunction"))


def state_of(db, encounter) -> object:
    with db.as_owner() as tx:
        return tx.one("SELECT state FROM public.sps_encounters WHERE id = :id", id=encounter)["state"]


def test_one_tick_erases_every_expired_state_and_keeps_the_live_ones(db, users):
    with db.as_owner() as tx:
        expired = [tx.one(ENCOUNTER, u=users.create().id, minutes=-1)["id"] for _ in range(2)]
        live = tx.one(ENCOUNTER, u=users.create().id, minutes=60)["id"]

    report = tick()

    assert report["encounter_states_erased"] >= 2
    assert [state_of(db, encounter) for encounter in expired] == [None, None]
    assert state_of(db, live) == {"rapport": "guarded"}
    assert tick()["encounter_states_erased"] == 0
