"""The intimacy checker's contract (spec §3–§6, §10): payload, parsing, modes and fail_open.

HTTP mode runs against a real server on 127.0.0.1; library mode against a plain function.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from typing import Any

import pytest

from persona_rails.errors import Invalid
from persona_rails.moderation.checker import (
    IntimacyChecker,
    IntimacyCheckResult,
    Mode,
    ModerationClientSettings,
    build_payload,
    parse_response,
)
from tests.support.http_handler import POLL_SECONDS, PromptHandler

TEXT = "亲爱的，我好想你"
PERSONA = "冷静克制的教练"


def response(final: Any = "pass", score: Any = 0.2, reason: Any = "ok") -> dict[str, Any]:
    return {
        "decision": {"final": final},
        "results": {"intimacy": {"label": "x", "score": score, "reason": reason}},
    }


REJECTED = response("reject", 0.85, "intimacy score 0.85 >= 0.8 (reject)")


def settings(**overrides: Any) -> ModerationClientSettings:
    return ModerationClientSettings.model_validate(overrides)


class FakeLibrary:
    """The in-process service: records what it is asked and answers (or raises) as told."""

    def __init__(self, answer: Any = None, error: Exception | None = None) -> None:
        self.answer = answer if answer is not None else response()
        self.error = error
        self.payloads: list[dict[str, Any]] = []

    def __call__(self, payload: dict[str, Any]) -> Any:
        self.payloads.append(payload)
        if self.error is not None:
            raise self.error
        return self.answer


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class ModerationServer:
    url: str
    status: int = 200
    body: Any = field(default_factory=response)
    delay: float = 0.0
    requests: list[Recorded] = field(default_factory=list)


@pytest.fixture
def server() -> Iterator[ModerationServer]:
    state = ModerationServer(url="")

    class Handler(PromptHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length))
            state.requests.append(Recorded(self.path, dict(self.headers), body))
            time.sleep(state.delay)
            data = json.dumps(state.body).encode()
            try:
                self.send_response(state.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:  # the client gave up (the timeout test)
                pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, args=(POLL_SECONDS,), daemon=True)
    thread.start()
    yield state
    httpd.shutdown()
    httpd.server_close()


def http_checker(server: ModerationServer, **overrides: Any) -> IntimacyChecker:
    return IntimacyChecker(settings(MODERATION_BASE_URL=server.url, **overrides), library=None)


# §3.1


def test_payload_has_the_contract_shape():
    assert build_payload(TEXT, 3, PERSONA, "stage_aware") == {
        "text": TEXT,
        "dimensions": ["intimacy"],
        "context": {
            "profile": {"persona": PERSONA, "intimacy_stage": 3},
            "profile_version": "v1.0",
        },
        "policy": "stage_aware",
    }


# §4, §10


@pytest.mark.parametrize("final", ["pass", "PASS", " Pass ", "pass\n"])
def test_only_pass_passes_in_any_case_and_spacing(final):
    assert parse_response(response(final, 0.2, "ignored")) == IntimacyCheckResult(True, 0.2, None)


@pytest.mark.parametrize("final", ["warn", "rewrite", "reject", "REJECT", "passed", ""])
def test_every_other_decision_fails_with_the_service_reason(final):
    assert parse_response(response(final, 0.5, "why")) == IntimacyCheckResult(False, 0.5, "why")


@pytest.mark.parametrize("reason", [None, "", "  ", 42])
def test_a_missing_reason_falls_back_to_the_decision(reason):
    result = parse_response(response(" Warn ", 0.45, reason))
    assert result == IntimacyCheckResult(False, 0.45, "moderation_decision=warn")


def test_a_missing_reason_key_falls_back_to_the_decision():
    payload = {"decision": {"final": "rewrite"}, "results": {"intimacy": {"score": 0.7}}}
    assert parse_response(payload) == IntimacyCheckResult(False, 0.7, "moderation_decision=rewrite")


@pytest.mark.parametrize(
    "payload",
    [
        {"results": {"intimacy": {"score": 0.1}}},
        {"decision": {}, "results": {"intimacy": {"score": 0.1}}},
        {"decision": None, "results": {"intimacy": {"score": 0.1}}},
        {"decision": {"final": None}, "results": {"intimacy": {"score": 0.1}}},
    ],
)
def test_a_missing_decision_does_not_pass(payload):
    assert parse_response(payload) == IntimacyCheckResult(False, 0.1, "moderation_decision=")


@pytest.mark.parametrize(
    ("score", "expected"),
    [(0.35, 0.35), ("0.6", 0.6), (1, 1.0), (None, 0.0), ("abc", 0.0), ([0.5], 0.0), ("nan", 0.0)],
)
def test_score_is_a_float_or_zero(score, expected):
    assert parse_response(response("pass", score)).score == expected


@pytest.mark.parametrize("payload", [{}, {"decision": {"final": "pass"}}, {"results": "oops"}])
def test_missing_results_give_a_zero_score(payload):
    assert parse_response(payload).score == 0.0


@pytest.mark.parametrize("payload", [[], "pass", None])
def test_a_response_that_is_not_an_object_is_a_contract_breach(payload):
    with pytest.raises(TypeError):
        parse_response(payload)


# §2 through check(): the stage the service receives


@pytest.mark.parametrize(
    ("level", "stage"),
    [(0, 1), (20, 1), (21, 2), (40, 2), (41, 3), (60, 3), (61, 4), (80, 4), (81, 5), (100, 5)],
)
def test_level_maps_to_the_stage_the_service_receives(level, stage):
    library = FakeLibrary()
    IntimacyChecker(settings(), library=library).check(TEXT, level, PERSONA)
    assert library.payloads == [build_payload(TEXT, stage, PERSONA, "default")]


@pytest.mark.parametrize("level", [-1, 101, 50.5, True, "50", None])
def test_a_bad_level_is_the_callers_error_whatever_fail_open_says(level):
    library = FakeLibrary()
    checker = IntimacyChecker(settings(MODERATION_FAIL_OPEN=True), library=library)
    with pytest.raises(Invalid) as raised:
        checker.check(TEXT, level, PERSONA)
    assert raised.value.field == "intimacy_level"
    assert library.payloads == []


@pytest.mark.parametrize(
    ("reply", "persona", "field_name"), [(None, PERSONA, "reply_text"), (TEXT, 1, "persona_prompt")]
)
def test_non_text_is_the_callers_error(reply, persona, field_name):
    with pytest.raises(Invalid) as raised:
        IntimacyChecker(settings(), library=FakeLibrary()).check(reply, 50, persona)
    assert raised.value.field == field_name


# §6


MODERATION_VARS = (
    "MODERATION_BASE_URL",
    "MODERATION_TIMEOUT_SECONDS",
    "MODERATION_POLICY",
    "MODERATION_USE_LIBRARY",
    "MODERATION_ALLOW_HTTP_FALLBACK",
    "MODERATION_FAIL_OPEN",
)


def test_settings_defaults(monkeypatch):
    for name in MODERATION_VARS:
        monkeypatch.delenv(name, raising=False)
    assert ModerationClientSettings.from_env().model_dump() == {
        "base_url": "http://localhost:8000",
        "timeout_seconds": 5.0,
        "policy": "default",
        "use_library": True,
        "allow_http_fallback": True,
        "fail_open": True,
    }


def test_settings_read_the_moderation_variables(monkeypatch):
    monkeypatch.setenv("MODERATION_BASE_URL", "http://moderation.internal:9000")
    monkeypatch.setenv("MODERATION_TIMEOUT_SECONDS", "0.75")
    monkeypatch.setenv("MODERATION_POLICY", "stage_aware")
    monkeypatch.setenv("MODERATION_USE_LIBRARY", "false")
    monkeypatch.setenv("MODERATION_ALLOW_HTTP_FALLBACK", "0")
    monkeypatch.setenv("MODERATION_FAIL_OPEN", "False")
    assert ModerationClientSettings.from_env().model_dump() == {
        "base_url": "http://moderation.internal:9000",
        "timeout_seconds": 0.75,
        "policy": "stage_aware",
        "use_library": False,
        "allow_http_fallback": False,
        "fail_open": False,
    }


def test_an_empty_variable_means_the_default(monkeypatch):
    monkeypatch.setenv("MODERATION_FAIL_OPEN", "")
    monkeypatch.setenv("MODERATION_POLICY", "")
    loaded = ModerationClientSettings.from_env()
    assert (loaded.fail_open, loaded.policy) == (True, "default")


def test_the_checker_reads_the_environment_when_given_no_settings(monkeypatch):
    monkeypatch.setenv("MODERATION_POLICY", "stage_aware")
    library = FakeLibrary()
    IntimacyChecker(library=library).check(TEXT, 10, PERSONA)
    assert library.payloads[0]["policy"] == "stage_aware"


# §5: modes


def test_library_mode_answers_without_http(server):
    library = FakeLibrary(REJECTED)
    checker = IntimacyChecker(settings(MODERATION_BASE_URL=server.url), library=library)
    result = checker.check(TEXT, 90, PERSONA)
    assert result == IntimacyCheckResult(False, 0.85, "intimacy score 0.85 >= 0.8 (reject)")
    assert checker.last_mode is Mode.LIBRARY
    assert len(library.payloads) == 1
    assert server.requests == []


def test_http_fallback_when_there_is_no_library(server):
    server.body = REJECTED
    checker = IntimacyChecker(
        settings(MODERATION_BASE_URL=server.url + "/", MODERATION_POLICY="stage_aware"),
        library=None,
        token=lambda: "service-token",
    )
    result = checker.check(TEXT, 30, PERSONA)
    assert result == IntimacyCheckResult(False, 0.85, "intimacy score 0.85 >= 0.8 (reject)")
    assert checker.last_mode is Mode.HTTP
    [request] = server.requests
    assert request.path == "/moderation/check"
    assert request.body == build_payload(TEXT, 2, PERSONA, "stage_aware")
    assert request.headers["Authorization"] == "Bearer service-token"
    assert request.headers["Content-Type"] == "application/json"


def test_http_fallback_when_the_library_fails_to_import(server):
    library = FakeLibrary(error=ModuleNotFoundError("moderation_service"))
    checker = IntimacyChecker(settings(MODERATION_BASE_URL=server.url), library=library)
    assert checker.check(TEXT, 50, PERSONA) == IntimacyCheckResult(True, 0.2, None)
    assert checker.last_mode is Mode.HTTP
    assert len(library.payloads) == 1
    assert len(server.requests) == 1
    assert "Authorization" not in server.requests[0].headers


def test_use_library_false_goes_straight_to_http(server):
    library = FakeLibrary()
    checker = IntimacyChecker(
        settings(
            MODERATION_BASE_URL=server.url, MODERATION_USE_LIBRARY=False, MODERATION_ALLOW_HTTP_FALLBACK=False
        ),
        library=library,
    )
    assert checker.check(TEXT, 50, PERSONA).passed is True
    assert checker.last_mode is Mode.HTTP
    assert library.payloads == []
    assert len(server.requests) == 1


def test_library_and_http_agree_on_the_same_response(server):
    for answer in (response(" PASS ", "0.3", "fine"), REJECTED, {"decision": {"final": "warn"}}):
        server.body = answer
        via_library = IntimacyChecker(settings(), library=FakeLibrary(answer)).check(TEXT, 70, PERSONA)
        via_http = http_checker(server).check(TEXT, 70, PERSONA)
        assert via_library == via_http


# §6.1: fail_open


@pytest.mark.parametrize(
    ("fail_open", "expected"),
    [
        (
            True,
            IntimacyCheckResult(True, 0.0, "moderation_service_unavailable: ModerationLibraryUnavailable"),
        ),
        (False, IntimacyCheckResult(False, 0.0, "moderation_service_error: ModerationLibraryUnavailable")),
    ],
)
def test_no_library_and_no_fallback_degrades(server, fail_open, expected):
    checker = IntimacyChecker(
        settings(
            MODERATION_BASE_URL=server.url,
            MODERATION_ALLOW_HTTP_FALLBACK=False,
            MODERATION_FAIL_OPEN=fail_open,
        ),
        library=None,
    )
    assert checker.check(TEXT, 50, PERSONA) == expected
    assert checker.last_mode is None
    assert server.requests == []


def test_a_library_import_error_without_fallback_names_the_import_error(server):
    checker = IntimacyChecker(
        settings(MODERATION_BASE_URL=server.url, MODERATION_ALLOW_HTTP_FALLBACK=False),
        library=FakeLibrary(error=ModuleNotFoundError("moderation_service")),
    )
    assert checker.check(TEXT, 50, PERSONA).reason == "moderation_service_unavailable: ModuleNotFoundError"
    assert server.requests == []


@pytest.mark.parametrize(
    ("fail_open", "expected"),
    [
        (True, IntimacyCheckResult(True, 0.0, "moderation_service_unavailable: RuntimeError")),
        (False, IntimacyCheckResult(False, 0.0, "moderation_service_error: RuntimeError")),
    ],
)
def test_a_library_error_degrades_without_trying_http(server, fail_open, expected, logs):
    library = FakeLibrary(error=RuntimeError(f"boom on {TEXT}"))
    checker = IntimacyChecker(
        settings(MODERATION_BASE_URL=server.url, MODERATION_FAIL_OPEN=fail_open), library=library
    )
    assert checker.check(TEXT, 50, PERSONA) == expected
    assert server.requests == []
    [line] = [json.loads(line) for line in logs.getvalue().splitlines()]
    assert (line["level"], line["mode"], line["exception_type"], line["fail_open"]) == (
        "WARNING",
        "library",
        "RuntimeError",
        fail_open,
    )
    assert TEXT not in logs.getvalue()
    assert PERSONA not in logs.getvalue()


@pytest.mark.parametrize(
    ("fail_open", "expected"),
    [
        (True, IntimacyCheckResult(True, 0.0, "moderation_service_unavailable: HTTPStatusError")),
        (False, IntimacyCheckResult(False, 0.0, "moderation_service_error: HTTPStatusError")),
    ],
)
def test_an_http_500_degrades(server, fail_open, expected):
    server.status = 500
    server.body = response("pass")  # a 500 is a failure whatever its body says
    checker = http_checker(server, MODERATION_FAIL_OPEN=fail_open)
    assert checker.check(TEXT, 50, PERSONA) == expected
    assert checker.last_mode is None
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    ("fail_open", "expected"),
    [
        (True, IntimacyCheckResult(True, 0.0, "moderation_service_unavailable: ReadTimeout")),
        (False, IntimacyCheckResult(False, 0.0, "moderation_service_error: ReadTimeout")),
    ],
)
def test_an_http_timeout_degrades(server, fail_open, expected, logs):
    server.delay = 0.3
    checker = http_checker(server, MODERATION_TIMEOUT_SECONDS=0.05, MODERATION_FAIL_OPEN=fail_open)
    started = time.perf_counter()
    assert checker.check(TEXT, 50, PERSONA) == expected
    assert time.perf_counter() - started < 0.25
    assert json.loads(logs.getvalue().splitlines()[-1])["mode"] == "http"


def test_an_http_body_that_is_not_an_object_degrades(server):
    server.body = ["pass"]
    assert http_checker(server).check(TEXT, 50, PERSONA) == IntimacyCheckResult(
        True, 0.0, "moderation_service_unavailable: TypeError"
    )


def test_an_unreachable_service_degrades():
    # A port that was free a moment ago: nothing listens there, so the connection is refused.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    checker = IntimacyChecker(
        settings(MODERATION_BASE_URL=f"http://127.0.0.1:{port}", MODERATION_FAIL_OPEN=False)
    )
    assert checker.check(TEXT, 50, PERSONA) == IntimacyCheckResult(
        False, 0.0, "moderation_service_error: ConnectError"
    )


def test_a_failing_token_source_degrades(server):
    def token() -> str:
        raise KeyError("secret")

    checker = IntimacyChecker(settings(MODERATION_BASE_URL=server.url), token=token)
    assert checker.check(TEXT, 50, PERSONA).reason == "moderation_service_unavailable: KeyError"
    assert server.requests == []
