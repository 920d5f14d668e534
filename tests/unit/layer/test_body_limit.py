"""The body limit (persona_rails.http.body_limit): over the limit, 413 with the JSON error shape
and the app never runs, so nothing parses the body; at or under it, the app gets the body
byte for byte."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict

from persona_rails.http.app import create_app
from persona_rails.http.body_limit import BodyLimit
from tests.support.fixtures import TEST_JWT_SECRET
from tests.support.users import make_token

LIMIT = 64
TOKEN = make_token("7d3c1a52-5b7e-4c39-9a43-2f0d3f3c9e11", TEST_JWT_SECRET)


class Recorder:
    """An ASGI app that records the body it read."""

    def __init__(self) -> None:
        self.calls = 0
        self.body = b""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.calls += 1
        while True:
            message = await receive()
            self.body += message.get("body", b"")
            if not message.get("more_body", False):
                break
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


def call(
    app: Any, chunks: list[bytes], *, headers: list[tuple[bytes, bytes]] | None = None
) -> tuple[list, int]:
    """Send `chunks` as one request's body messages; returns what was sent back and how many
    body messages the middleware read."""
    messages = [
        {"type": "http.request", "body": chunk, "more_body": index < len(chunks) - 1}
        for index, chunk in enumerate(chunks)
    ]
    read = 0
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal read
        read += 1
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/", "headers": headers or []}
    asyncio.run(app(scope, receive, send))
    return sent, read


def status_and_body(sent: list[dict[str, Any]]) -> tuple[int, bytes]:
    return sent[0]["status"], b"".join(message.get("body", b"") for message in sent[1:])


@pytest.mark.parametrize("size", [0, 1, LIMIT - 1, LIMIT])
def test_a_body_within_the_limit_reaches_the_app_unchanged(size):
    inner = Recorder()
    body = bytes(range(256))[:size] if size <= 256 else b"x" * size
    sent, _ = call(BodyLimit(inner, LIMIT), [body])
    assert status_and_body(sent) == (200, b"ok")
    assert (inner.calls, inner.body) == (1, body)


def test_a_body_in_many_chunks_is_reassembled():
    inner = Recorder()
    chunks = [b"a" * 10, b"b" * 20, b"", b"c" * (LIMIT - 30)]
    call(BodyLimit(inner, LIMIT), chunks)
    assert inner.body == b"".join(chunks)


@pytest.mark.parametrize(
    "chunks",
    [
        pytest.param([b"x" * (LIMIT + 1)], id="one-byte-over"),
        pytest.param([b"x" * 40, b"y" * 40], id="over-across-chunks"),
        pytest.param([b"{" * 10_000], id="much-over"),
    ],
)
def test_a_body_over_the_limit_is_413_and_the_app_never_runs(chunks):
    inner = Recorder()
    sent, _ = call(BodyLimit(inner, LIMIT), chunks)
    status, body = status_and_body(sent)
    assert status == 413
    assert json.loads(body) == {
        "error": {"code": "body_too_large", "message": f"the request body must be at most {LIMIT} bytes"}
    }
    assert (b"content-type", b"application/json") in sent[0]["headers"]
    assert inner.calls == 0


def test_reading_stops_at_the_chunk_that_crosses_the_limit():
    chunks = [b"x" * 40, b"y" * 40, b"z" * 40, b"w" * 40]
    sent, read = call(BodyLimit(Recorder(), LIMIT), chunks)
    assert status_and_body(sent)[0] == 413
    assert read == 2


def test_a_declared_length_over_the_limit_is_refused_without_reading():
    sent, read = call(
        BodyLimit(Recorder(), LIMIT), [b""], headers=[(b"content-length", str(LIMIT + 1).encode())]
    )
    assert status_and_body(sent)[0] == 413
    assert read == 0


def test_a_declared_length_that_lies_low_is_still_counted():
    inner = Recorder()
    sent, _ = call(BodyLimit(inner, LIMIT), [b"x" * (LIMIT * 2)], headers=[(b"content-length", b"3")])
    assert status_and_body(sent)[0] == 413
    assert inner.calls == 0


def test_a_client_that_goes_away_gets_nothing_and_the_app_never_runs():
    inner = Recorder()
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(BodyLimit(inner, LIMIT)({"type": "http", "headers": []}, receive, send))
    assert (sent, inner.calls) == ([], 0)


def test_other_scopes_pass_through():
    seen = []

    async def inner(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen.append(scope["type"])

    async def nothing() -> dict[str, Any]:
        raise AssertionError("a lifespan scope has no body to read")

    asyncio.run(BodyLimit(inner, LIMIT)({"type": "lifespan"}, nothing, None))
    assert seen == ["lifespan"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str


def app_with_limit(limit: int | None) -> tuple[Any, list[str]]:
    handled: list[str] = []
    router = APIRouter()

    @router.post("/echo")
    async def echo(body: Strict) -> dict[str, str]:
        handled.append(body.text)
        return {"text": body.text}

    return create_app("BodyLimitTest", router, max_body_bytes=limit), handled


def post(app: Any, raw: bytes) -> tuple[int, Any]:
    messages = [{"type": "http.request", "body": raw, "more_body": False}]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "https",
        "path": "/echo",
        "raw_path": b"/echo",
        "root_path": "",
        "query_string": b"",
        # Validation errors are only told to an authenticated caller.
        "headers": [(b"content-type", b"application/json"), (b"authorization", f"Bearer {TOKEN}".encode())],
        "server": ("test", 443),
        "client": ("127.0.0.1", 1),
    }
    asyncio.run(app(scope, receive, send))
    status, body = status_and_body(sent)
    return status, json.loads(body)


def test_create_app_installs_the_limit_in_front_of_validation():
    app, handled = app_with_limit(LIMIT)
    fits = json.dumps({"text": "hi"}).encode()
    assert post(app, fits) == (200, {"text": "hi"})
    status, body = post(app, json.dumps({"text": "hi", **{f"k{n}": n for n in range(20)}}).encode())
    assert (status, body["error"]["code"]) == (413, "body_too_large")
    status, body = post(app, b"{" * (LIMIT + 1))
    assert (status, body["error"]["code"]) == (413, "body_too_large")
    assert handled == ["hi"]


def test_without_a_limit_the_same_body_is_judged_by_validation():
    app, _ = app_with_limit(None)
    status, body = post(app, json.dumps({"text": "hi", **{f"k{n}": n for n in range(20)}}).encode())
    assert (status, body["error"]["code"]) == (422, "validation_error")
    assert body["error"]["message"].startswith("unknown fields: k0, k1")
    status, body = post(app, b"{" * (LIMIT + 1))
    assert (status, body["error"]["code"]) == (400, "invalid_json")
