"""template.yaml deploys on the first try: lint clean, refuses a dead stack, several stacks per
account, no authentication prompt, and the operations (logs, alarms, canaries) every function needs."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from persona_rails.settings import AuthSettings
from persona_rails_dev.template import functions, load_template, template_path
from tests.infra.sam import (
    cfn_lint,
    evaluate,
    language_extensions,
    sam_document,
    stack_parameters,
    transformed,
    write_json,
)

# CloudFormation types with a physical-name property: set to a constant, a second stack collides.
NAME_PROPERTIES = {
    "AWS::Lambda::Function": "FunctionName",
    "AWS::Lambda::LayerVersion": "LayerName",
    "AWS::SQS::Queue": "QueueName",
    "AWS::SNS::Topic": "TopicName",
    "AWS::Logs::LogGroup": "LogGroupName",
    "AWS::CloudWatch::Alarm": "AlarmName",
    "AWS::CloudWatch::Dashboard": "DashboardName",
    "AWS::IAM::Role": "RoleName",
    "AWS::IAM::ManagedPolicy": "ManagedPolicyName",
    "AWS::Scheduler::Schedule": "Name",
    "AWS::CodeDeploy::Application": "ApplicationName",
    "AWS::CodeDeploy::DeploymentGroup": "DeploymentGroupName",
    "AWS::SSM::Parameter": "Name",
    "AWS::SecretsManager::Secret": "Name",
}
DEAD_LETTER_METRIC = "ApproximateNumberOfMessagesVisible"
LANGUAGE_EXTENSIONS_LEFTOVERS = "--ignore-checks=W8001,W1001"
JWKS_URL = "https://abcd.supabase.co/auth/v1/.well-known/jwks.json"
# The stacks a team deploys: an HS256 project, one on asymmetric keys (ES256, Supabase's default),
# one rotating between them, and an RS256 project with API Gateway's JWT authorizer.
STACKS = {
    "hs256": {"SupabaseJwtSecretParameter": "/persona-rails/dev/jwt-secret"},
    "asymmetric": {"SupabaseJwksUrl": JWKS_URL},
    "rotation": {"SupabaseJwtSecretParameter": "/persona-rails/dev/jwt-secret", "SupabaseJwksUrl": JWKS_URL},
    "rs256_authorizer": {"SupabaseJwksUrl": JWKS_URL, "ApiJwtAuthorizer": "RS256"},
}


def _resources() -> dict[str, Any]:
    resources: dict[str, Any] = sam_document()["Resources"]
    return resources


def _http_functions() -> list[str]:
    return sorted(name for name, function in functions().items() if function.routes)


def _alarms_on(resources: dict[str, Any], namespace: str, metric: str) -> dict[str, dict[str, Any]]:
    return {
        name: resource["Properties"]
        for name, resource in resources.items()
        if resource["Type"] == "AWS::CloudWatch::Alarm"
        and resource["Properties"]["Namespace"] == namespace
        and resource["Properties"]["MetricName"] == metric
    }


def _dimension(alarm: dict[str, Any], name: str) -> Any:
    (value,) = [d["Value"] for d in alarm["Dimensions"] if d["Name"] == name]
    return value


# -- checks ---------------------------------------------------------------------------------------


def test_cfn_lint_is_clean_on_the_template():
    result = cfn_lint(template_path())
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_cfn_lint_is_clean_on_what_the_sam_transform_makes(tmp_path):
    """cfn-lint checks the SAM template against SAM's schema; what the transform makes (aliases,
    deployment groups, permissions) is checked here, and a dependency cycle shows up only there."""
    # AWS::LanguageExtensions has already resolved every `!If` under Resources from the stack's
    # parameters, so cfn-lint's condition checks see only their leftovers: W8001 (a condition no
    # longer used) and W1001 (a Ref to a conditional resource, whose condition these same
    # parameters make true). The untransformed template above is linted with both.
    for name, parameters in STACKS.items():
        clean = cfn_lint(
            write_json(transformed(parameters=parameters), tmp_path / f"{name}.json"),
            LANGUAGE_EXTENSIONS_LEFTOVERS,
        )
        assert (clean.returncode, clean.stdout) == (0, ""), name

    # The control: a canary that rolls back on the API's 5xx alarm depends on the API, which
    # depends on the alias the canary deploys. The lint must see that cycle.
    document = sam_document()
    function = document["Resources"][_http_functions()[0]]["Properties"]
    function["DeploymentPreference"]["Alarms"].append({"Ref": "ApiServerErrorsAlarm"})
    cyclic = cfn_lint(
        write_json(transformed(document), tmp_path / "cyclic.json"), LANGUAGE_EXTENSIONS_LEFTOVERS
    )
    assert cyclic.returncode != 0
    assert "E3004" in cyclic.stdout


# -- refuse a dead stack --------------------------------------------------------------------------


def _jwt_parameters() -> tuple[str, str]:
    parameters = load_template()["Parameters"]
    (secret,) = [name for name in parameters if name.startswith("SupabaseJwtSecret")]
    return secret, "SupabaseJwksUrl"


def test_a_stack_with_neither_jwt_secret_nor_jwks_url_is_refused_at_deploy_time():
    secret, jwks = _jwt_parameters()
    defaults = {name: str(spec.get("Default", "x")) for name, spec in load_template()["Parameters"].items()}
    # Both default to empty, so a guided deploy that skips them meets the rule.
    assert (defaults[secret], defaults[jwks]) == ("", "")
    rule = load_template()["Rules"]["JwtVerificationConfigured"]
    assert "RuleCondition" not in rule, "the rule must apply to every stack"
    (assertion,) = rule["Assertions"]
    # The SAM transform hands the rule on to CloudFormation unchanged.
    assert transformed()["Rules"] == sam_document()["Rules"]
    assert secret in assertion["AssertDescription"]
    assert jwks in assertion["AssertDescription"]

    jwks_url = "https://abcd.supabase.co/auth/v1/.well-known/jwks.json"
    cases = {
        ("", ""): False,
        ("/persona-rails/dev/jwt-secret", ""): True,
        ("", jwks_url): True,
        ("/persona-rails/dev/jwt-secret", jwks_url): True,
    }
    for (secret_value, jwks_value), deployable in cases.items():
        parameters = {**defaults, secret: secret_value, jwks: jwks_value}
        assert evaluate(assertion["Assert"], parameters) is deployable, (secret_value, jwks_value)


def test_the_jwks_url_must_look_like_one():
    pattern = re.compile(load_template()["Parameters"]["SupabaseJwksUrl"]["AllowedPattern"])
    assert pattern.fullmatch("")
    assert pattern.fullmatch("https://abcd.supabase.co/auth/v1/.well-known/jwks.json")
    assert not pattern.fullmatch("https://abcd.supabase.co")
    assert not pattern.fullmatch("abcd")


# -- several stacks per account -------------------------------------------------------------------


def test_two_stacks_in_one_account_and_region_share_no_physical_name():
    checked = 0
    for logical_id, resource in transformed()["Resources"].items():
        name_property = NAME_PROPERTIES.get(resource["Type"])
        if name_property is None:
            continue
        checked += 1
        name = resource.get("Properties", {}).get(name_property)
        # Either CloudFormation makes the name up, or it carries the stack's own name.
        assert name is None or "${AWS::StackName}" in json.dumps(name), (
            f"{logical_id}.{name_property}: {name}"
        )
    # Functions, queues, log groups, alarms, the schedule and the layer were all looked at.
    assert checked > 30


def test_every_schedule_lets_cloudformation_name_it():
    schedules = [schedule for function in functions().values() for schedule in function.schedules]
    assert len(schedules) >= 3  # the weekly summary's and the two housekeeping ticks
    for schedule in schedules:
        assert schedule["OmitName"] is True
        assert "Name" not in schedule
    generated = [r for r in transformed()["Resources"].values() if r["Type"] == "AWS::Scheduler::Schedule"]
    assert len(generated) == len(schedules)
    assert all("Name" not in resource["Properties"] for resource in generated)


# -- the guided deploy asks nothing about authentication -------------------------------------------


def _sam_cli_would_ask(resources: dict[str, Any]) -> list[str]:
    """`sam deploy --guided` asks "<function> may not have authorization defined, Is this okay?"
    for each HttpApi event with no `Auth` of its own whose API has no `Auth` and no OpenAPI
    `security` either (samcli/commands/deploy/auth_utils.py, `_auth_resource_event`). It looks
    after AWS::LanguageExtensions has run, with the stack's parameters."""
    asked = []
    for name, resource in resources.items():
        if resource["Type"] != "AWS::Serverless::Function":
            continue
        for event_name, event in resource["Properties"].get("Events", {}).items():
            if event["Type"] != "HttpApi":
                continue
            api = resources.get(event["Properties"].get("ApiId", {}).get("Ref", ""), {})
            if not (event["Properties"].get("Auth") or api.get("Properties", {}).get("Auth")):
                asked.append(f"{name}.{event_name}")
    return asked


