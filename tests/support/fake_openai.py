"""A real OpenAI-compatible HTTP server for tests: the SDK talks to it over TCP, nothing is patched.

The server answers `POST /v1/chat/completions` from a script of behaviours (first in, first
out) and falls back to `default` when the script is empty. Every request it receives is
recorded, so tests can assert on exactly what the product sent.

Behaviours:
- `Completion`: a 200 chat.completion whose message content is the given string (any string:
  JSON from `json_content(...)`, or raw prose to exercise the "not JSON" path);
- `ErrorStatus`: an HTTP error with an OpenAI-style `{"error": {...}}` body;
- `RawBody`: arbitrary bytes with a given status and content type;
- `Delay`: wait, then run another behaviour; the wait ends at once when the server stops;
- `Disconnect`: read the request, then drop the connection without a response.
"""

from __future__ import annotations

import base64
import hashlib
import json
import socket
import struct
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

COMPLETIONS_PATH = "/v1/chat/completions"
EMBEDDINGS_PATH = "/v1/embeddings"
# How long a handler thread may wait on a silent client before giving up (never reached by the SDK).
_SOCKET_TIMEOUT_SECONDS = 10.0
_JOIN_TIMEOUT_SECONDS = 5.0


@dataclass(frozen=True)
class Completion:
    """A successful chat.completion. `model=None` echoes the model the request asked for."""

    content: str | None
    model: str | None = None
    refusal: str | None = None
    finish_reason: str = "stop"
    prompt_tokens: int = 120
    completion_tokens: int = 40


@dataclass(frozen=True)
class ErrorStatus:
    status: int
    message: str = "fake-openai: scripted error"
    type: str = "server_error"
    code: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class RawBody:
    body: bytes
    status: int = 200
    content_type: str = "application/json"


@dataclass(frozen=True)
class Delay:
    seconds: float
    then: Behaviour = field(default_factory=lambda: Completion("{}"))


@dataclass(frozen=True)
class Trickle:
    """A valid completion whose body arrives one byte every `interval` seconds: each read is
    quick, so only an overall deadline stops it."""

    interval: float
    content: str = '{"reason_category": "work", "verdict": "allow", "confidence": 0.9, "justification": "x"}'


@dataclass(frozen=True)
class Disconnect:
    """Drop the connection without answering (a reset, as when a proxy or the host dies)."""


Behaviour = Completion | ErrorStatus | RawBody | Delay | Trickle | Disconnect


def json_content(payload: Any, **kwargs: Any) -> Completion:
    return Completion(json.dumps(payload, ensure_ascii=False), **kwargs)


def rate_limited() -> ErrorStatus:
    return ErrorStatus(
        429, "Rate limit reached for requests", "requests", "rate_limit_exceeded", {"retry-after": "0"}
    )


def server_error(status: int = 500) -> ErrorStatus:
    return ErrorStatus(status, "The server had an error while processing your request.", "server_error")


@dataclass(frozen=True)
class ReceivedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body["messages"])

    def message(self, role: str) -> str:
        contents = [m["content"] for m in self.messages if m["role"] == role]
        assert len(contents) == 1, f"expected one {role} message, got {len(contents)}"
        return str(contents[0])


