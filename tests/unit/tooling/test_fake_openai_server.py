"""The scripted OpenAI server answers as promptly as its script says, no slower."""

from __future__ import annotations

import http.client
import socket

import pytest

from tests.support import fake_openai
from tests.support.fake_openai import ErrorStatus, FakeOpenAI


def test_replies_are_sent_without_waiting_for_nagles_algorithm(monkeypatch: pytest.MonkeyPatch) -> None:
    # Headers and body leave in two writes; with Nagle's algorithm on, every reply would wait about
    # 40 ms for the client's delayed ACK, latency that no scripted Delay asked for.
    seen: list[int] = []
    handle = fake_openai._Handler.handle

    def recording(self: fake_openai._Handler) -> None:
        seen.append(self.connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        handle(self)

    monkeypatch.setattr(fake_openai._Handler, "handle", recording)
    with FakeOpenAI(default=ErrorStatus(503, "busy", "server_error")).running() as fake:
        connection = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=10)
        connection.request("POST", "/v1/chat/completions", body=b"{}")
        assert connection.getresponse().status == 503
        connection.close()
    assert seen
    assert all(seen)
