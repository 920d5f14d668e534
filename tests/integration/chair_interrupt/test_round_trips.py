"""Round trips to Postgres per request, through the real handler and a counting proxy.

A new function's budget is 4 per request (docs/benchmarks.md, "Round trips per request"). An
evaluation makes 2: one read of the debate's chairs on cooldown, one statement that claims the
interrupting chair's cooldown, logs the interrupt and stores the decision record (or only the
record). A disabled evaluation reads nothing: 1. Stats and a reset are one statement each; the
quick check reads no table, but asks once whether its user exists (issue 24). None of them may grow with the debate's history.
"""

from __future__ import annotations

import pytest

from persona_rails_dev.template import functions
from tests.integration.chair_interrupt.helpers import (
    CALM,
    FUNCTION,
    STRAW_MAN,
    VIRTUE,
    evaluate_body,
    new_debate,
    path,
    post_evaluate,
)
from tests.support.fake_openai import json_content, server_error

BUDGET = 4
# Measured; any added round trip fails here.
MEASURED = {
    "POST /debates/{debate_id}/interrupts/evaluate": 2,
    "POST /debates/{debate_id}/interrupts/quick-check": 1,
    "GET /debates/{debate_id}/interrupts/stats": 1,
    "POST /debates/{debate_id}/interrupts/reset-cooldowns": 1,
}
MEASURED_EVALUATIONS = {
    "interrupt": 2,
    "on cooldown": 2,
    "no trigger": 2,
    "no eligible chair": 2,
    "disabled": 1,
    "chair interruptions off": 1,
}
pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")


def _count(round_trip_proxy, call, status=200):
    with round_trip_proxy.measure() as warm:
        reply = call()
    # A refused request can stop short of its statements and pass any budget.
    assert reply.status == status, reply.body
    assert warm.counts.connections == 0, "a warm request opened a new connection"
    return warm.round_trips, reply


def test_every_route_stays_within_budget_and_does_not_grow_with_history(api, users, round_trip_proxy):
    owner = users.create()
    debate = new_debate()
    # Cold: the first request opens the handler's one connection through the proxy.
    with round_trip_proxy.measure() as cold:
        assert api.get(path(debate, "stats"), owner.token).status == 200
    assert cold.counts.connections == 1
    assert cold.request_round_trips == MEASURED["GET /debates/{debate_id}/interrupts/stats"]

    def evaluation(content, **config):
        return lambda: post_evaluate(api, owner.token, debate, evaluate_body(content, **config))

    measured = {}
    measured["interrupt"], first = _count(round_trip_proxy, evaluation(STRAW_MAN, other_chairs=[VIRTUE]))
    assert first.body is not None
    measured["on cooldown"], blocked = _count(round_trip_proxy, evaluation(STRAW_MAN))
    assert blocked.body is None
    measured["no trigger"], calm = _count(round_trip_proxy, evaluation(CALM, aggressiveness=1))
    assert calm.body is None
    measured["no eligible chair"], _ = _count(
        round_trip_proxy, evaluation(STRAW_MAN, other_chairs=[VIRTUE], aggressiveness=5)
    )
    measured["disabled"], _ = _count(round_trip_proxy, evaluation(STRAW_MAN, enabled=False))
    measured["chair interruptions off"], _ = _count(
        round_trip_proxy, evaluation(STRAW_MAN, allow_chair_interruptions=False)
    )
    assert measured == MEASURED_EVALUATIONS

    per_route = {
        "POST /debates/{debate_id}/interrupts/evaluate": measured["interrupt"],
        "POST /debates/{debate_id}/interrupts/quick-check": _count(
            round_trip_proxy,
            lambda: api.post(path(debate, "quick-check"), owner.token, {"content": STRAW_MAN}),
        )[0],
        "GET /debates/{debate_id}/interrupts/stats": _count(
            round_trip_proxy, lambda: api.get(path(debate, "stats"), owner.token)
        )[0],
        "POST /debates/{debate_id}/interrupts/reset-cooldowns": _count(
            round_trip_proxy, lambda: api.post(path(debate, "reset-cooldowns"), owner.token)
        )[0],
    }
    declared = {route.route_key for route in functions()[FUNCTION].routes}
    assert set(per_route) == declared == set(MEASURED)
    assert per_route == MEASURED
    assert max(per_route.values()) <= BUDGET

    # Thirty more interrupts in the same debate (cooldown 0): nothing grows.
    for _ in range(30):
        trips, reply = _count(round_trip_proxy, evaluation(STRAW_MAN, cooldown_seconds=0))
        assert reply.body is not None
        assert trips == MEASURED["POST /debates/{debate_id}/interrupts/evaluate"]
    stats_trips, stats = _count(round_trip_proxy, lambda: api.get(path(debate, "stats"), owner.token))
    assert stats.body["total_interrupts"] == 31
    assert stats_trips == MEASURED["GET /debates/{debate_id}/interrupts/stats"]


def test_an_llm_evaluation_costs_the_same_round_trips(api, users, round_trip_proxy, fake_openai):
    owner = users.create()
    debate = new_debate()
    api.get(path(debate, "stats"), owner.token)  # opens the proxied connection
    fake_openai.script(
        json_content(
            {
                "shouldInterrupt": True,
                "interruptingChairPosition": "chair_2",
                "reason": "straw_man_detected",
                "triggerContent": "just want to feel good",
                "urgency": 0.9,
                "suggestedOpener": None,
            }
        ),
        server_error(500),
    )
    used, reply = _count(round_trip_proxy, lambda: post_evaluate(api, owner.token, debate, evaluate_body()))
    assert reply.body is not None
    fell_back, _ = _count(
        round_trip_proxy, lambda: post_evaluate(api, owner.token, new_debate(), evaluate_body())
    )
    assert (used, fell_back) == (2, 2)
    assert len(fake_openai.requests) == 2
