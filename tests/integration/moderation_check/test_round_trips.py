"""Round trips to Postgres per moderation check, through the real handler and a counting proxy.

A new function's budget is 4 per request (docs/benchmarks.md, "Round trips per request"); a
check makes 2: one transaction reads the nearest earlier check and the cached LLM score
together, one writes the check, its decision record and any new LLM score.
"""

from tests.integration.moderation_check.test_check import PATH, payload

BUDGET = 4
MEASURED = 2


def test_a_check_makes_two_round_trips_fresh_or_reused(api, users, round_trip_proxy):
    user = users.create()
    api.post(PATH, user.token, payload("你好"))  # opens the handler's connection through the proxy
    counts = {}
    for name, body in (("fresh", payload("亲爱的，我好想你")), ("reused", payload("亲爱的，我好想你"))):
        with round_trip_proxy.measure() as measured:
            reply = api.post(PATH, user.token, body)
        assert reply.status == 200, reply.body
        assert measured.counts.connections == 0
        counts[name] = measured.round_trips
        assert reply.body["results"]["intimacy"]["reused"] is (name == "reused")
    assert counts == {"fresh": MEASURED, "reused": MEASURED}, counts
    assert max(counts.values()) <= BUDGET
