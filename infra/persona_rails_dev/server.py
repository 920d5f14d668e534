"""One local port for every HTTP function in template.yaml, through the real Lambda handlers.

Each request becomes an API Gateway v2 event, goes to the function's handler exactly as Lambda
would call it, and the handler's response is written back. No Docker, no emulation of our own
code: only the API Gateway envelope is simulated.
"""

from __future__ import annotations

import asyncio
import base64
import json
import sys
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from persona_rails_dev.apigw import http_event
from persona_rails_dev.lambda_runtime import Handler, LambdaContext, load_handler
from persona_rails_dev.template import Function, Route


@dataclass(frozen=True)
class Mounted:
    function: Function
    route: Route
    handler: Handler


def mount(functions: Iterable[Function]) -> list[Mounted]:
    mounted: list[Mounted] = []
    for function in functions:
        if not function.routes:
            continue
        handler = load_handler(function)
        mounted.extend(Mounted(function, route, handler) for route in function.routes)
    # Literal paths before templated ones, as API Gateway prefers the most specific route.
    return sorted(mounted, key=lambda m: (m.route.path.count("{"), -len(m.route.path)))


def invoke(entry: Mounted, event: dict[str, Any]) -> dict[str, Any]:
    # Lambda calls handlers on a thread with an event loop, which Mangum expects; the local
    # server's threads have none, so each invocation gets its own and closes it.
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        result: dict[str, Any] = entry.handler(event, LambdaContext(entry.function.logical_id))
    finally:
        asyncio.set_event_loop(None)
        loop.close()
    return result


def dispatch(
    mounted: list[Mounted], method: str, target: str, headers: dict[str, str], body: bytes | None
) -> tuple[int, dict[str, str], bytes]:
    split = urlsplit(target)
    for entry in mounted:
        params = entry.route.match(method, split.path)
        if params is None:
            continue
        event = http_event(
            entry.route, split.path, params, method=method, headers=headers, body=body, query=split.query
        )
        result: dict[str, Any] = invoke(entry, event)
        payload = result.get("body") or ""
        raw = base64.b64decode(payload) if result.get("isBase64Encoded") else payload.encode()
        response_headers = dict(result.get("headers") or {})
        for cookie in result.get("cookies") or []:
            response_headers.setdefault("set-cookie", cookie)
        return int(result.get("statusCode", 200)), response_headers, raw
    body_out = json.dumps({"message": "Not Found"}).encode()
    return 404, {"content-type": "application/json"}, body_out


def make_server(mounted: list[Mounted], host: str = "127.0.0.1", port: int = 3000) -> ThreadingHTTPServer:
    class _Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else None
            try:
                status, headers, raw = dispatch(
                    mounted, self.command, self.path, dict(self.headers.items()), body
                )
            except Exception as exc:  # noqa: BLE001 - a crashed handler is a 502, as API Gateway reports it
                print(f"[local-api] handler crashed: {type(exc).__name__}", file=sys.stderr)
                status, headers = 502, {"content-type": "application/json"}
                raw = json.dumps({"message": "Internal Server Error"}).encode()
            self.send_response(status)
            for name, value in headers.items():
                if name.lower() != "content-length":
                    self.send_header(name, value)
            self.send_header("content-length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

        def log_message(self, format: str, *args: Any) -> None:
            # Method, path and status only: bodies (user text) are never printed.
            print(
                f"[local-api] {self.command} {urlsplit(self.path).path} -> {args[1] if len(args) > 1 else ''}"
            )

    server = ThreadingHTTPServer((host, port), _Handler)
    server.daemon_threads = True
    return server


def serve_in_background(server: ThreadingHTTPServer) -> threading.Thread:
    thread = threading.Thread(target=server.serve_forever, name="local-api", daemon=True)
    thread.start()
    return thread
