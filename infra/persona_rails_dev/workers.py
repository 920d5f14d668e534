"""Each function in its own worker processes, as Lambda runs each function in its own sandbox.

A worker sees only its function's CodeUri, the layer and the installed packages on sys.path, and
only its own environment: the template's Globals merged with the function's variables, plus the
variables Lambda's runtime sets. Nothing of another function is importable or visible there. A
pool keeps up to `max_instances` warm workers per function, one request at a time each, like
Lambda's execution environments; a worker that crashes or times out is replaced.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from persona_rails.env import PARAMETER_SUFFIX
from persona_rails_dev.template import Function, resolved_environment

_WORKER_MAIN = Path(__file__).parent / "worker_main.py"
# Run by path, not imported: the tooling's own package stays off the worker's sys.path.
_BOOTSTRAP = "import runpy, sys; sys.argv.pop(0); runpy.run_path(sys.argv[0], run_name='__main__')"
# What a process needs from the machine whatever the function: tools on PATH, a home, a locale,
# a writable temp folder and the runtime folder the embedded PostgreSQL's socket lives in.
_MACHINE_VARIABLES = ("PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR", "XDG_RUNTIME_DIR", "SYSTEMROOT")
# Lambda may spend up to 10 s on init; a cold local machine importing everything needs more.
INIT_TIMEOUT_SECONDS = 60.0


class WorkerError(Exception):
    """The function failed as Lambda would report it: init error, unhandled exception, timeout."""

    def __init__(self, message: str, detail: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.detail = detail or {}


def lambda_environment(
    function: Function, local: Mapping[str, str] | None = None, overrides: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment Lambda would give the function, with this machine's values for parameters.

    Literal template values are the function's own. A variable fed by a parameter (DATABASE_URL,
    the JWT secret, the LLM settings) takes this process's value when it has one, as a deployment
    takes the parameter's value, else the parameter's default. `overrides` wins over both (local
    log level, `--env-vars`).
    """
    local = os.environ if local is None else local
    env = {name: local[name] for name in _MACHINE_VARIABLES if name in local}
    declared = resolved_environment(function)
    for name, value in function.environment.items():
        if not isinstance(value, str) and local.get(name):
            env[name] = local[name]
        elif name in declared:
            env[name] = declared[name]
        # A secret the template has read from SSM (DATABASE_URL_PARAMETER) is this machine's plain
        # variable (DATABASE_URL) locally, as local development configures it.
        plain = name.removesuffix(PARAMETER_SUFFIX)
        if plain != name and local.get(plain):
            env[plain] = local[plain]
    region = local.get("AWS_REGION") or local.get("AWS_DEFAULT_REGION") or "us-east-1"
    env.update(
        {
            "AWS_LAMBDA_FUNCTION_NAME": function.logical_id,
            "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(function.memory_mb),
            "AWS_LAMBDA_FUNCTION_TIMEOUT": str(function.timeout_seconds),
            "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
            "AWS_REGION": region,
            "AWS_DEFAULT_REGION": region,
            "LAMBDA_TASK_ROOT": str(function.code_uri),
            # There is no X-Ray daemon locally; tracing is measured in bench/, not served.
            "POWERTOOLS_TRACE_DISABLED": "true",
            "PYTHONUNBUFFERED": "1",
            "PYTHONPATH": os.pathsep.join(
                [str(function.code_uri), *map(str, function.layer_paths), *site_packages()]
            ),
        }
    )
    env.update(overrides or {})
    return env


def site_packages() -> list[str]:
    return [path for path in sys.path if path.endswith("site-packages")]


class Worker:
    """One process running one function: init once, then one request at a time."""

    def __init__(self, function: Function, env: Mapping[str, str]) -> None:
        self.function = function
        self._process = subprocess.Popen(  # noqa: S603 - our own interpreter running our own worker
            [sys.executable, "-S", "-c", _BOOTSTRAP, str(_WORKER_MAIN), function.module, function.attribute],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=function.code_uri,
            env=dict(env),
            # Ctrl-C stops `rails serve`, which then stops its workers; they must not each print
            # a KeyboardInterrupt traceback. A parent that dies closes their stdin, and they exit.
            start_new_session=True,
        )
        self._buffer = b""
        started = self._read(time.monotonic() + INIT_TIMEOUT_SECONDS)
        if "init_error" in started:
            self.stop()
            error = started["init_error"]
            raise WorkerError(f"{function.logical_id} failed to initialise: {error['errorType']}", error)

    @property
    def alive(self) -> bool:
        return self._process.poll() is None

    def request(self, message: dict[str, Any], timeout_seconds: float) -> Any:
        assert self._process.stdin is not None
        try:
            self._process.stdin.write(json.dumps(message, ensure_ascii=False).encode() + b"\n")
            self._process.stdin.flush()
        except BrokenPipeError:
            self.stop()
            raise WorkerError(f"{self.function.logical_id}: the worker process died") from None
        reply = self._read(time.monotonic() + timeout_seconds)
        if "error" in reply:
            error = reply["error"]
            raise WorkerError(f"{self.function.logical_id}: {error['errorType']}", error)
        return reply["result"]

    def _read(self, deadline: float) -> dict[str, Any]:
        assert self._process.stdout is not None
        stream = self._process.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([stream], [], [], max(left, 0))
            if not ready:
                self.stop()
                raise WorkerError(f"{self.function.logical_id}: timed out after the function's Timeout")
            chunk = os.read(stream, 65536)
            if not chunk:
                self.stop()
                raise WorkerError(f"{self.function.logical_id}: the worker process died")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        reply: dict[str, Any] = json.loads(line)
        return reply

    def stop(self) -> None:
        if self._process.poll() is None:
            self._process.kill()
        self._process.wait()
        for stream in (self._process.stdin, self._process.stdout):
            if stream is not None:
                stream.close()


class FunctionPool:
    """Warm workers for one function; a request waits for a free one or starts another."""

    def __init__(self, function: Function, env: Mapping[str, str], max_instances: int = 4) -> None:
        self.function = function
        self._env = dict(env)
        self._max = max_instances
        self._idle: list[Worker] = []
        self._running = 0
        self._available = threading.Condition()

    def warm(self) -> None:
        """Start one worker now, so the first request does not pay the cold start."""
        self._release(self._acquire())

    def invoke(self, event: dict[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = self.request({"kind": "invoke", "event": event})
        return result

    def request(self, message: dict[str, Any]) -> Any:
        worker = self._acquire()
        try:
            result = worker.request(message, float(self.function.timeout_seconds))
        except WorkerError:
            # A function that raised keeps its warm worker; a crashed or timed-out one is gone.
            if worker.alive:
                self._release(worker)
            else:
                self._discard()
            raise
        self._release(worker)
        return result

    def _acquire(self) -> Worker:
        with self._available:
            while not self._idle and self._running >= self._max:
                self._available.wait()
            if self._idle:
                return self._idle.pop()
            self._running += 1
        try:
            return Worker(self.function, self._env)
        except BaseException:
            self._discard()
            raise

    def _release(self, worker: Worker) -> None:
        with self._available:
            self._idle.append(worker)
            self._available.notify()

    def _discard(self) -> None:
        with self._available:
            self._running -= 1
            self._available.notify()

    def close(self) -> None:
        with self._available:
            idle, self._idle = self._idle, []
            self._running -= len(idle)
        for worker in idle:
            worker.stop()
