"""`rails smoke` runs one dialog per HTTP function over real HTTP: here against the local stack
(every template function on one port), as a fresh user with a rule of their own. A function's
dialog is its hook's `SMOKE`, or, with none, its fixtures: nothing lists the functions."""

from __future__ import annotations

import json
from dataclasses import replace

from persona_rails_dev import smoke
from persona_rails_dev.template import functions


def test_every_http_function_of_the_template_has_a_smoke_flow():
    http_functions = {name for name, function in functions().items() if function.routes}
    flows = smoke.flows()
    assert set(flows) == http_functions
    assert all(flows.values()), flows


def test_a_function_without_a_flow_of_its_own_sends_its_fixtures_that_need_no_id(tmp_path):
    # A new function "TinyProbeFunction": no hook, two fixtures, one of them on a route with an id.
    probe = replace(next(iter(functions().values())), logical_id="TinyProbeFunction")
    folder = tmp_path / "tiny-probe"
    folder.mkdir()
    (folder / "hello.json").write_text(json.dumps({"routeKey": "GET /tiny-probe"}), encoding="utf-8")
    (folder / "item.json").write_text(json.dumps({"routeKey": "GET /tiny-probe/{id}"}), encoding="utf-8")
    steps = smoke.default_flow(probe, tmp_path)
    assert [step.fixture for step in steps] == ["tiny-probe/hello.json"]
    assert 200 in steps[0].expect
    assert 404 not in steps[0].expect


def test_the_smoke_flows_pass_against_the_local_stack(local_stack, users):
    user = users.create()
    rule = users.rule(user)
    lines: list[str] = []
    send = smoke.http_sender(local_stack, user.token)
    assert smoke.token_subject(user.token) == user.id
    ok = smoke.run(
        send, user_id=user.id, rule_id=str(rule["id"]), app=rule["app_identifier"], print_fn=lines.append
    )
    assert ok, "\n".join(lines)
    # Every step of every flow ran and answered.
    assert len(lines) == sum(len(steps) for steps in smoke.flows().values()), "\n".join(lines)


def test_an_unexpected_status_fails_the_smoke(local_stack, users):
    user = users.create()
    lines: list[str] = []
    # A rule the user does not have: the interception start answers 404.
    send = smoke.http_sender(local_stack, user.token)
    ok = smoke.run(
        send, user_id=user.id, rule_id="00000000-0000-4000-8000-0000000000ff", app="x", print_fn=lines.append
    )
    assert not ok
    assert any("404" in line for line in lines)
