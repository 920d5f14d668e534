"""JSON logs with a correlation id, EMF metrics, and no raw user text anywhere in the output."""

import json

import pytest

from tests.support.api import load_event, trigger_payload
from tests.support.dialog import decide, start

SECRET_REASON = "机密理由XYZZY我想看看前任的动态"
SECRET_APPEAL = "机密申诉PLUGH老板说要查竞品10分钟"
SECRET_EMERGENCY = "机密紧急FROTZ家里漏水了"


def json_lines(text):
    for line in text.splitlines():
        if line.startswith("{"):
            yield json.loads(line)


@pytest.fixture
def captured_dialog(api, users, capfd, logs):
    user = users.create()
    rule = users.rule(user)
    sid = start(api, user, rule)
    api.post(f"/intercept-session/{sid}/reason", user.token, {"reason_text": SECRET_REASON})
    api.post(f"/intercept-session/{sid}/appeal", user.token, {"appeal_text": SECRET_APPEAL})
    api.post(f"/intercept-session/{sid}/reason", user.token, {"reason_text": "x"})  # a 422
    decide(api, user, sid, "override")
    # The override unlocked `rule`: the emergency comes from another app's rule.
    other = start(api, user, users.rule(user, app_identifier="com.tencent.mm", app_display_name="微信"))
    decide(api, user, other, "emergency", emergency_reason=SECRET_EMERGENCY)
    out, err = capfd.readouterr()
    return sid, out + err + logs.getvalue()


def test_raw_user_text_never_reaches_the_logs(captured_dialog):
    _, output = captured_dialog
    for secret in ("XYZZY", "PLUGH", "FROTZ", "前任", "漏水"):
        assert secret not in output


def test_logs_are_json_lines_with_a_correlation_id(captured_dialog):
    sid, output = captured_dialog
    turns = [line for line in json_lines(output) if line.get("message") == "turn evaluated"]
    assert turns
    for line in turns:
        assert line["session_id"] == sid
        assert line["correlation_id"]
        assert line["function_name"] == "InterceptSessionFunction"
        assert {"verdict", "source", "latency_ms"} <= line.keys()


def test_metrics_are_emitted_as_emf(captured_dialog):
    _, output = captured_dialog
    metrics = {
        metric["Name"]
        for line in json_lines(output)
        if "_aws" in line
        for directive in line["_aws"]["CloudWatchMetrics"]
        for metric in directive["Metrics"]
    }
    assert {
        "SessionStarted",
        "EvaluationLatency",
        "DecisionOverride",
        "DecisionEmergency",
        "HttpValidationError",
    } <= metrics
    assert metrics & {"VerdictDeny", "VerdictDelay", "VerdictAllow"}


def test_the_correlation_id_is_api_gateways_request_id(api, users, logs):
    user = users.create()
    rule = users.rule(user)
    event = load_event("intercept-session/start.json")
    event["headers"]["authorization"] = f"Bearer {user.token}"
    event["body"] = json.dumps(trigger_payload(user.id, rule))
    event["requestContext"]["requestId"] = "req-correlation-42"
    assert api.invoke_event(event).status == 201
    started = [line for line in json_lines(logs.getvalue()) if line.get("message") == "session started"]
    assert started[0]["correlation_id"] == "req-correlation-42"


def test_disabled_metrics_do_not_pile_up_across_invocations(api, users, capfd, monkeypatch):
    """Powertools 3 keeps disabled metrics in its buffer; the handler factory clears them."""
    from persona_rails.observability import metrics

    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    user = users.create()
    rule = users.rule(user)
    for _ in range(60):
        start(api, user, rule)
    out, _ = capfd.readouterr()
    assert "_aws" not in out
    assert metrics.provider.metric_set == {}
