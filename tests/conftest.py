"""Test set-up shared by every tier; the fixtures themselves live in tests/support/fixtures.py.

Functions are imported exactly as Lambda imports them (CodeUri and the layer on sys.path, read
from template.yaml). Integration tests get a real embedded PostgreSQL with our migrations; the
database is never mocked.
"""

from __future__ import annotations

import os
import tempfile

# Configuration must be in place before any handler module is imported.
os.environ.setdefault("XDG_RUNTIME_DIR", tempfile.mkdtemp(prefix="xdg-"))
# The local stack's secret, so that the events/ fixtures (signed with it for `sam local invoke`)
# verify here too.
os.environ["SUPABASE_JWT_SECRET"] = "super-secret-jwt-token-with-at-least-32-characters-long"
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

pytest_plugins = ["tests.support.fixtures"]
