"""The request handler of the tests' small local HTTP servers (a JWKS endpoint, a moderation
service, SSM): quiet, and prompt."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler
from typing import Any

# How often `serve_forever` looks for a shutdown: its default, 0.5 s, is what each test's teardown
# would wait.
POLL_SECONDS = 0.01


class PromptHandler(BaseHTTPRequestHandler):
    # A reply's headers and body leave in two writes; with Nagle's algorithm on, the body waits
    # about 40 ms for the client's delayed ACK of the headers, latency no test asked for.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        pass
