"""Round trips to Postgres per request, through the real handler.

In AWS every flight to Supabase's pooler crosses the network, and that is most of a warm
request's latency (docs/benchmarks.md, "Round trips per request"). A counting TCP proxy (no
delay here: only the counts matter) sits on the handler's DATABASE_URL; each route is called
once on a warm connection, and the connection's start-up is checked apart.
"""

import uuid

from persona_rails_dev.template import functions
from tests.support.api import trigger_payload
from tests.support.dialog import appeal, decide, reason, start

FUNCTION_ID = "InterceptSessionFunction"
# What each route measured at 3d73be8 on the offline path (database code as of the platform
# rework, b02faf0: pipelined statements). A budget is the measured count, so any added round trip
# fails here; raise one only with a reason. The ceilings: the reason turn <= 5 (it was 11
# before the rework); a new function's routes <= 4.
BUDGETS = {
    # BEGIN+role, rule, abandoned sweep, clock, retry lookup and counts (one pipeline); the insert; COMMIT
    "POST /intercept-session": 3,
    "POST /intercept-session/{session_id}/reason": 2,  # read the context; write turn+record (each a whole tx)
    "POST /intercept-session/{session_id}/appeal": 2,  # the same as a reason
    # lock + turns + allowance + closing time; close + turns + event; COMMIT
    "POST /intercept-session/{session_id}/decision": 3,
    "GET /intercept-session/{session_id}": 1,  # one whole transaction
    "GET /intercept-session/me/history": 1,  # one statement builds the page, in one whole transaction
    "DELETE /intercept-session/me/history": 1,  # locks, then every delete, in one whole transaction
}


def test_every_route_stays_within_its_round_trip_budget(api, users, round_trip_proxy):
    user = users.create()
    rule = users.rule(user)

    # Cold: the first request opens the handler's one connection through the proxy.
    with round_trip_proxy.measure() as cold:
        start(api, user, rule)

    measured: dict[str, int] = {}

    def count(route_key, call, status=200):
        with round_trip_proxy.measure() as warm:
            reply = call()
        # A failed request can stop short of its statements and pass any budget.
        assert reply.status == status, f"{route_key}: {reply.status} {reply.body}"
        assert warm.counts.connections == 0, f"{route_key} opened a new connection"
        measured[route_key] = warm.round_trips
        return reply

    sid = count(
        "POST /intercept-session",
        lambda: api.post(
            "/intercept-session", user.token, trigger_payload(user.id, rule, session_id=str(uuid.uuid4()))
        ),
        status=201,
    ).body["session_id"]
    count("POST /intercept-session/{session_id}/reason", lambda: reason(api, user, sid))
    count("POST /intercept-session/{session_id}/appeal", lambda: appeal(api, user, sid))
    count("POST /intercept-session/{session_id}/decision", lambda: decide(api, user, sid, "comply"))
    count("GET /intercept-session/{session_id}", lambda: api.get(f"/intercept-session/{sid}", user.token))
    count("GET /intercept-session/me/history", lambda: api.get("/intercept-session/me/history", user.token))
    count(
        "DELETE /intercept-session/me/history",
        lambda: api.request("DELETE", "/intercept-session/me/history", user.token),
    )

    declared = {route.route_key for route in functions()[FUNCTION_ID].routes}
    assert set(measured) == declared == set(BUDGETS), (
        f"routes measured {sorted(measured)}, declared in template.yaml {sorted(declared)}, "
        f"budgeted {sorted(BUDGETS)}: every route needs a measurement and a budget"
    )
    # Zero would mean the handler bypassed the proxy, and every budget would pass unseen.
    assert all(measured.values()), f"requests that never reached the proxy: {measured}"
    over = [
        f"{route} made {measured[route]} round trips, budget {budget}"
        for route, budget in BUDGETS.items()
        if measured[route] > budget
    ]
    assert not over, "over the round-trip budget: " + "; ".join(over)

    # Opening a connection costs its handshake only: no extra statements on connect.
    assert cold.counts.connections == 1
    assert cold.setup_round_trips >= 1, "the proxy never saw the start-up end (ReadyForQuery)"
    assert cold.request_round_trips == measured["POST /intercept-session"], (
        f"a cold start made {cold.request_round_trips} round trips besides the handshake "
        f"({cold.setup_round_trips}), a warm one {measured['POST /intercept-session']}"
    )