@pytest.mark.parametrize("stack", sorted(STACKS))
def test_sam_deploy_guided_does_not_ask_about_authorization(stack):
    document = sam_document()
    resources = language_extensions(document, stack_parameters(document, STACKS[stack]))["Resources"]
    assert _sam_cli_would_ask(resources) == []
    # The control: without the API's Auth block, every route without an Auth of its own is asked about.
    del resources["HttpApi"]["Properties"]["Auth"]
    routes = sum(len(f.routes) for f in functions().values())
    expected = routes - len(_backend_routes()) if stack == "rs256_authorizer" else routes
    assert len(_sam_cli_would_ask(resources)) == expected > 0


# -- the API's JWT authorizer (RS256 projects) -----------------------------------------------------


def _backend_routes() -> set[str]:
    """Route keys that say `Authorizer: NONE` under the authorizer: backends call them with a
    service-role token, which no API Gateway JWT authorizer admits."""
    return {
        f"{event['Properties']['Method']} {event['Properties']['Path']}"
        for resource in _resources().values()
        if resource["Type"] == "AWS::Serverless::Function"
        for event in resource["Properties"].get("Events", {}).values()
        if event["Type"] == "HttpApi" and "Auth" in event["Properties"]
    }


def _api_body(stack: str) -> dict[str, Any]:
    (api,) = [
        r
        for r in transformed(parameters=STACKS[stack])["Resources"].values()
        if r["Type"] == "AWS::ApiGatewayV2::Api"
    ]
    body: dict[str, Any] = api["Properties"]["Body"]
    return body


