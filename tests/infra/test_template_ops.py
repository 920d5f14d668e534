"""Each function's log group, alarms and dashboard lines are written by `rails template` from the
functions template.yaml declares: the checked-in part is current, and a function added to a copy
of the template gets all of them from one run."""

from __future__ import annotations

import json

from persona_rails_dev import template_ops
from persona_rails_dev.template import REPO_ROOT, functions, load_template

PROBE = """  TinyProbeFunction:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: functions/tiny_probe/
      Handler: tiny_probe.handler.lambda_handler
      LoggingConfig:
        LogGroup: !Ref TinyProbeLogGroup
      Events:
        Probe:
          Type: HttpApi
          Properties:
            ApiId: !Ref HttpApi
            Method: GET
            Path: /tiny-probe

"""


def test_the_generated_part_of_template_yaml_is_current():
    path = REPO_ROOT / "template.yaml"
    text = path.read_text(encoding="utf-8")
    assert template_ops.rewritten(text, template_ops.generated(path)) == text, "run: rails template"


def test_every_function_has_its_log_group_three_alarms_and_dashboard_lines():
    resources = load_template()["Resources"]
    body = resources["Dashboard"]["Properties"]["DashboardBody"]["Fn::Sub"]
    for logical_id, function in functions().items():
        name = logical_id.removesuffix("Function")
        assert resources[f"{name}LogGroup"]["Type"] == "AWS::Logs::LogGroup"
        for kind in ("Errors", "Throttles", "Latency"):
            alarm = resources[f"{name}{kind}Alarm"]["Properties"]
            assert alarm["Dimensions"] == [{"Name": "FunctionName", "Value": {"Ref": logical_id}}]
        latency = resources[f"{name}LatencyAlarm"]["Properties"]["Threshold"]
        if function.routes:
            assert latency == {"Ref": "LatencyAlarmMilliseconds"}
        else:
            assert latency == round(0.8 * function.timeout_seconds * 1000)
        assert f"${{{logical_id}}}" in body
    json.loads(body.replace("${", "{"))  # the body, its ${...} references aside, is JSON


def test_a_function_added_to_a_copy_of_the_template_gets_them_from_one_run(tmp_path):
    text = (REPO_ROOT / "template.yaml").read_text(encoding="utf-8")
    copy = tmp_path / "template.yaml"
    copy.write_text(text.replace("Resources:\n", "Resources:\n" + PROBE, 1), encoding="utf-8")
    assert template_ops.main(check=True, path=copy) == 1  # stale until generated
    assert template_ops.main(path=copy) == 0
    assert template_ops.main(check=True, path=copy) == 0
    resources = load_template(copy)["Resources"]
    assert resources["TinyProbeLogGroup"]["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionDays"}
    for kind in ("Errors", "Throttles", "Latency"):
        dimensions = resources[f"TinyProbe{kind}Alarm"]["Properties"]["Dimensions"]
        assert dimensions == [{"Name": "FunctionName", "Value": {"Ref": "TinyProbeFunction"}}]
    body = resources["Dashboard"]["Properties"]["DashboardBody"]["Fn::Sub"]
    assert '["AWS/Lambda","Duration","FunctionName","${TinyProbeFunction}"]' in body
    # Nothing else changed: every resource of the real template is there, the same.
    original = load_template()["Resources"]
    assert all(resources[name] == resource for name, resource in original.items() if name != "Dashboard")
