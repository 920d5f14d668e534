"""Round trips to Postgres per request, through the real handler and a counting proxy.

The issue's budget is 4 per patient turn (docs/benchmarks.md, "Round trips per request"). A turn
makes 2: one batch reads the encounter (with whether it is live), the keyed turn and the last
turn; one statement advances the encounter and stores the turn with its decision record. A start
makes 2 (look for a retry; insert, erasing the expired state in the same statement), a GET 1,
a stored validation 1, an unstored one and the catalog none, and a retry 1 (the lookup finds
what the first one stored). None of them may grow with the encounter's history.

The proxy delays each direction, as the network to Supabase's pooler does: a start's batch
carries the scenario and persona snapshots (~20 KB), which leave the client in several writes, and
with no delay the server answers the first statements before the last bytes arrive, which a
counter of flights would read as extra round trips. Delayed, the batch arrives as one flight, as it
does on a real link; the elapsed time confirms it (each round trip costs twice the delay, and no
request waits one more).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from persona_rails_dev.template import functions
from tests.integration.sps_encounter.helpers import (
    FUNCTION,
    ONSET,
    SCENARIOS,
    VALIDATE,
    get_encounter,
    inline_scenario,
    post_start,
    post_turn,
    start_body,
)
from tests.support.delay_proxy import DelayProxy
from tests.support.fake_openai import json_content, server_error
from tests.support.fixtures import _forget_handler_database

DELAY = 0.04
ROUND_TRIP = 2 * DELAY

BUDGET = 4
# Measured on the offline path; any added round trip fails here.
MEASURED = {
    "POST /sps/encounters": 2,
    "POST /sps/encounters/{encounter_id}/turns": 2,
    "GET /sps/encounters/{encounter_id}": 1,
    # Neither reads a table; each asks once whether its user exists (issue 24).
    "POST /sps/validate": 1,
    "GET /sps/scenarios": 1,
}
MEASURED_OTHERS = {"stored validation": 1, "retried start": 1, "retried turn": 1, "keyed retry": 1}
pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")


@pytest.fixture
def round_trip_proxy(database_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The handlers' DATABASE_URL through a counting proxy that delays each direction."""
    with DelayProxy.to(database_url, delay_seconds=DELAY) as proxy:
        monkeypatch.setenv("DATABASE_URL", proxy.url_for(database_url))
        _forget_handler_database()
        try:
            yield proxy
        finally:
            _forget_handler_database()


def _count(round_trip_proxy, call, status=200, *, timed=True):
    with round_trip_proxy.measure() as warm:
        started, computing = time.perf_counter(), time.thread_time()
        reply = call()
        elapsed = time.perf_counter() - started
        # The handler runs in this thread: its own CPU time (slower on a loaded machine) is not
        # waiting, and only waiting can hide a round trip the proxy did not count.
        waited = elapsed - (time.thread_time() - computing)
    # A refused request can stop short of its statements and pass any budget.
    assert reply.status == status, reply.body
    assert warm.counts.connections == 0, "a warm request opened a new connection"
    trips = warm.round_trips
    # Each round trip waits twice the delay; a request waiting for one more than counted would
    # take at least another full round trip.
    assert trips * ROUND_TRIP <= elapsed + 0.005, (trips, elapsed)
    if timed:  # an LLM call adds its own latency
        assert waited < (trips + 1) * ROUND_TRIP, (trips, elapsed, waited)
    return trips, reply


def test_every_route_stays_within_budget_and_does_not_grow_with_history(api, users, round_trip_proxy):
    learner = users.create()
    token = learner.token
    # Cold: the first request opens the handler's one connection through the proxy.
    with round_trip_proxy.measure() as cold:
        assert post_start(api, token, start_body(seed=1)).status == 201
    assert cold.counts.connections == 1
    assert cold.request_round_trips == MEASURED["POST /sps/encounters"]

    start_trips, started = _count(round_trip_proxy, lambda: post_start(api, token), status=201)
    encounter = started.body["encounter_id"]
    turn_trips: dict[int, int] = {}
    get_trips: dict[int, int] = {}
    for number in range(1, 13):
        text = f"Question {number}: when did it start, and where is the pain?"
        turn_trips[number], reply = _count(
            round_trip_proxy, lambda text=text: post_turn(api, token, encounter, text)
        )
        assert reply.body["learner_turn_index"] == 2 * (number - 1)
        if number in (2, 12):
            get_trips[number], detail = _count(round_trip_proxy, lambda: get_encounter(api, token, encounter))
            assert len(detail.body["transcript"]) == 2 * number
    transcript = detail.body["transcript"]
    validate_trips, result = _count(
        round_trip_proxy,
        lambda: api.post(VALIDATE, token, {"scenario_id": "chest-pain", "transcript": transcript}),
    )
    assert result.body["summaryMetrics"]["totalPatientTurns"] == 12
    catalog_trips, _ = _count(round_trip_proxy, lambda: api.get(SCENARIOS, token))

    measured = {
        "POST /sps/encounters": start_trips,
        "POST /sps/encounters/{encounter_id}/turns": turn_trips[2],
        "GET /sps/encounters/{encounter_id}": get_trips[2],
        "POST /sps/validate": validate_trips,
        "GET /sps/scenarios": catalog_trips,
    }
    declared = {route.route_key for route in functions()[FUNCTION].routes}
    assert set(measured) == declared == set(MEASURED)
    assert measured == MEASURED
    assert max(measured.values()) <= BUDGET
    assert set(turn_trips.values()) == {MEASURED["POST /sps/encounters/{encounter_id}/turns"]}, turn_trips
    assert get_trips[12] == get_trips[2]


