"""Timing from outside: a handler call timed around `lambda_handler` only (with the delaying
proxy's round-trip count when given one), the parts of a call timed by wrapping what the function
calls (a clock read either side), and child processes for the cold-start measurements."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bench.harness.handler import lambda_context

if TYPE_CHECKING:
    from persona_rails_dev.lambda_runtime import Handler
    from tests.support.delay_proxy import DelayProxy


def call(
    handler: Handler, request: dict[str, Any], function_id: str, proxy: DelayProxy | None = None
) -> tuple[dict[str, Any], int, int]:
    """(result, nanoseconds around lambda_handler, round trips through `proxy` or -1)."""
    context = lambda_context(function_id)
    if proxy is None:
        started = time.perf_counter_ns()
        result = handler(request, context)
        return result, time.perf_counter_ns() - started, -1
    with proxy.measure() as counted:
        started = time.perf_counter_ns()
        result = handler(request, context)
        elapsed = time.perf_counter_ns() - started
    if counted.counts.connections:
        raise RuntimeError(f"{request['routeKey']} opened a new connection on a warm container")
    return result, elapsed, counted.round_trips


# --- the parts of one handler call ---------------------------------------------------------------------


@dataclass
class Spans:
    """What the wrapped calls took during one handler call (each function's benchmark names which
    calls count as which part), each transaction (`Database.run_as_user`) and, when counted, the
    bytes each transaction wrote."""

    engine: int = 0
    state: int = 0
    case: int = 0
    hashing: int = 0
    transactions: list[int] = field(default_factory=list)
    sent: list[int] = field(default_factory=list)
    writing: int = 0

    def clear(self) -> None:
        self.engine = self.state = self.case = self.hashing = 0
        self.transactions.clear()
        self.sent.clear()


def timer(found: Spans, part: str, original: Callable[..., Any]) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter_ns()
        try:
            return original(*args, **kwargs)
        finally:
            setattr(found, part, getattr(found, part) + time.perf_counter_ns() - started)

    return timed


@contextmanager
def patched(owner: Any, attribute: str, replacement: Any) -> Iterator[None]:
    original = owner.__dict__[attribute] if isinstance(owner, type) else getattr(owner, attribute)
    setattr(owner, attribute, replacement)
    try:
        yield
    finally:
        setattr(owner, attribute, original)


@contextmanager
def rebound(package: str, original: Any, replacement: Any) -> Iterator[None]:
    """Point every name for `original` in `package`'s modules at `replacement` (a service that
    imports the engine's functions by name calls them through its own module)."""
    places = []
    for name, module in list(sys.modules.items()):
        if name == package or name.startswith(f"{package}."):
            for attribute, value in list(vars(module).items()):
                if value is original:
                    setattr(module, attribute, replacement)
                    places.append((module, attribute))
    try:
        if not places:
            raise RuntimeError(f"{original.__name__} is no longer called by name in {package}: update bench/")
        yield
    finally:
        for module, attribute in places:
            setattr(module, attribute, original)


@contextmanager
def spans(
    parts: Iterable[tuple[Any, str, str]] = (), *, count_bytes: bool = False, sizes: bool = True
) -> Iterator[Spans]:
    """Time each `(owner, attribute, part)` and every transaction from outside; classmethods are
    timed through their function. With `count_bytes`, also count what each transaction writes to
    the socket (pg8000's `_write`, which every message goes through); `sizes=False` leaves
    `sent` alone (a benchmark that never reads it)."""
    import pg8000.core

    from persona_rails.db.database import Database

    found = Spans()
    run_as_user, write = Database.run_as_user, pg8000.core._write

    def timed_run(self: Database, claims: dict[str, Any], *statements: tuple[str, dict[str, Any]]) -> Any:
        found.writing = 0
        started = time.perf_counter_ns()
        try:
            return run_as_user(self, claims, *statements)
        finally:
            found.transactions.append(time.perf_counter_ns() - started)
            found.sent.append(found.writing)

    def plain_run(self: Database, claims: dict[str, Any], *statements: tuple[str, dict[str, Any]]) -> Any:
        started = time.perf_counter_ns()
        try:
            return run_as_user(self, claims, *statements)
        finally:
            found.transactions.append(time.perf_counter_ns() - started)

    def counted_write(sock: Any, data: bytes) -> None:
        found.writing += len(data)
        write(sock, data)

    with ExitStack() as stack:
        for owner, attribute, part in parts:
            original = owner.__dict__[attribute] if isinstance(owner, type) else getattr(owner, attribute)
            if isinstance(original, classmethod):
                replacement: Any = classmethod(timer(found, part, original.__func__))
            else:
                replacement = timer(found, part, original)
            stack.enter_context(patched(owner, attribute, replacement))
        stack.enter_context(patched(Database, "run_as_user", timed_run if sizes else plain_run))
        if count_bytes:
            stack.enter_context(patched(pg8000.core, "_write", counted_write))
        yield found


# --- child processes (cold start, import costs) -----------------------------------------------------------------------------


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
