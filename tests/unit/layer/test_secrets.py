"""Secrets from SSM SecureStrings (a moto server), one GetParameters call per cold start."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from persona_rails import secrets
from persona_rails import ssm as ssm_client
from persona_rails.secrets import ConfigurationError, require_secrets
from persona_rails.settings import AuthSettings, DatabaseSettings, LlmSettings, StateSettings
from tests.support.moto_ssm import MotoSsm, moto_ssm_server

DB_URL = "postgresql://persona_rails_login:p%40ss-from-ssm@db.example.com:6543/postgres"
JWT = "jwt-secret-from-ssm-with-at-least-32-characters"
STATE_KEYS = "k2=" + "n" * 32 + ",k1=" + "o" * 32


@pytest.fixture(scope="module")
def moto_ssm() -> Iterator[MotoSsm]:
    with moto_ssm_server() as server:
        yield server


@pytest.fixture
def ssm(moto_ssm: MotoSsm, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """The moto SSM, empty, and the names each GetParameters call asked for, one list per call."""
    moto_ssm.reset()
    for variable, value in moto_ssm.environment.items():
        monkeypatch.setenv(variable, value)
    for name in ("DATABASE_URL", "SUPABASE_JWT_SECRET", "OPENAI_API_KEY", "PERSONA_RAILS_STATE_KEYS"):
        monkeypatch.delenv(f"{name}_PARAMETER", raising=False)
    secrets.clear_cache()
    calls: list[list[str]] = []
    call_once = ssm_client._call_once

    def counted(url: str, body: bytes, *args: Any) -> dict[str, Any]:
        calls.append(json.loads(body)["Names"])
        return call_once(url, body, *args)

    monkeypatch.setattr(ssm_client, "_call_once", counted)
    yield {"server": moto_ssm, "calls": calls}
    secrets.clear_cache()


def put(ssm: dict[str, Any], name: str, value: str) -> None:
    ssm["server"].put(name, value)


def asked(ssm: dict[str, Any]) -> dict[str, int]:
    """How many times SSM was asked for each name."""
    counts: dict[str, int] = {}
    for names in ssm["calls"]:
        for name in names:
            counts[name] = counts.get(name, 0) + 1
    return counts


def test_a_named_parameter_is_decrypted_into_the_settings(ssm, monkeypatch):
    put(ssm, "/persona-rails/test/database-url", DB_URL)
    put(ssm, "/persona-rails/test/supabase-jwt-secret", JWT)
    put(ssm, "/persona-rails/test/openai-api-key", "sk-from-ssm")
    monkeypatch.setenv("DATABASE_URL_PARAMETER", "/persona-rails/test/database-url")
    monkeypatch.setenv("SUPABASE_JWT_SECRET_PARAMETER", "/persona-rails/test/supabase-jwt-secret")
    monkeypatch.setenv("OPENAI_API_KEY_PARAMETER", "/persona-rails/test/openai-api-key")
    # The parameter wins over a plain variable left behind.
    monkeypatch.setenv("DATABASE_URL", "postgresql://stale@localhost/postgres")

    assert DatabaseSettings.from_env().database_url == DB_URL
    assert AuthSettings.from_env().jwt_secret == JWT
    assert LlmSettings.from_env().api_key == "sk-from-ssm"


def test_without_a_parameter_name_the_plain_variable_serves_and_aws_is_not_asked(ssm, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "postgresql://local@localhost/postgres")
    # An empty name is a template parameter left at its default: not configured.
    monkeypatch.setenv("SUPABASE_JWT_SECRET_PARAMETER", "")
    monkeypatch.setenv("SUPABASE_JWT_SECRET", JWT)
    require_secrets()
    assert DatabaseSettings.from_env().database_url == "postgresql://local@localhost/postgres"
    assert AuthSettings.from_env().jwt_secret == JWT
    assert ssm["calls"] == []


def test_one_fetch_per_cold_start(ssm, monkeypatch):
    put(ssm, "/persona-rails/test/database-url", DB_URL)
    put(ssm, "/persona-rails/test/supabase-jwt-secret", JWT)
    monkeypatch.setenv("DATABASE_URL_PARAMETER", "/persona-rails/test/database-url")
    monkeypatch.setenv("SUPABASE_JWT_SECRET_PARAMETER", "/persona-rails/test/supabase-jwt-secret")
    require_secrets()  # init
    for _ in range(3):  # then every settings class that reads them, again and again
        DatabaseSettings.from_env()
        AuthSettings.from_env()
    # Both in one round trip.
    assert ssm["calls"] == [["/persona-rails/test/database-url", "/persona-rails/test/supabase-jwt-secret"]]


def test_a_settings_class_fetches_only_its_own_secrets(ssm, monkeypatch):
    put(ssm, "/persona-rails/test/supabase-jwt-secret", JWT)
    monkeypatch.setenv("SUPABASE_JWT_SECRET_PARAMETER", "/persona-rails/test/supabase-jwt-secret")
    monkeypatch.setenv("DATABASE_URL_PARAMETER", "/persona-rails/test/not-there")
    assert AuthSettings.from_env().jwt_secret == JWT
    assert asked(ssm) == {"/persona-rails/test/supabase-jwt-secret": 1}


def test_a_missing_parameter_fails_naming_it(ssm, monkeypatch):
    monkeypatch.setenv("SUPABASE_JWT_SECRET_PARAMETER", "/persona-rails/test/nowhere")
    with pytest.raises(ConfigurationError) as raised:
        require_secrets()
    assert (
        str(raised.value) == "SUPABASE_JWT_SECRET_PARAMETER=/persona-rails/test/nowhere: parameter not found"
    )
    # Reading the settings later fails the same way, never with a silent fallback.
    with pytest.raises(ConfigurationError, match="SUPABASE_JWT_SECRET_PARAMETER"):
        AuthSettings.from_env()


@pytest.mark.parametrize(
    ("variable", "value", "problem"),
    [
        ("DATABASE_URL", "mysql://root:hunter2-secret@db.example.com/app", "not a postgresql:// URL"),
        ("DATABASE_URL", "postgresql://u:hunter2-secret@db.example.com:port/db", "the port is not a number"),
        ("DATABASE_URL", "postgresql://u:hunter2-secret@/db", "the URL names no host"),
        ("SUPABASE_JWT_SECRET", "hunter2-secret-with-a-newline\n", "contains whitespace"),
        ("OPENAI_API_KEY", "sk-hunter2-secret pasted twice", "contains whitespace"),
        ("PERSONA_RAILS_STATE_KEYS", "k1=hunter2-secret", "shorter than 32 bytes"),
        ("PERSONA_RAILS_STATE_KEYS", "hunter2-secret", "kid=secret"),
    ],
)
def test_an_invalid_value_fails_naming_the_parameter_and_not_the_value(
    ssm, monkeypatch, variable, value, problem
):
    put(ssm, "/persona-rails/test/bad", value)
    monkeypatch.setenv(f"{variable}_PARAMETER", "/persona-rails/test/bad")
    with pytest.raises(ConfigurationError) as raised:
        require_secrets()
    message = str(raised.value)
    assert message.startswith(f"{variable}_PARAMETER=/persona-rails/test/bad: invalid {variable}: ")
    assert problem in message
    assert "hunter2" not in message
    # The value is not kept as the exception's context either: a traceback shows none of it.
    assert raised.value.__cause__ is None
    assert raised.value.__suppress_context__


def test_state_keys_from_a_parameter_sign_and_verify(ssm, monkeypatch):
    put(ssm, "/persona-rails/test/state-keys", STATE_KEYS)
    monkeypatch.setenv("PERSONA_RAILS_STATE_KEYS_PARAMETER", "/persona-rails/test/state-keys")
    signer = StateSettings.from_env().signer()
    token = signer.sign({"n": 1}, audience="test", ttl_seconds=60)
    assert signer.verify(token, audience="test")["n"] == 1


def test_no_secret_value_reaches_the_logs(ssm, monkeypatch, caplog):
    put(ssm, "/persona-rails/test/database-url", DB_URL)
    put(ssm, "/persona-rails/test/supabase-jwt-secret", JWT)
    monkeypatch.setenv("DATABASE_URL_PARAMETER", "/persona-rails/test/database-url")
    monkeypatch.setenv("SUPABASE_JWT_SECRET_PARAMETER", "/persona-rails/test/supabase-jwt-secret")
    monkeypatch.setenv("OPENAI_API_KEY_PARAMETER", "/persona-rails/test/missing")
    # Every logger at its most verbose.
    for name in ("persona_rails", "aws_lambda_powertools", "persona-rails-tests", ""):
        caplog.set_level(logging.DEBUG, logger=name)
    require_secrets(
        {
            "DATABASE_URL_PARAMETER": "/persona-rails/test/database-url",
            "SUPABASE_JWT_SECRET_PARAMETER": "/persona-rails/test/supabase-jwt-secret",
        }
    )
    with pytest.raises(ConfigurationError):
        require_secrets()
    DatabaseSettings.from_env()
    AuthSettings.from_env()
    assert ssm["calls"]  # the secrets were read...
    assert "p%40ss-from-ssm" not in caplog.text  # ...and none of them logged
    assert JWT not in caplog.text


# -- what template.yaml gives each function -------------------------------------------------------------

SECRET_READ_POLICIES = {
    "DATABASE_URL_PARAMETER": "ReadDatabaseUrlSecret",
    "SUPABASE_JWT_SECRET_PARAMETER": "ReadSupabaseJwtSecret",
    "OPENAI_API_KEY_PARAMETER": "ReadOpenAIApiKeySecret",
}
# The policy that may read the SecureString a template parameter names: the weekly function has
# a database login of its own (persona_rails_weekly_login), so a URL parameter of its own.
POLICY_OF_PARAMETER = {
    "DatabaseUrlParameter": "ReadDatabaseUrlSecret",
    "WeeklyDatabaseUrlParameter": "ReadWeeklyDatabaseUrlSecret",
    "SupabaseJwtSecretParameter": "ReadSupabaseJwtSecret",
    "OpenAIApiKeyParameter": "ReadOpenAIApiKeySecret",
}


def _policy_refs(policies: list[Any]) -> set[str]:
    refs = set()
    for policy in policies:
        if isinstance(policy, dict) and "Ref" in policy:
            refs.add(policy["Ref"])
        elif isinstance(policy, dict) and "Fn::If" in policy:
            refs |= {
                p["Ref"] for p in policy["Fn::If"][1:] if isinstance(p, dict) and p["Ref"] != "AWS::NoValue"
            }
    return refs


def test_no_function_holds_a_secret_and_each_reads_only_the_secrets_it_is_named():
    from persona_rails_dev.template import functions, load_template

    resources = load_template()["Resources"]
    needs = {}
    for logical_id, function in functions().items():
        assert not set(function.environment) & {"DATABASE_URL", "SUPABASE_JWT_SECRET", "OPENAI_API_KEY"}
        assert "PERSONA_RAILS_STATE_KEYS" not in function.environment
        named = {name for name in function.environment if name in SECRET_READ_POLICIES}
        variables = resources[logical_id]["Properties"]["Environment"]["Variables"]
        parameters = {variables[name]["Ref"] for name in named}
        policies = _policy_refs(resources[logical_id]["Properties"].get("Policies", []))
        assert policies & set(POLICY_OF_PARAMETER.values()) == {POLICY_OF_PARAMETER[p] for p in parameters}
        needs[logical_id] = named
    # Every function reaches the database; only the HTTP ones verify user tokens.
    assert all("DATABASE_URL_PARAMETER" in named for named in needs.values())
    assert "SUPABASE_JWT_SECRET_PARAMETER" not in needs["WeeklySummaryFunction"]
    # The HTTP functions' login cannot become service_role; only the weekly run's may.
    weekly_env = resources["WeeklySummaryFunction"]["Properties"]["Environment"]["Variables"]
    assert weekly_env["DATABASE_URL_PARAMETER"] == {"Ref": "WeeklyDatabaseUrlParameter"}
    http = [logical_id for logical_id, function in functions().items() if function.routes]
    assert len(http) == 5
    assert all("SUPABASE_JWT_SECRET_PARAMETER" in needs[logical_id] for logical_id in http)
