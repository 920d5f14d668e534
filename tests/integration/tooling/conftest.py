"""The local stack as `rails serve` runs it: every HTTP function in worker processes of its own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from persona_rails_dev.server import make_server, serve_in_background, worker_api
from persona_rails_dev.template import functions, http_api_cors

SEED = Path(__file__).resolve().parents[3] / "supabase" / "seed.sql"
QUIET = {"POWERTOOLS_LOG_LEVEL": "WARNING", "POWERTOOLS_METRICS_DISABLED": "true"}
# Short, so the test of an idle client does not wait the production 30 s.
TEST_SOCKET_TIMEOUT_SECONDS = 1.0


@pytest.fixture(scope="module")
def local_stack(db: Any) -> Iterator[str]:
    """The base URL of the template's functions served on a free port, the seed data loaded."""
    with db.as_owner() as tx:
        tx.execute(SEED.read_text(encoding="utf-8"))
    api, pools = worker_api(functions().values(), lambda _: QUIET, 4, http_api_cors())
    server = make_server(api, port=0, socket_timeout=TEST_SOCKET_TIMEOUT_SECONDS)
    serve_in_background(server)
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        for pool in pools:
            pool.close()
