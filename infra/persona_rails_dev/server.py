"""One local port for every HTTP function in template.yaml, as API Gateway's HTTP API fronts them.

Each request becomes an API Gateway v2 event and goes to its function's Lambda handler; the
handler's response is written back. `rails serve` runs every function in worker processes of its
own (workers.py); the test suite mounts the handlers in-process (`in_process`) to watch their logs.
What API Gateway itself does is simulated here: route matching, CORS from the template's
CorsConfiguration, payload limits, and JSON errors for what no function answers.
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
import sys
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from persona_rails_dev.apigw import http_event
from persona_rails_dev.lambda_runtime import LambdaContext, load_handler
from persona_rails_dev.template import Cors, Function, Route
from persona_rails_dev.workers import FunctionPool, WorkerError, lambda_environment

Invoker = Callable[[dict[str, Any]], dict[str, Any]]
OpenApiSource = Callable[[], dict[str, Any]]

# API Gateway HTTP APIs refuse request payloads over 10 MB.
MAX_BODY_BYTES = 10 * 1024 * 1024
# A body over the limit is still read (and dropped) up to this much before the 413, as API
# Gateway reads a request before refusing it: a client that sends its whole body before reading
# the answer then sees the 413, not a reset connection. Past it, the connection is closed.
MAX_DRAINED_BYTES = 64 * 1024 * 1024
# Lambda refuses a synchronous invocation whose event is larger than this (6 MiB), and API
# Gateway answers 413: a body under 10 MB can still be too large once it is inside the event.
LAMBDA_EVENT_MAX_BYTES = 6 * 1024 * 1024
# JSON escapes a byte into at most 6 characters ("\u0001"): a body under this cannot make the
# event too large, and the event is only measured past it.
EVENT_MEASURED_FROM_BYTES = 1024 * 1024
# A client that stops sending mid-request (or holds an idle keep-alive) is dropped after this.
SOCKET_TIMEOUT_SECONDS = 30
LISTEN_BACKLOG = 128
ACCESS_LOG_PATH_CHARS = 80


@dataclass(frozen=True)
class Mounted:
    function: Function
    route: Route
    invoke: Invoker


@dataclass(frozen=True)
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes


def error_reply(status: int, code: str, message: str, headers: Mapping[str, str] | None = None) -> Reply:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    return Reply(status, {"content-type": "application/json", **(headers or {})}, body)


def _by_specificity(mounted: list[Mounted]) -> list[Mounted]:
    # Literal paths before templated ones, as API Gateway prefers the most specific route.
    return sorted(mounted, key=lambda m: (m.route.path.count("{"), -len(m.route.path)))


def in_process(functions: Iterable[Function]) -> list[Mounted]:
    """Every HTTP function's handler loaded into this process (tests and benchmarks)."""
    mounted: list[Mounted] = []
    for function in functions:
        if function.routes:
            invoker = _in_process_invoker(function)
            mounted.extend(Mounted(function, route, invoker) for route in function.routes)
    return _by_specificity(mounted)


def _in_process_invoker(function: Function) -> Invoker:
    handler = load_handler(function)

    def invoke(event: dict[str, Any]) -> dict[str, Any]:
        # Lambda calls handlers on a thread with an event loop, which Mangum expects; the local
        # server's threads have none, so each invocation gets its own and closes it.
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            result: dict[str, Any] = handler(event, LambdaContext(function.logical_id))
        finally:
            asyncio.set_event_loop(None)
            loop.close()
        return result

    return invoke


def in_workers(pools: Iterable[FunctionPool]) -> list[Mounted]:
    """Every pooled function's routes, each invoked in its own worker processes."""
    return _by_specificity(
        [Mounted(pool.function, route, pool.invoke) for pool in pools for route in pool.function.routes]
    )


def worker_api(
    functions: Iterable[Function],
    overrides: Callable[[Function], Mapping[str, str]] | None = None,
    max_instances: int = 4,
    cors: Cors | None = None,
) -> tuple[LocalApi, list[FunctionPool]]:
    """The local API over worker pools, one per HTTP function, each serving its OpenAPI document."""
    pools = [
        FunctionPool(
            function,
            lambda_environment(function, overrides=overrides(function) if overrides else None),
            max_instances,
        )
        for function in functions
        if function.routes
    ]
    documents = {pool.function.kebab_name: partial(pool.request, {"kind": "openapi"}) for pool in pools}
    return LocalApi(in_workers(pools), cors, documents), pools


