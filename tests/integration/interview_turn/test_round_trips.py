"""Round trips to Postgres per request, through the real handler and a counting proxy.

A new function's budget is 4 per request (docs/benchmarks.md, "Round trips per request"). A turn
makes 2: one batch reads the session with its last turn (and the keyed turn), one statement
advances the session and stores the turn with its decision record. A start makes 2 (look for a
retry; insert the session, then the opening turn and its record, returning both), a GET 1, and a
retried request 1 (the lookup finds what the first one stored). None of them may
grow with the session's history: the engine's state is bounded and only the last turn is read.
"""

from __future__ import annotations

from persona_rails_dev.template import functions
from tests.integration.interview_turn.helpers import (
    FUNCTION,
    SESSIONS,
    assert_contract,
    assert_turn_response,
    post_turn,
    start_body,
    take,
)

BUDGET = 4
# Measured on the offline path; any added round trip fails here.
MEASURED = {
    "POST /interview/sessions": 2,
    "POST /interview/sessions/{session_id}/turns": 2,
    "GET /interview/sessions/{session_id}": 1,
}
MEASURED_RETRY = {"start": 1, "turn": 1, "keyed turn": 1}


def test_every_route_stays_within_budget_and_does_not_grow_with_history(api, users, round_trip_proxy):
    narrator = users.create()
    # Cold: the first request opens the handler's one connection through the proxy.
    with round_trip_proxy.measure() as cold:
        assert api.post(SESSIONS, narrator.token, start_body(language="zh")).status == 201
    assert cold.counts.connections == 1
    assert cold.request_round_trips == MEASURED["POST /interview/sessions"]

    def count(call, status=200):
        with round_trip_proxy.measure() as warm:
            reply = call()
        # A refused request can stop short of its statements and pass any budget.
        assert reply.status == status, reply.body
        assert warm.counts.connections == 0, "a warm request opened a new connection"
        return warm.round_trips, reply

    start_trips, started = count(lambda: api.post(SESSIONS, narrator.token, start_body()), status=201)
    assert_contract(started.body["opening"])
    sid = started.body["session_id"]
    turn_trips: dict[int, int] = {}
    get_trips: dict[int, int] = {}
    for number in range(1, 31):
        text = f"Memory {number}: we lived by the harbour, and my father worked at the shipyard."
        turn_trips[number], reply = count(lambda text=text: post_turn(api, narrator.token, sid, text))
        assert assert_turn_response(reply.body)["turn"]["turn_no"] == number
        if number in (3, 30):
            get_trips[number], history = count(lambda: api.get(f"{SESSIONS}/{sid}", narrator.token))
            assert len(history.body["turns"]) == number + 1

    measured = {
        "POST /interview/sessions": start_trips,
        "POST /interview/sessions/{session_id}/turns": turn_trips[3],
        "GET /interview/sessions/{session_id}": get_trips[3],
    }
    declared = {route.route_key for route in functions()[FUNCTION].routes}
    assert set(measured) == declared == set(MEASURED)
    assert measured == MEASURED
    assert max(measured.values()) <= BUDGET
    assert set(turn_trips.values()) == {MEASURED["POST /interview/sessions/{session_id}/turns"]}, turn_trips
    assert turn_trips[30] == turn_trips[3]
    assert get_trips[30] == get_trips[3]


def test_retries_cost_no_more_than_a_first_request(api, users, round_trip_proxy):
    narrator = users.create()
    api.post(SESSIONS, narrator.token, start_body(language="zh"))  # opens the proxied connection
    assert api.post(SESSIONS, narrator.token, start_body()).status == 201
    measured = {}
    with round_trip_proxy.measure() as retried_start:
        reply = api.post(SESSIONS, narrator.token, start_body())
    assert reply.status == 200
    measured["start"] = retried_start.round_trips
    sid = reply.body["session_id"]
    take(api, narrator, sid, "We lived by the harbour.")
    with round_trip_proxy.measure() as retried_turn:
        assert post_turn(api, narrator.token, sid, "We lived by the harbour.").status == 200
    measured["turn"] = retried_turn.round_trips
    take(api, narrator, sid, "My father worked at the shipyard.", key="k")
    with round_trip_proxy.measure() as retried_keyed:
        assert post_turn(api, narrator.token, sid, "My father worked at the shipyard.", key="k").status == 200
    measured["keyed turn"] = retried_keyed.round_trips
    assert measured == MEASURED_RETRY
    assert max(measured.values()) <= BUDGET
