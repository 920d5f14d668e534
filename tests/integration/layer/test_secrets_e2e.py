"""A function whose secrets live only in SSM: it serves every event fixture against the embedded
Postgres, in a child interpreter that sees only the function, the layer and the installed packages,
with the template's environment, and moto standing in for SSM."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from persona_rails_dev.template import functions
from tests.support.api import load_event
from tests.support.lambda_child import lambda_env

ROOT = Path(__file__).resolve().parents[3]
DATABASE_URL_NAME = "/persona-rails/e2e/database-url"
JWT_SECRET_NAME = "/persona-rails/e2e/supabase-jwt-secret"
# In the order a dialog takes them; the history is exported, then deleted, last.
FIXTURES = {
    "start": 201,
    "reason": 200,
    "appeal": 200,
    "decision": 200,
    "get": 200,
    "export-history": 200,
    "delete-history": 200,
}

_LAMBDA = r"""
import asyncio, importlib, json, sys
asyncio.set_event_loop(asyncio.new_event_loop())

# SSM, as moto in this process; the parameters arrive on stdin, not in the environment.
from moto import mock_aws
mock_aws().start()
import boto3
from aws_lambda_powertools.utilities.parameters import SSMProvider
from aws_lambda_powertools.utilities.parameters.base import DEFAULT_PROVIDERS

given = json.loads(sys.stdin.read())
for name, value in given["parameters"].items():
    boto3.client("ssm").put_parameter(Name=name, Value=value, Type="SecureString")
calls = []
provider = SSMProvider()
provider.client.meta.events.register(
    "provide-client-params.ssm.GetParameter", lambda params, **_: calls.append(params["Name"])
)
DEFAULT_PROVIDERS["ssm"] = provider

module, _, attribute = given["handler"].rpartition(".")
handler = getattr(importlib.import_module(module), attribute)  # the cold start
at_init = sorted(calls)


class Context:
    function_name = given["function"]
    function_version = "$LATEST"
    memory_limit_in_mb = 512
    aws_request_id = "e2e"
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:" + given["function"]

    def get_remaining_time_in_millis(self):
        return 10_000


replies = [handler(event, Context()) for _, event in given["events"]]
print(json.dumps({
    "statuses": {name: reply["statusCode"] for (name, _), reply in zip(given["events"], replies)},
    "at_init": at_init,
    "calls": sorted(calls),
}))
"""


def test_intercept_session_serves_its_fixtures_with_secrets_only_from_ssm(db, database_url):
    with db.as_owner() as tx:
        tx.execute((ROOT / "supabase" / "seed.sql").read_text(encoding="utf-8"))
        tx.execute("DELETE FROM public.intercept_sessions WHERE id = 'a1b2c3d4-0000-4000-8000-000000000001'")
    function = functions()["InterceptSessionFunction"]
    jwt_secret = os.environ["SUPABASE_JWT_SECRET"]  # the one the fixtures are signed with
    env = lambda_env(
        function,
        DATABASE_URL_PARAMETER=DATABASE_URL_NAME,
        SUPABASE_JWT_SECRET_PARAMETER=JWT_SECRET_NAME,
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
    )
    # Locally the plain variables would serve; here only the parameters may.
    env.pop("DATABASE_URL", None)
    env.pop("SUPABASE_JWT_SECRET", None)
    assert not {database_url, jwt_secret} & set(env.values())

    given = {
        "function": function.logical_id,
        "handler": function.handler,
        "parameters": {DATABASE_URL_NAME: database_url, JWT_SECRET_NAME: jwt_secret},
        "events": [[name, load_event(f"intercept-session/{name}.json")] for name in FIXTURES],
    }
    result = subprocess.run(
        [sys.executable, "-S", "-c", _LAMBDA],
        input=json.dumps(given),
        env=env,
        cwd="/",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["statuses"] == FIXTURES
    # Both secrets were read at the cold start, once each, and served every request from the cache.
    assert report["at_init"] == sorted([DATABASE_URL_NAME, JWT_SECRET_NAME])
    assert report["calls"] == report["at_init"]
    assert jwt_secret not in result.stdout + result.stderr


def test_a_missing_parameter_fails_the_cold_start_naming_it():
    function = functions()["InterceptSessionFunction"]
    env = lambda_env(
        function,
        DATABASE_URL_PARAMETER="/persona-rails/e2e/never-created",
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
    )
    code = "from moto import mock_aws; mock_aws().start(); import " + function.module
    result = subprocess.run(
        [sys.executable, "-S", "-c", code],
        env=env,
        cwd="/",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode != 0
    assert "DATABASE_URL_PARAMETER=/persona-rails/e2e/never-created: parameter not found" in result.stderr
