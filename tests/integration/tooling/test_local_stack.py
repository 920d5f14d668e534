"""`rails serve`: every template function on one port, in processes of its own, behaving like API Gateway.

A full dialog over real HTTP; CORS, payload and method errors as JSON (an oversize body read and
answered 413, as API Gateway does); 50 simultaneous clients;
idle and truncated clients dropped; long paths shortened in the access log.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import uuid
from urllib.parse import urlsplit

import pytest

from persona_rails_dev.demo import run_demo
from persona_rails_dev.local_env import DEV_USER_ID, mint_token
from persona_rails_dev.server import LAMBDA_EVENT_MAX_BYTES, MAX_BODY_BYTES, _RequestHandler
from persona_rails_dev.template import functions, http_api_cors


def _connect(base_url: str, timeout: float = 30) -> http.client.HTTPConnection:
    address = urlsplit(base_url)
    return http.client.HTTPConnection(address.hostname, address.port, timeout=timeout)


def _request(base_url, method, path, body=None, headers=None):
    connection = _connect(base_url)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def _raw(base_url: str, request: bytes, *, half_close: bool = True, timeout: float = 10) -> bytes:
    """Send bytes as they are (malformed on purpose) and read whatever the server answers."""
    address = urlsplit(base_url)
    with socket.create_connection((address.hostname, address.port), timeout=timeout) as sock:
        sock.sendall(request)
        if half_close:
            sock.shutdown(socket.SHUT_WR)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    return received


def _status_and_json(raw: bytes) -> tuple[int, dict]:
    head, _, body = raw.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


def test_the_demo_dialog_runs_end_to_end_over_http(local_stack, db):
    steps = run_demo(local_stack, print_fn=lambda *_: None)
    assert steps["S1 challenge"]["state"] == "awaiting_reason"
    assert steps["S2-S4 reason"]["ai_verdict"] in {"deny", "delay", "allow"}
    assert steps["appeal"]["appeal_used"] is True
    assert steps["S5-S6 decision"]["state"] == "closed"
    assert steps["resume"]["state"] == "closed"
    # Opened again inside the override's unlock window: no dialog, the app stays open.
    assert steps["unlocked"]["state"] == "unlocked"
    assert steps["unlocked"]["unlocked_until"] == steps["S5-S6 decision"]["unlocked_until"]
    # 微信 (delay_minutes 5 in the seed): a delay accepted, then opened too early.
    assert steps["delay reason"]["ai_verdict"] == "delay"
    assert steps["delay decision"]["retry_after"] == steps["delayed"]["retry_after"]
    assert 0 < steps["delayed"]["seconds_left"] <= 5 * 60
    assert steps["delayed"]["persona"]["key"] == "humor-coach"
    assert steps["delayed"]["message"]
    session_id = steps["resume"]["session_id"]
    with db.as_owner() as tx:
        row = tx.one(
            "SELECT user_id, state, user_decision FROM public.intercept_sessions WHERE id = CAST(:s AS uuid)",
            s=session_id,
        )
    assert (str(row["user_id"]), row["state"], row["user_decision"]) == (DEV_USER_ID, "closed", "override")


def test_an_unknown_route_is_a_404_in_the_json_error_shape(local_stack):
    status, _, body = _request(local_stack, "GET", "/nope")
    assert status == 404
    assert json.loads(body)["error"]["code"] == "route_not_found"


@pytest.mark.parametrize("method", ["DELETE", "BREW"])
def test_an_unknown_method_is_a_json_405_naming_the_allowed_ones(local_stack, method):
    status, headers, body = _request(local_stack, method, f"/intercept-session/{uuid.uuid4()}")
    assert status == 405
    assert json.loads(body)["error"]["code"] == "method_not_allowed"
    assert headers["allow"] == "GET"


def test_a_cors_preflight_is_answered_as_the_templates_cors_configuration_says(local_stack):
    cors = http_api_cors()
    assert cors is not None
    status, headers, body = _request(
        local_stack,
        "OPTIONS",
        "/intercept-session",
        headers={
            "Origin": "https://app.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,content-type",
        },
    )
    assert (status, body) == (204, b"")
    assert headers["access-control-allow-origin"] == "*"
    assert headers["access-control-allow-methods"].split(",") == list(cors.allow_methods)
    assert set(headers["access-control-allow-headers"].split(",")) == set(cors.allow_headers)
    # What the routes need from a browser: the bearer token, JSON bodies, and idempotent retries.
    assert {"authorization", "content-type", "idempotency-key"} <= set(cors.allow_headers)


def test_a_cross_origin_response_carries_the_allow_origin_header(local_stack):
    status, headers, _ = _request(local_stack, "GET", "/nope", headers={"Origin": "https://app.example"})
    assert status == 404
    assert headers["access-control-allow-origin"] == "*"
    status, headers, _ = _request(local_stack, "GET", "/nope")
    assert "access-control-allow-origin" not in headers


@pytest.mark.parametrize(
    ("content_length", "status", "code"),
    [
        ("abc", 400, "invalid_content_length"),
        ("-5", 400, "invalid_content_length"),
        (str(MAX_BODY_BYTES + 1), 413, "payload_too_large"),
    ],
)
def test_a_bad_content_length_is_a_clear_4xx(local_stack, content_length, status, code):
    raw = _raw(
        local_stack,
        f"POST /intercept-session HTTP/1.1\r\nHost: x\r\nContent-Length: {content_length}\r\n\r\n{{}}".encode(),
    )
    answered, body = _status_and_json(raw)
    assert (answered, body["error"]["code"]) == (status, code)


def _json_body(size: int) -> bytes:
    return b'{"transcript": "' + b"a" * (size - 19) + b'"}'


def test_a_body_over_10_mb_sent_in_full_is_answered_413_not_reset(local_stack):
    # A client that sends its whole body before reading (as http.client does) must see the 413,
    # as behind API Gateway, not a broken pipe.
    status, _, body = _request(local_stack, "POST", "/sps/validate", body=_json_body(MAX_BODY_BYTES + 1))
    assert (status, json.loads(body)["error"]["code"]) == (413, "payload_too_large")


def test_a_body_too_large_for_a_lambda_event_is_413_before_the_function_runs(local_stack):
    # Under API Gateway's 10 MB but over Lambda's 6 MiB event: refused before the function's own
    # checks (here the missing token would be a 401).
    status, _, body = _request(
        local_stack, "POST", "/sps/validate", body=_json_body(LAMBDA_EVENT_MAX_BYTES + 1)
    )
    assert (status, json.loads(body)["error"]["code"]) == (413, "payload_too_large")
    status, _, body = _request(local_stack, "POST", "/sps/validate", body=_json_body(2 * 1024 * 1024))
    assert (status, json.loads(body)["error"]["code"]) == (401, "unauthorized")


@pytest.mark.parametrize("length", [b"\xb2", b"1\xb9"], ids=["superscript-two", "one-superscript-one"])
def test_a_content_length_of_non_ascii_digits_is_a_400(local_stack, length):
    # Headers are read as Latin-1, so these arrive as "²" and "1¹": digits to str.isdigit().
    raw = _raw(
        local_stack,
        b"POST /intercept-session HTTP/1.1\r\nHost: x\r\nContent-Length: " + length + b"\r\n\r\n{}",
    )
    status, body = _status_and_json(raw)
    assert (status, body["error"]["code"]) == (400, "invalid_content_length")


def test_a_malformed_request_after_a_kept_alive_one_is_logged_without_the_old_path(local_stack, capfd):
    raw = _raw(local_stack, b"GET /first-request-path HTTP/1.1\r\nHost: x\r\n\r\nNONSENSE\r\n\r\n")
    assert raw.count(b"HTTP/1.") == 2
    lines = [line for line in capfd.readouterr().err.splitlines() if line.startswith("[local-api]")]
    assert lines[-2:] == ["[local-api] GET /first-request-path -> 404", "[local-api] -  -> 400"]


def test_a_body_shorter_than_its_content_length_is_a_400_not_a_hang(local_stack):
    raw = _raw(
        local_stack, b'POST /intercept-session HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"a": 1}'
    )
    status, body = _status_and_json(raw)
    assert status == 400
    assert body["error"]["code"] == "incomplete_body"
    assert "100" in body["error"]["message"]


def test_a_chunked_body_is_refused_with_411(local_stack):
    raw = _raw(
        local_stack,
        b"POST /intercept-session HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
    )
    status, body = _status_and_json(raw)
    assert (status, body["error"]["code"]) == (411, "length_required")


def test_a_malformed_request_line_gets_the_json_error_shape(local_stack):
    status, body = _status_and_json(_raw(local_stack, b"NONSENSE\r\n\r\n"))
    assert status == 400
    assert body["error"]["code"] == "bad_request"


def test_an_idle_client_is_dropped_after_the_socket_timeout(local_stack):
    # The request never completes: the server must hang up instead of holding a thread forever.
    raw = _raw(local_stack, b"GET /intercept-session/x HTTP/1.1\r\nHost: x\r\n", half_close=False, timeout=10)
    assert raw == b""


def test_fifty_simultaneous_connections_are_all_answered(local_stack):
    token = mint_token(DEV_USER_ID)
    start = threading.Barrier(50)
    statuses: list[int] = []
    failures: list[BaseException] = []

    def client() -> None:
        try:
            connection = _connect(local_stack)
            connection.connect()
            start.wait(timeout=30)
            connection.request(
                "GET", f"/intercept-session/{uuid.uuid4()}", headers={"authorization": f"Bearer {token}"}
            )
            statuses.append(connection.getresponse().status)
            connection.close()
        except BaseException as exc:  # noqa: BLE001 - collected and reported below
            failures.append(exc)

    threads = [threading.Thread(target=client) for _ in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert failures == []
    # Unknown sessions: every one of the fifty got the function's own 404, none was refused.
    assert statuses == [404] * 50


def test_the_access_log_shortens_long_paths_and_never_prints_queries(local_stack, capfd):
    long_path = "/intercept-session/" + "a" * 5000
    _request(local_stack, "GET", long_path + "?user_id=secret-looking")
    err = capfd.readouterr().err
    (line,) = [entry for entry in err.splitlines() if "/intercept-session/aaaa" in entry]
    assert len(line) < 200
    assert "…" in line
    assert "secret-looking" not in line


def test_each_functions_openapi_document_is_served(local_stack):
    status, _, body = _request(local_stack, "GET", "/openapi")
    assert status == 200
    served = sorted(f"/openapi/{f.kebab_name}.json" for f in functions().values() if f.routes)
    assert "/openapi/intercept-session.json" in served
    assert json.loads(body) == {"documents": served}
    status, _, body = _request(local_stack, "GET", "/openapi/intercept-session.json")
    assert status == 200
    document = json.loads(body)
    assert document["info"]["title"] == "InterceptSessionFunction"
    assert "/intercept-session/{session_id}/reason" in document["paths"]


def test_replies_are_sent_without_waiting_for_nagles_algorithm(local_stack, monkeypatch):
    # Headers and body leave in two writes; with Nagle's algorithm on, the body would wait for the
    # client's delayed ACK (about 40 ms a reply, which made the contract pass 3x slower).
    seen: list[int] = []
    handle = _RequestHandler.handle

    def recording(self):  # type: ignore[no-untyped-def]
        seen.append(self.connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        handle(self)

    monkeypatch.setattr(_RequestHandler, "handle", recording)
    status, _ = _status_and_json(_raw(local_stack, b"GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n"))
    assert status == 404
    assert seen
    assert all(seen)