def _security_by_route(body: dict[str, Any]) -> dict[str, Any]:
    return {
        f"{method.upper()} {path}": operation.get("security")
        for path, operations in body["paths"].items()
        for method, operation in operations.items()
    }


def test_an_rs256_project_gets_a_jwt_authorizer_for_the_project_on_every_user_route():
    body = _api_body("rs256_authorizer")
    (scheme,) = body["components"]["securitySchemes"].values()
    authorizer = scheme["x-amazon-apigateway-authorizer"]
    assert authorizer["type"] == "jwt"
    assert authorizer["identitySource"] == "$request.header.Authorization"
    # The audience of Supabase's user tokens, the one the functions check (persona_rails.settings).
    assert authorizer["jwtConfiguration"]["audience"] == [AuthSettings.model_fields["jwt_audience"].default]
    issuer = evaluate(authorizer["jwtConfiguration"]["issuer"], {"SupabaseJwksUrl": JWKS_URL})
    assert issuer == "https://abcd.supabase.co/auth/v1"

    backend = _backend_routes()
    security = _security_by_route(body)
    routes = {route.route_key for function in functions().values() for route in function.routes}
    assert set(security) == routes
    # Backend routes, one of them at least in each of four functions; every other route is guarded.
    assert {key.split()[1].split("/")[1] for key in backend} == {
        "intercept-session",
        "moderation",
        "debates",
        "sps",
    }
    for key, requirement in security.items():
        assert requirement == ([{"NONE": []}] if key in backend else [{"SupabaseJwt": []}]), key
    assert len(backend) < len(routes)


@pytest.mark.parametrize("stack", ["hs256", "asymmetric", "rotation"])
def test_other_projects_get_no_authorizer_and_each_function_checks_every_token(stack):
    body = _api_body(stack)
    assert "securitySchemes" not in body.get("components", {})
    assert set(map(json.dumps, _security_by_route(body).values())) == {"null"}


