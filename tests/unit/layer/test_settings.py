"""Configuration from the environment: names as in template.yaml, empty meaning unset."""

import pytest
from pydantic import ValidationError

from persona_rails.settings import DatabaseSettings, LlmSettings


def test_template_empty_parameters_mean_not_configured(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "")
    monkeypatch.setenv("PERSONA_RAILS_LLM_MODEL", "")
    settings = LlmSettings.from_env()
    assert (settings.api_key, settings.model, settings.configured) == (None, None, False)


def test_values_are_typed_and_validated(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.setenv("PERSONA_RAILS_LLM_MODEL", "m")
    monkeypatch.setenv("PERSONA_RAILS_LLM_TIMEOUT_SECONDS", "1.5")
    settings = LlmSettings.from_env()
    assert (settings.configured, settings.timeout_seconds) == (True, 1.5)
    monkeypatch.setenv("PERSONA_RAILS_LLM_TIMEOUT_SECONDS", "-1")
    with pytest.raises(ValidationError, match="PERSONA_RAILS_LLM_TIMEOUT_SECONDS"):
        LlmSettings.from_env()


def test_overrides_win_over_the_environment(monkeypatch):
    monkeypatch.setenv("PERSONA_RAILS_DB_TIMEOUT_SECONDS", "5")
    assert DatabaseSettings.from_env().db_timeout_seconds == 5
    assert DatabaseSettings.from_env(PERSONA_RAILS_DB_TIMEOUT_SECONDS=600).db_timeout_seconds == 600