def test_stored_validations_and_retries_cost_one(api, users, round_trip_proxy):
    learner = users.create()
    token = learner.token
    assert post_start(api, token, start_body(seed=1)).status == 201  # opens the proxied connection
    measured = {}
    transcript = [{"turnIndex": 0, "role": "learner", "text": ONSET}]
    measured["stored validation"], stored = _count(
        round_trip_proxy,
        lambda: api.post(
            VALIDATE, token, {"scenario_id": "chest-pain", "transcript": transcript, "store": True}
        ),
    )
    assert stored.body["validation_id"]
    first = post_start(api, token, key="rt-start")
    assert first.status == 201
    measured["retried start"], _ = _count(round_trip_proxy, lambda: post_start(api, token, key="rt-start"))
    encounter = first.body["encounter_id"]
    assert post_turn(api, token, encounter, ONSET).status == 200
    measured["retried turn"], _ = _count(round_trip_proxy, lambda: post_turn(api, token, encounter, ONSET))
    assert post_turn(api, token, encounter, "Where is the pain?", key="k").status == 200
    measured["keyed retry"], _ = _count(
        round_trip_proxy, lambda: post_turn(api, token, encounter, "Where is the pain?", key="k")
    )
    assert measured == MEASURED_OTHERS
    assert max(measured.values()) <= BUDGET


def test_a_start_that_erases_expired_state_costs_the_same(api, users, db, round_trip_proxy):
    learner = users.create()
    token = learner.token
    first = post_start(api, token, start_body(seed=1))
    assert first.status == 201
    with db.as_owner() as tx:
        tx.execute(
            "UPDATE public.sps_encounters SET expires_at = now() - interval '1 minute' WHERE user_id = CAST(:u AS uuid)",
            u=learner.id,
        )
    trips, _ = _count(round_trip_proxy, lambda: post_start(api, token, start_body(seed=2)), status=201)
    assert trips == MEASURED["POST /sps/encounters"]
    with db.as_owner() as tx:
        erased = tx.one(
            "SELECT state FROM public.sps_encounters WHERE id = CAST(:e AS uuid)",
            e=first.body["encounter_id"],
        )
    assert erased["state"] is None


def test_an_llm_turn_costs_the_same_round_trips(api, users, round_trip_proxy, fake_openai):
    learner = users.create()
    token = learner.token
    started = post_start(api, token, start_body(seed=1))  # opens the proxied connection
    encounter = started.body["encounter_id"]
    fake_openai.script(json_content({"text": "About three weeks ago."}), server_error(500))
    used, reply = _count(round_trip_proxy, lambda: post_turn(api, token, encounter, ONSET), timed=False)
    assert reply.body["meta"]["source"] == "llm"
    fell_back, reply = _count(
        round_trip_proxy, lambda: post_turn(api, token, encounter, "Where is the pain?")
    )
    assert reply.body["meta"]["fallbackReason"] == "server_error"
    assert (used, fell_back) == (2, 2)
    assert len(fake_openai.requests) == 2


def test_an_inline_scenario_costs_the_same_round_trips(api, users, round_trip_proxy):
    """Its turns record the whole scenario in their decision records: a bigger batch, no more trips."""
    learner = users.create()
    token = learner.token
    assert post_start(api, token, start_body(seed=1)).status == 201  # opens the proxied connection
    trips, started = _count(
        round_trip_proxy,
        lambda: post_start(api, token, {"scenario": inline_scenario(), "seed": 5}),
        status=201,
        # Not timed: validating, compiling and linting a case seen for the first time is CPU work
        # (tens of ms on a loaded machine) that would read as a missing round trip.
        timed=False,
    )
    assert trips == MEASURED["POST /sps/encounters"]
    encounter = started.body["encounter_id"]
    for text in (ONSET, "Where is the pain?", "What brings you in today?"):
        trips, _ = _count(round_trip_proxy, lambda text=text: post_turn(api, token, encounter, text))
        assert trips == MEASURED["POST /sps/encounters/{encounter_id}/turns"]