def test_the_api_jwt_authorizer_needs_the_jwks_url():
    rule = load_template()["Rules"]["ApiJwtAuthorizerNeedsJwks"]
    (assertion,) = rule["Assertions"]
    for authorizer, jwks_url, deployable in [
        ("RS256", JWKS_URL, True),
        ("RS256", "", False),
        ("Off", "", True),
        ("Off", JWKS_URL, True),
    ]:
        parameters = {"ApiJwtAuthorizer": authorizer, "SupabaseJwksUrl": jwks_url}
        applies = evaluate(rule["RuleCondition"], parameters)
        assert (not applies or evaluate(assertion["Assert"], parameters)) is deployable, (
            authorizer,
            jwks_url,
        )
    assert "SupabaseJwksUrl" in assertion["AssertDescription"]
    # Off unless asked for: Supabase's default asymmetric key is ES256, which API Gateway cannot verify.
    assert load_template()["Parameters"]["ApiJwtAuthorizer"]["Default"] == "Off"


# -- operations -----------------------------------------------------------------------------------


def test_every_function_logs_to_its_own_group_with_retention():
    resources = _resources()
    groups = set()
    for name in functions():
        group = resources[name]["Properties"]["LoggingConfig"]["LogGroup"]["Ref"]
        assert resources[group]["Type"] == "AWS::Logs::LogGroup"
        assert resources[group]["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionDays"}
        groups.add(group)
    assert len(groups) == len(functions())
    assert load_template()["Parameters"]["LogRetentionDays"]["Default"] == 30


def test_the_api_throttles_and_writes_access_logs_without_user_data():
    api = _resources()["HttpApi"]["Properties"]
    assert api["DefaultRouteSettings"] == {
        "ThrottlingBurstLimit": {"Ref": "ApiThrottlingBurstLimit"},
        "ThrottlingRateLimit": {"Ref": "ApiThrottlingRateLimit"},
    }
    destination = api["AccessLogSettings"]["DestinationArn"]["Fn::GetAtt"][0]
    group = _resources()[destination]
    assert group["Type"] == "AWS::Logs::LogGroup"
    assert group["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionDays"}
    fields = json.loads(api["AccessLogSettings"]["Format"])
    assert {"requestId", "routeKey", "status"} <= set(fields)
    # No path, query string, body or address: ids and timings only (docs/architecture.md: privacy).
    used = " ".join(fields.values())
    for leak in ("$context.path", "$context.identity.sourceIp", "requestBody", "querystring"):
        assert leak not in used


def test_every_http_function_has_reserved_concurrency_sized_by_one_parameter():
    resources = _resources()
    for name in _http_functions():
        assert resources[name]["Properties"]["ReservedConcurrentExecutions"] == {
            "Fn::If": [
                "HasReservedConcurrency",
                {"Ref": "HttpFunctionReservedConcurrency"},
                {"Ref": "AWS::NoValue"},
            ]
        }
    assert load_template()["Conditions"]["HasReservedConcurrency"] == {
        "Fn::Not": [{"Fn::Equals": [{"Ref": "HttpFunctionReservedConcurrency"}, "0"]}]
    }
    # Five functions at the default stay inside a 200-client pooler with room for the weekly run.
    default = load_template()["Parameters"]["HttpFunctionReservedConcurrency"]["Default"]
    assert len(_http_functions()) * default <= 200 - 40


def test_every_function_has_error_throttle_and_latency_alarms_to_the_topic():
    resources = _resources()
    for metric in ("Errors", "Throttles", "Duration"):
        alarms = _alarms_on(resources, "AWS/Lambda", metric)
        watched = {_dimension(alarm, "FunctionName")["Ref"] for alarm in alarms.values()}
        assert watched == set(functions()), metric
    for alarm in _alarms_on(resources, "AWS/Lambda", "Duration").values():
        assert alarm["ExtendedStatistic"] == "p99"
    every_alarm = [r["Properties"] for r in resources.values() if r["Type"] == "AWS::CloudWatch::Alarm"]
    assert every_alarm
    for alarm in every_alarm:
        assert alarm["AlarmActions"] == [{"Ref": "AlarmTopic"}]
    assert resources["AlarmTopic"]["Type"] == "AWS::SNS::Topic"
    assert resources["AlarmEmailSubscription"]["Condition"] == "HasAlarmEmail"


def test_the_api_has_5xx_and_latency_alarms():
    resources = _resources()
    for metric in ("5xx", "Latency"):
        (alarm,) = _alarms_on(resources, "AWS/ApiGateway", metric).values()
        assert _dimension(alarm, "ApiId") == {"Ref": "HttpApi"}
        assert _dimension(alarm, "Stage") == "$default"


