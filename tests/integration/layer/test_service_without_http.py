"""A service runs in-process with no HTTP at all: FastAPI, Starlette and Mangum cannot even be
imported, and the dialog's use cases still start a session, judge a reason against the real
database and raise plain domain errors."""

from __future__ import annotations

import json
import subprocess
import uuid

from persona_rails_dev.template import functions
from tests.support.dialog import BORED
from tests.support.lambda_child import lambda_env, run_python

BLOCKED = ("fastapi", "starlette", "mangum")

# Run with Lambda's view of the world (CodeUri, the layer and site-packages only), with the HTTP
# stack made unimportable before anything else is imported.
_IN_PROCESS = """
import importlib.abc, json, sys

BLOCKED = set(sys.argv[1].split(","))
attempts = []

class NoHttp(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            attempts.append(name)
            raise ImportError(f"{name} is blocked: a service must not need HTTP")
        return None

sys.meta_path.insert(0, NoHttp())

import uuid
from datetime import UTC, datetime, timedelta, timezone

from intercept_session import service
from intercept_session.schemas import StartSessionRequest
from persona_rails.db import Database
from persona_rails.errors import Conflict, DomainError, NotFound
from persona_rails.identity import Caller, CallerKind
from persona_rails.settings import InterceptSettings, LlmSettings

url, user_id, rule_id, reason = sys.argv[2:6]
db = Database(url)
caller = Caller(user_id, CallerKind.USER)
request = StartSessionRequest.model_validate({
    "user_id": user_id, "rule_id": rule_id, "app_identifier": "com.ss.android.ugc.aweme",
    "app_display_name": "抖音", "trigger": "quota_exceeded",
    "timestamp": datetime.now(timezone(timedelta(hours=8))).isoformat(), "persona_key": "strict-father",
    "streak": 3, "override_count_today": 0,
})
grace = InterceptSettings().abandon_grace_seconds
started, created = service.start_session(db, caller, request, datetime.now(UTC), grace_seconds=grace)
sid = str(started.session_id)
turn = service.submit_turn_settled(db, LlmSettings(), caller, sid, reason, turn_no=1, grace_seconds=grace)

def caught(call):
    try:
        call()
    except DomainError as error:
        kinds = [kind.__name__ for kind in (NotFound, Conflict) if isinstance(error, kind)]
        return {"kinds": kinds, "code": error.code, "field": error.field, "state": error.state}
    return None

unknown = str(uuid.uuid4())
print(json.dumps({
    "session_id": sid,
    "created": created,
    "state": str(started.state),
    "turn": {"verdict": str(turn.ai_verdict), "source": str(turn.source), "state": str(turn.state)},
    "unknown_session": caught(lambda: service.get_session(db, caller, unknown)),
    "second_reason": caught(lambda: service.submit_turn_settled(
        db, LlmSettings(), caller, sid, reason + "，真的", turn_no=1, grace_seconds=grace)),
    "http_loaded": sorted(n for n in sys.modules if n.split(".")[0] in BLOCKED or n.startswith("persona_rails.http")),
    "http_attempts": attempts,
}, ensure_ascii=False))
"""

_BLOCKER_SELF_CHECK = """
import importlib.abc, sys
class NoHttp(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"fastapi", "starlette", "mangum"}:
            raise ImportError(name)
sys.meta_path.insert(0, NoHttp())
import intercept_session.handler
"""


def _lambda_like_env(database_url: str) -> dict[str, str]:
    return lambda_env(functions()["InterceptSessionFunction"], DATABASE_URL=database_url)


def _run(code: str, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return run_python(code, *args, env=env)


def test_the_blocker_really_blocks_the_http_stack(database_url):
    # Without this, a broken blocker would let the real test pass whatever the service imports.
    result = _run(_BLOCKER_SELF_CHECK, env=_lambda_like_env(database_url))
    assert result.returncode != 0
    assert "ImportError" in result.stderr
    assert any(name in result.stderr for name in BLOCKED)


def test_a_service_runs_in_process_with_no_http_stack(users, db, database_url):
    user = users.create()
    rule = users.rule(user)

    result = _run(
        _IN_PROCESS,
        ",".join(BLOCKED),
        database_url,
        user.id,
        str(rule["id"]),
        BORED,
        env=_lambda_like_env(database_url),
    )

    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["http_attempts"] == []
    assert report["http_loaded"] == []
    assert (report["created"], report["state"]) == (True, "awaiting_reason")
    # The offline evaluator's verdict for this reason (see test_smoke), from the pure engine.
    assert report["turn"] == {"verdict": "delay", "source": "offline", "state": "awaiting_decision"}
    # Domain errors are plain exceptions here: no status code, just the kind, code and field/state.
    assert report["unknown_session"] == {
        "kinds": ["NotFound"],
        "code": "session_not_found",
        "field": "session_id",
        "state": None,
    }
    # A different reason for a turn already taken: a conflict naming the state.
    assert report["second_reason"]["kinds"] == ["Conflict"]
    assert report["second_reason"]["state"] == "awaiting_decision"
    # And it really happened in the database, under the user's own identity.
    session_id = str(uuid.UUID(report["session_id"]))
    with db.as_owner() as tx:
        session = tx.one(
            "SELECT * FROM public.intercept_sessions WHERE id = CAST(:id AS uuid)", id=session_id
        )
        turns = tx.rows(
            "SELECT * FROM public.intercept_turns WHERE session_id = CAST(:id AS uuid)", id=session_id
        )
    assert session is not None
    assert str(session["user_id"]) == user.id
    assert session["state"] == "awaiting_decision"
    assert [(t["turn_no"], t["ai_verdict"], t["reason_text"]) for t in turns] == [(1, "delay", BORED)]