class _Server(ThreadingHTTPServer):
    # Handler threads are joined on close, so a test never leaks a thread still answering.
    daemon_threads = False
    block_on_close = True

    def __init__(self, fake: FakeOpenAI) -> None:
        self.fake = fake
        super().__init__(("127.0.0.1", 0), _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        # A client that gave up (timeout) leaves a dead socket behind; writing to it is expected.
        if isinstance(error, ConnectionError | TimeoutError):
            return
        self.fake.errors.append(repr(error))
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = _SOCKET_TIMEOUT_SECONDS
    # Headers and body are two writes: with Nagle's algorithm every reply would wait about 40 ms
    # for the SDK's delayed ACK, latency that no scripted Delay asked for.
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        fake = self.server.fake
        request = ReceivedRequest("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        fake.record(request)
        if self.path == EMBEDDINGS_PATH:
            self._embeddings(fake, request)
            return
        if self.path != COMPLETIONS_PATH:
            self._error(ErrorStatus(404, f"fake-openai: no route {self.path}", "invalid_request_error"))
            return
        self._perform(fake.next_behaviour(), request)

    def _embeddings(self, fake: FakeOpenAI, request: ReceivedRequest) -> None:
        """A deterministic vector per input text (its SHA-256 stretched to the requested size), in
        the float list or the base64 float32 encoding the SDK asks for; `fake.embedding_fault`
        answers instead when set."""
        if fake.embedding_fault is not None:
            self._perform(fake.embedding_fault, request)
            return
        body = request.body if isinstance(request.body, dict) else {}
        dimensions = int(body.get("dimensions") or 8)
        seed = hashlib.sha256(str(body.get("input")).encode()).digest()
        raw = [((seed[i % len(seed)] + i) % 251) / 251 - 0.5 for i in range(dimensions)]
        norm = sum(value * value for value in raw) ** 0.5
        vector = [value / norm for value in raw]
        encoded: Any = vector
        if body.get("encoding_format") == "base64":
            encoded = base64.b64encode(struct.pack(f"<{dimensions}f", *vector)).decode()
        payload = {
            "object": "list",
            "data": [{"object": "embedding", "index": 0, "embedding": encoded}],
            "model": body.get("model", "fake-embedding"),
            "usage": {"prompt_tokens": 8, "total_tokens": 8},
        }
        self._send(200, json.dumps(payload).encode())

    def _perform(self, behaviour: Behaviour, request: ReceivedRequest) -> None:
        if isinstance(behaviour, Delay):
            if self.server.fake.stopping.wait(behaviour.seconds):
                self._drop()
                return
            self._perform(behaviour.then, request)
        elif isinstance(behaviour, Completion):
            self._completion(behaviour, request)
        elif isinstance(behaviour, ErrorStatus):
            self._error(behaviour)
        elif isinstance(behaviour, RawBody):
            self._send(behaviour.status, behaviour.body, behaviour.content_type)
        elif isinstance(behaviour, Disconnect):
            self._drop()
        elif isinstance(behaviour, Trickle):
            self._trickle(behaviour, request)
        else:  # pragma: no cover - the union is closed
            raise TypeError(behaviour)

    def _completion(self, behaviour: Completion, request: ReceivedRequest) -> None:
        requested = request.body.get("model") if isinstance(request.body, dict) else None
        payload = {
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": behaviour.model or requested or "fake-model",
            "system_fingerprint": "fp_fake",
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": behaviour.content,
                        "refusal": behaviour.refusal,
                    },
                    "logprobs": None,
                    "finish_reason": behaviour.finish_reason,
                }
            ],
            "usage": {
                "prompt_tokens": behaviour.prompt_tokens,
                "completion_tokens": behaviour.completion_tokens,
                "total_tokens": behaviour.prompt_tokens + behaviour.completion_tokens,
            },
        }
        self._send(200, json.dumps(payload, ensure_ascii=False).encode())

    def _trickle(self, behaviour: Trickle, request: ReceivedRequest) -> None:
        body = json.dumps(
            {
                "id": "chatcmpl-trickle",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": request.body.get("model", "fake-model")
                if isinstance(request.body, dict)
                else "fake",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": behaviour.content},
                        "finish_reason": "stop",
                    }
                ],
            }
        ).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.send_header("connection", "close")
        self.end_headers()
        self.wfile.flush()
        self.close_connection = True
        for index in range(len(body)):
            if self.server.fake.stopping.wait(behaviour.interval):
                return
            try:
                self.wfile.write(body[index : index + 1])
                self.wfile.flush()
            except OSError:  # the client gave up, as it should
                return

    def _error(self, behaviour: ErrorStatus) -> None:
        payload = {
            "error": {
                "message": behaviour.message,
                "type": behaviour.type,
                "param": None,
                "code": behaviour.code,
            }
        }
        self._send(behaviour.status, json.dumps(payload).encode(), headers=behaviour.headers)

    def _send(
        self,
        status: int,
        body: bytes,
        content_type: str = "application/json",
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        # One request per connection: no idle keep-alive socket can hold a handler thread open.
        self.send_header("connection", "close")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True

    def _drop(self) -> None:
        # SO_LINGER with a zero timeout turns close() into a TCP reset: no response, no FIN dance.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        self.connection.close()


class FakeOpenAI:
    """Start with `start()` (or use `running()`); `base_url` is what OPENAI_BASE_URL should be."""

    def __init__(self, default: Behaviour | None = None) -> None:
        self.default: Behaviour = default or ErrorStatus(
            500, "fake-openai: the script is empty and no default was set", "server_error"
        )
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._script: deque[Behaviour] = deque()
        self._requests: list[ReceivedRequest] = []
        # What /v1/embeddings answers instead of a vector, when set (a fault to degrade from).
        self.embedding_fault: Behaviour | None = None
        # Unexpected exceptions inside the fake itself; the fixture fails the test if any occurred.
        self.errors: list[str] = []
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- script ---------------------------------------------------------------------------------

    def script(self, *behaviours: Behaviour) -> FakeOpenAI:
        with self._lock:
            self._script.extend(behaviours)
        return self

    def next_behaviour(self) -> Behaviour:
        with self._lock:
            return self._script.popleft() if self._script else self.default

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._script)

    # -- requests -------------------------------------------------------------------------------

    def record(self, request: ReceivedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    @property
    def requests(self) -> list[ReceivedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def last_request(self) -> ReceivedRequest:
        requests = self.requests
        assert requests, "the fake OpenAI server received no request"
        return requests[-1]

    def reset(self) -> None:
        """Forget recorded requests and any unused script (the default stays)."""
        with self._lock:
            self._requests.clear()
            self._script.clear()

    # -- lifecycle ------------------------------------------------------------------------------

    @property
    def port(self) -> int:
        assert self._server is not None, "the server is not running"
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> FakeOpenAI:
        assert self._server is None, "already started"
        self.stopping.clear()
        self._server = _Server(self)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is None:
            return
        self.stopping.set()  # wakes every Delay at once
        self._server.shutdown()
        self._server.server_close()  # joins the handler threads
        assert self._thread is not None
        self._thread.join(_JOIN_TIMEOUT_SECONDS)
        self._server, self._thread = None, None

    @contextmanager
    def running(self) -> Iterator[FakeOpenAI]:
        self.start()
        try:
            yield self
        finally:
            self.stop()