def _cors_headers(cors: Cors | None, origin: str | None) -> dict[str, str]:
    if cors is None or origin is None:
        return {}
    if "*" in cors.allow_origins and not cors.allow_credentials:
        allowed = "*"
    elif origin in cors.allow_origins or "*" in cors.allow_origins:
        allowed = origin
    else:
        return {}
    headers = {"access-control-allow-origin": allowed}
    if cors.allow_credentials:
        headers["access-control-allow-credentials"] = "true"
    if cors.expose_headers:
        headers["access-control-expose-headers"] = ",".join(cors.expose_headers)
    return headers


def _preflight(cors: Cors | None, headers: Mapping[str, str]) -> Reply:
    allowed = _cors_headers(cors, headers.get("origin"))
    if cors is None or not allowed:
        return Reply(204, {}, b"")
    allowed["access-control-allow-methods"] = ",".join(cors.allow_methods)
    if cors.allow_headers:
        allowed["access-control-allow-headers"] = ",".join(cors.allow_headers)
    if cors.max_age is not None:
        allowed["access-control-max-age"] = str(cors.max_age)
    return Reply(204, allowed, b"")


@dataclass
class LocalApi:
    """API Gateway's part: route a request to a function, or answer it itself."""

    mounted: list[Mounted]
    cors: Cors | None = None
    openapi: Mapping[str, OpenApiSource] | None = None

    def handle(self, method: str, target: str, headers: Mapping[str, str], body: bytes | None) -> Reply:
        lowered = {name.lower(): value for name, value in headers.items()}
        reply = self._route(method.upper(), target, lowered, body)
        if method.upper() == "OPTIONS" and "access-control-request-method" in lowered:
            return reply
        cors = _cors_headers(self.cors, lowered.get("origin"))
        return Reply(reply.status, {**reply.headers, **cors}, reply.body) if cors else reply

    def _route(self, method: str, target: str, headers: dict[str, str], body: bytes | None) -> Reply:
        split = urlsplit(target)
        allowed_methods = set()
        for entry in self.mounted:
            params = entry.route.match_path(split.path)
            if params is None:
                continue
            if entry.route.method != method:
                allowed_methods.add(entry.route.method)
                continue
            event = http_event(
                entry.route, split.path, params, method=method, headers=headers, body=body, query=split.query
            )
            if (
                body is not None
                and len(body) > EVENT_MEASURED_FROM_BYTES
                and _event_bytes(event) > LAMBDA_EVENT_MAX_BYTES
            ):
                return error_reply(
                    413,
                    "payload_too_large",
                    f"the request is over the {LAMBDA_EVENT_MAX_BYTES} bytes a Lambda function accepts",
                )
            return self._invoke(entry, event)
        if method == "OPTIONS" and "access-control-request-method" in headers:
            return _preflight(self.cors, headers)
        if method == "GET" and self.openapi is not None and split.path.startswith("/openapi"):
            return self._openapi(split.path)
        if allowed_methods:
            allow = ", ".join(sorted(allowed_methods))
            return error_reply(
                405, "method_not_allowed", f"{split.path} answers {allow}, not {method}", {"allow": allow}
            )
        return error_reply(404, "route_not_found", f"no route for {method} {_short(split.path)}")

    @staticmethod
    def _invoke(entry: Mounted, event: dict[str, Any]) -> Reply:
        try:
            result = entry.invoke(event)
        except WorkerError as exc:
            # API Gateway answers 500 for a function that failed; the detail stays in the log.
            print(f"[local-api] {exc}", file=sys.stderr)
            for line in exc.detail.get("stackTrace", []):
                print(line, end="", file=sys.stderr)
            return error_reply(500, "function_failed", f"{entry.function.logical_id} failed; see the log")
        payload = result.get("body") or ""
        raw = base64.b64decode(payload) if result.get("isBase64Encoded") else payload.encode()
        response_headers = dict(result.get("headers") or {})
        for cookie in result.get("cookies") or []:
            response_headers.setdefault("set-cookie", cookie)
        return Reply(int(result.get("statusCode", 200)), response_headers, raw)

    def _openapi(self, path: str) -> Reply:
        assert self.openapi is not None
        documents = {f"/openapi/{name}.json": source for name, source in self.openapi.items()}
        if path in {"/openapi", "/openapi/"}:
            index = {"documents": sorted(documents)}
            return Reply(200, {"content-type": "application/json"}, json.dumps(index).encode())
        if path not in documents:
            return error_reply(404, "route_not_found", f"no OpenAPI document at {_short(path)}")
        try:
            document = documents[path]()
        except WorkerError as exc:
            return error_reply(500, "function_failed", str(exc))
        return Reply(200, {"content-type": "application/json"}, json.dumps(document).encode())


def _event_bytes(event: dict[str, Any]) -> int:
    return len(json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode())


def _short(path: str) -> str:
    return path if len(path) <= ACCESS_LOG_PATH_CHARS else path[: ACCESS_LOG_PATH_CHARS - 1] + "…"