def test_every_dead_letter_queue_has_a_depth_alarm():
    resources = _resources()
    dead_letters = set()
    for resource in resources.values():
        properties = resource.get("Properties", {})
        if "RedrivePolicy" in properties:
            dead_letters.add(properties["RedrivePolicy"]["deadLetterTargetArn"]["Fn::GetAtt"][0])
        if resource["Type"] == "AWS::Serverless::Function":
            if "DeadLetterQueue" in properties:
                dead_letters.add(properties["DeadLetterQueue"]["TargetArn"]["Fn::GetAtt"][0])
            for event in properties.get("Events", {}).values():
                if "DeadLetterConfig" in event["Properties"]:
                    dead_letters.add(event["Properties"]["DeadLetterConfig"]["Arn"]["Fn::GetAtt"][0])
    # The weekly run's failed invocations, its failed partitions and the scheduler's undelivered ticks.
    assert len(dead_letters) == 3
    alarms = _alarms_on(resources, "AWS/SQS", DEAD_LETTER_METRIC).values()
    assert {_dimension(alarm, "QueueName")["Fn::GetAtt"][0] for alarm in alarms} == dead_letters
    for alarm in alarms:
        assert alarm["Threshold"] >= 1


def test_one_dashboard_shows_every_function_the_api_and_the_dead_letters():
    resources = _resources()
    (dashboard,) = [r for r in resources.values() if r["Type"] == "AWS::CloudWatch::Dashboard"]
    body = dashboard["Properties"]["DashboardBody"]["Fn::Sub"]
    widgets = json.loads(body)["widgets"]
    assert widgets
    for name in functions():
        assert "${" + name + "}" in body, name
    assert "${HttpApi}" in body
    for queue in (
        "WeeklySummaryFailedRuns",
        "WeeklySummaryFailedPartitions",
        "WeeklySummaryUndeliveredTicks",
    ):
        assert "${" + queue + ".QueueName}" in body
    assert {"p90", "p99"} <= set(re.findall(r"p\d\d", body))


@pytest.mark.parametrize("name", _http_functions())
def test_each_http_function_deploys_as_a_canary_that_rolls_back_on_its_alarms(name):
    resources = _resources()
    globals_ = load_template()["Globals"]["Function"]
    properties = resources[name]["Properties"]
    assert properties.get("AutoPublishAlias", globals_.get("AutoPublishAlias")) == "live"
    preference = properties["DeploymentPreference"]
    assert preference["Type"].startswith("Canary")
    rollback = {alarm["Ref"] for alarm in preference["Alarms"]}
    for metric in ("Errors", "Duration"):
        own = {
            alarm
            for alarm, spec in _alarms_on(resources, "AWS/Lambda", metric).items()
            if _dimension(spec, "FunctionName") == {"Ref": name}
        }
        assert own, metric
        assert own <= rollback, metric


def test_the_api_the_schedule_and_the_queue_invoke_the_live_alias():
    resources = transformed()["Resources"]
    body = resources["HttpApi"]["Properties"]["Body"]
    integrations = [
        operation["x-amazon-apigateway-integration"]["uri"]["Fn::Sub"]
        for path in body["paths"].values()
        for operation in path.values()
        if isinstance(operation, dict) and "x-amazon-apigateway-integration" in operation
    ]
    assert len(integrations) == sum(len(f.routes) for f in functions().values())
    for uri in integrations:
        assert re.search(r"\$\{\w+FunctionAliaslive\}", uri), uri
    for resource in resources.values():
        if resource["Type"] in {"AWS::Lambda::Permission", "AWS::Lambda::EventSourceMapping"}:
            assert resource["Properties"]["FunctionName"]["Ref"].endswith("Aliaslive")
        if resource["Type"] == "AWS::Scheduler::Schedule":
            assert resource["Properties"]["Target"]["Arn"]["Ref"].endswith("Aliaslive")


# -- runtimes -------------------------------------------------------------------------------------


def test_the_layer_claims_only_the_runtime_the_functions_run_on():
    resources = _resources()
    (layer,) = [r for r in resources.values() if r["Type"] == "AWS::Serverless::LayerVersion"]
    runtime = load_template()["Globals"]["Function"]["Runtime"]
    assert layer["Properties"]["CompatibleRuntimes"] == [runtime] == ["python3.12"]
    assert layer["Metadata"]["BuildMethod"] == runtime
