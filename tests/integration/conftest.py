"""Integration fixtures: a real OpenAI-compatible server on localhost for the LLM path."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest

from persona_rails.observability import logger
from tests.support.fake_openai import FakeOpenAI

FAKE_API_KEY = "test-key"
FAKE_MODEL = "test-model"
# Small, so a timeout test is quick; large enough that a loaded CI box answers a local call in time.
FAKE_TIMEOUT_SECONDS = 0.5
_PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


def _clear_llm_caches() -> None:
    from persona_rails.llm import structured
    from persona_rails.settings import cached_settings

    cached_settings.cache_clear()
    structured._client.cache_clear()


@pytest.fixture
def fake_openai(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    """Point the product's LLM settings at a scripted local server for one test, then restore them."""
    with FakeOpenAI().running() as fake:
        for name in _PROXY_VARIABLES:
            # The SDK's HTTP client honours proxy variables; localhost must be reached directly.
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", FAKE_API_KEY)
        monkeypatch.setenv("PERSONA_RAILS_LLM_MODEL", FAKE_MODEL)
        monkeypatch.setenv("PERSONA_RAILS_LLM_TIMEOUT_SECONDS", str(FAKE_TIMEOUT_SECONDS))
        _clear_llm_caches()
        try:
            yield fake
        finally:
            monkeypatch.undo()
            _clear_llm_caches()
    assert not fake.errors, f"the fake OpenAI server itself failed: {fake.errors}"


@pytest.fixture
def logs() -> Iterator[io.StringIO]:
    """Everything the Powertools logger writes during a test, in its own JSON format."""
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.setFormatter(logger.registered_formatter)
    logger.addHandler(handler)
    yield buffer
    logger.removeHandler(handler)