class _BadRequest(Exception):
    def __init__(self, reply: Reply) -> None:
        super().__init__(reply.status)
        self.reply = reply


class _RequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = SOCKET_TIMEOUT_SECONDS
    # The status line and headers go out before the body, in two writes; with Nagle's algorithm
    # the body then waits for the client's delayed ACK of the headers, about 40 ms per reply.
    disable_nagle_algorithm = True
    api: LocalApi

    def __getattr__(self, name: str) -> Any:
        # Every method reaches the router, which answers unknown ones with a JSON 405 or 404.
        if name.startswith("do_"):
            return self._serve
        raise AttributeError(name)

    def _serve(self) -> None:
        try:
            body = self._read_body()
        except _BadRequest as bad:
            self.close_connection = True
            self._write(bad.reply)
            return
        try:
            reply = self.api.handle(self.command, self.path, dict(self.headers.items()), body)
        except Exception as exc:  # noqa: BLE001 - a crash of the local API itself, not of a function
            print(f"[local-api] {type(exc).__name__} while serving a request", file=sys.stderr)
            reply = error_reply(500, "local_api_error", "the local API failed; see its log")
        self._write(reply)

    def _read_body(self) -> bytes | None:
        if "chunked" in (self.headers.get("transfer-encoding") or "").lower():
            raise _BadRequest(
                error_reply(411, "length_required", "send the body with a Content-Length, not chunked")
            )
        lengths = self.headers.get_all("content-length") or []
        if not lengths:
            return None
        # ASCII digits only: str.isdigit() also accepts "²", which int() then refuses.
        if len(set(lengths)) > 1 or not re.fullmatch(r"[0-9]+", lengths[0].strip()):
            raise _BadRequest(
                error_reply(400, "invalid_content_length", "Content-Length must be one whole number")
            )
        length = int(lengths[0])
        if length > MAX_BODY_BYTES:
            self._drain(min(length, MAX_DRAINED_BYTES))
            raise _BadRequest(
                error_reply(413, "payload_too_large", f"the body may be {MAX_BODY_BYTES} bytes at most")
            )
        body = bytearray()
        try:
            while len(body) < length:
                chunk = self.rfile.read1(min(65536, length - len(body)))
                if not chunk:
                    break
                body += chunk
        except TimeoutError:
            pass  # reported below, with what did arrive
        if len(body) < length:
            raise _BadRequest(
                error_reply(
                    400, "incomplete_body", f"Content-Length says {length} bytes but {len(body)} arrived"
                )
            )
        return bytes(body) or None

    def _drain(self, length: int) -> None:
        """Read and drop up to `length` bytes of the body, until the client stops sending."""
        left = length
        try:
            while left > 0 and (chunk := self.rfile.read1(min(65536, left))):
                left -= len(chunk)
        except (TimeoutError, ConnectionError):
            pass  # the 413 still goes out, and the connection closes

    def _write(self, reply: Reply) -> None:
        self.send_response(reply.status)
        for name, value in reply.headers.items():
            if name.lower() not in {"content-length", "connection"}:
                self.send_header(name, value)
        self.send_header("content-length", str(len(reply.body)))
        if self.close_connection:
            self.send_header("connection", "close")
        self.end_headers()
        self.wfile.write(reply.body)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        # The standard library's HTML errors (a malformed request line, a header flood) in our
        # JSON shape instead.
        self.close_connection = True
        # An unparseable request line leaves HTTP/0.9, which has no status line or headers.
        self.request_version = "HTTP/1.0"
        if self.command is None:
            self.path = ""  # not the previous request's, on a kept-alive connection
        self._write(error_reply(code, "bad_request" if code < 500 else "server_error", message or ""))

    def log_message(self, format: str, *args: Any) -> None:
        # Method, path (without the query) and status only: bodies (user text) are never printed.
        status = args[1] if len(args) > 1 else ""
        path = _short(urlsplit(getattr(self, "path", "") or "").path)
        print(f"[local-api] {getattr(self, 'command', None) or '-'} {path} -> {status}", file=sys.stderr)


class LocalServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = LISTEN_BACKLOG


def make_server(
    api: LocalApi, host: str = "127.0.0.1", port: int = 3000, socket_timeout: float = SOCKET_TIMEOUT_SECONDS
) -> LocalServer:
    handler = type("LocalApiRequestHandler", (_RequestHandler,), {"api": api, "timeout": socket_timeout})
    return LocalServer((host, port), handler)


def serve_in_background(server: LocalServer) -> threading.Thread:
    thread = threading.Thread(target=server.serve_forever, name="local-api", daemon=True)
    thread.start()
    return thread
