"""persona_rails.ssm against moto's SSM server, and against a scripted endpoint for SSM's faults."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from typing import Any

import pytest

from persona_rails import ssm
from persona_rails.ssm import SsmError, endpoint, get_parameters
from tests.support.http_handler import POLL_SECONDS, PromptHandler
from tests.support.moto_ssm import AWS_ENVIRONMENT, MotoSsm, moto_ssm_server


@pytest.fixture(scope="module")
def moto() -> Iterator[MotoSsm]:
    with moto_ssm_server() as server:
        yield server


def test_values_are_decrypted_and_unknown_names_reported(moto):
    moto.reset()
    moto.put("/pr/db", "postgresql://u:p@h/db")
    moto.put("/pr/jwt", "jwt-secret")
    values, missing = get_parameters(["/pr/db", "/pr/jwt", "/pr/none"], moto.environment)
    assert values == {"/pr/db": "postgresql://u:p@h/db", "/pr/jwt": "jwt-secret"}
    assert missing == ["/pr/none"]


def test_more_than_ten_names_take_several_calls(moto, monkeypatch):
    moto.reset()
    names = [f"/pr/n{i}" for i in range(23)]
    for name in names:
        moto.put(name, name.upper())
    calls = []
    original = ssm._call_once
    monkeypatch.setattr(
        ssm, "_call_once", lambda url, body, *a: calls.append(json.loads(body)) or original(url, body, *a)
    )
    values, missing = get_parameters(names + names[:3], moto.environment)
    assert values == {name: name.upper() for name in names}
    assert missing == []
    assert [len(call["Names"]) for call in calls] == [10, 10, 3]
    assert all(call["WithDecryption"] is True for call in calls)


class Scripted:
    """An SSM endpoint answering each POST with the next (status, body) of a script."""

    def __init__(self, script: list[tuple[int, dict[str, Any] | None]]) -> None:
        self.script = list(script)
        self.requests: list[dict[str, str]] = []
        outer = self

        class Handler(PromptHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["Content-Length"]))
                outer.requests.append(dict(self.headers.items()))
                status, body = outer.script.pop(0)
                if body is None:  # drop the connection without an answer
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, args=(POLL_SECONDS,), daemon=True).start()
        self.environment = {
            **AWS_ENVIRONMENT,
            "AWS_ENDPOINT_URL_SSM": f"http://127.0.0.1:{self.server.server_port}",
        }

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def scripted(monkeypatch) -> Iterator[type[Scripted]]:
    monkeypatch.setattr(ssm.time, "sleep", lambda seconds: None)
    made: list[Scripted] = []

    def make(script: list[tuple[int, dict[str, Any] | None]]) -> Scripted:
        made.append(Scripted(script))
        return made[-1]

    yield make  # type: ignore[misc]
    for server in made:
        server.close()


OK = (200, {"Parameters": [{"Name": "/pr/db", "Value": "v"}], "InvalidParameters": []})
THROTTLED = (400, {"__type": "ThrottlingException", "message": "Rate exceeded"})


def test_throttling_5xx_and_dropped_connections_are_retried(scripted):
    for fault in (THROTTLED, (503, {"__type": "ServiceUnavailable"}), (0, None)):
        server = scripted([fault, OK])
        assert get_parameters(["/pr/db"], server.environment) == ({"/pr/db": "v"}, [])
        assert len(server.requests) == 2


def test_three_faults_in_a_row_fail_naming_the_error(scripted):
    server = scripted([THROTTLED] * 3)
    with pytest.raises(SsmError, match="HTTP 400 ThrottlingException: Rate exceeded"):
        get_parameters(["/pr/db"], server.environment)
    assert len(server.requests) == 3


def test_access_denied_is_not_retried(scripted):
    denied = {
        "__type": "com.amazon.coral.service#AccessDeniedException",
        "Message": "User: arn:aws:sts::1:assumed-role/r is not authorized to perform: ssm:GetParameters",
    }
    server = scripted([(400, denied)])
    with pytest.raises(
        SsmError, match=r"HTTP 400 AccessDeniedException: User: .* ssm:GetParameters"
    ) as raised:
        get_parameters(["/pr/db"], server.environment)
    assert raised.value.code == "AccessDeniedException"
    assert len(server.requests) == 1


def test_the_request_is_signed_with_the_role_session(scripted):
    server = scripted([OK])
    get_parameters(["/pr/db"], server.environment)
    headers = server.requests[0]
    assert headers["X-Amz-Target"] == "AmazonSSM.GetParameters"
    assert headers["X-Amz-Security-Token"] == AWS_ENVIRONMENT["AWS_SESSION_TOKEN"]
    assert headers["Authorization"].startswith(
        f"AWS4-HMAC-SHA256 Credential={AWS_ENVIRONMENT['AWS_ACCESS_KEY_ID']}/"
    )
    assert "/eu-central-1/ssm/aws4_request" in headers["Authorization"]


@pytest.mark.parametrize(
    ("missing", "message"),
    [
        (("AWS_REGION", "AWS_DEFAULT_REGION"), "no AWS region"),
        (("AWS_ACCESS_KEY_ID",), "no AWS credentials"),
        (("AWS_SECRET_ACCESS_KEY",), "no AWS credentials"),
    ],
)
def test_a_missing_region_or_credential_is_named(missing, message):
    environment = {k: v for k, v in AWS_ENVIRONMENT.items() if k not in missing}
    with pytest.raises(SsmError, match=message):
        get_parameters(["/pr/db"], environment)


def test_an_unreachable_endpoint_fails_after_retries(monkeypatch):
    monkeypatch.setattr(ssm.time, "sleep", lambda seconds: None)
    environment = {**AWS_ENVIRONMENT, "AWS_ENDPOINT_URL_SSM": "http://127.0.0.1:9"}
    with pytest.raises(SsmError, match="could not be reached"):
        get_parameters(["/pr/db"], environment)


@pytest.mark.parametrize(
    ("environment", "expected"),
    [
        ({}, "https://ssm.eu-central-1.amazonaws.com"),
        ({"AWS_ENDPOINT_URL": "http://localhost:4566"}, "http://localhost:4566"),
        ({"AWS_ENDPOINT_URL": "http://a", "AWS_ENDPOINT_URL_SSM": "http://b"}, "http://b"),
    ],
)
def test_the_endpoint_is_regional_unless_overridden_as_in_the_sdks(environment, expected):
    assert endpoint(environment, "eu-central-1") == expected


def test_china_regions_use_their_own_domain():
    assert endpoint({}, "cn-north-1") == "https://ssm.cn-north-1.amazonaws.com.cn"


def test_a_non_http_endpoint_is_refused():
    with pytest.raises(SsmError, match="not an http"):
        get_parameters(["/pr/db"], {**AWS_ENVIRONMENT, "AWS_ENDPOINT_URL_SSM": "ftp://x"})
