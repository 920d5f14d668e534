"""Domain errors become HTTP in one place: `persona_rails.http.errors`, installed by `create_app`.

A tiny app built with the layer's own `create_app` and `lambda_handler_for` raises each domain
error from a route (as a service would, with no HTTP in sight) and is invoked with a real API
Gateway v2 event, exactly like a function's handler.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from typing import Any

import pytest
from fastapi import APIRouter

from persona_rails import errors
from persona_rails.errors import Conflict, DomainError, Forbidden, Invalid, NotFound, Unavailable
from persona_rails.http.app import create_app, lambda_handler_for
from persona_rails.http.errors import STATUS_OF_KIND, status_of
from persona_rails_dev.apigw import http_event
from persona_rails_dev.lambda_runtime import LambdaContext
from persona_rails_dev.template import Route

RAISED: dict[str, DomainError] = {
    "not-found": NotFound("session_not_found", "no session 42", field="session_id"),
    "conflict": Conflict("appeal_limit_reached", "one appeal per session", state="awaiting_decision"),
    "invalid": Invalid("app_mismatch", "app_identifier is not the rule's app", field="app_identifier"),
    "forbidden": Forbidden("user_mismatch", "user_id does not match the token's subject"),
    "unavailable": Unavailable("llm_not_configured", "no model is configured"),
}

EXPECTED: dict[str, tuple[int, dict[str, Any]]] = {
    "not-found": (
        404,
        {"code": "session_not_found", "message": "no session 42", "field": "session_id"},
    ),
    "conflict": (
        409,
        {"code": "appeal_limit_reached", "message": "one appeal per session", "state": "awaiting_decision"},
    ),
    "invalid": (
        422,
        {
            "code": "app_mismatch",
            "message": "app_identifier is not the rule's app",
            "field": "app_identifier",
        },
    ),
    "forbidden": (403, {"code": "user_mismatch", "message": "user_id does not match the token's subject"}),
    "unavailable": (503, {"code": "llm_not_configured", "message": "no model is configured"}),
}

ASYNC_ROUTE = Route("GET", "/async/{name}")
SYNC_ROUTE = Route("GET", "/sync/{name}")


def _service(name: str) -> dict[str, str]:
    """Stands in for a use case: it knows nothing about HTTP and raises domain errors."""
    if name == "ok":
        return {"ok": name}
    raise RAISED[name]


def _router() -> APIRouter:
    router = APIRouter()

    @router.get("/async/{name}")
    async def async_route(name: str) -> dict[str, str]:
        return _service(name)

    @router.get("/sync/{name}")
    def sync_route(name: str) -> dict[str, str]:  # run on FastAPI's thread pool
        return _service(name)

    return router


@pytest.fixture(scope="module")
def handler() -> Any:
    return lambda_handler_for(create_app("ErrorsTestFunction", _router()))


def call(handler: Any, route: Route, name: str) -> tuple[int, dict[str, str], Any]:
    path = route.path.replace("{name}", name)
    event = http_event(route, path, {"name": name}, method=route.method, headers={"user-agent": "pytest"})
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        result = handler(event, LambdaContext("ErrorsTestFunction"))
    finally:
        asyncio.set_event_loop(None)
        loop.close()
    return int(result["statusCode"]), dict(result.get("headers") or {}), json.loads(result["body"])


@pytest.mark.parametrize("route", [ASYNC_ROUTE, SYNC_ROUTE], ids=["async", "sync"])
@pytest.mark.parametrize("name", sorted(RAISED))
def test_each_domain_error_leaves_with_its_status_and_the_json_shape(handler: Any, route: Route, name: str):
    status, headers, body = call(handler, route, name)

    expected_status, expected_error = EXPECTED[name]
    assert status == expected_status
    assert headers["content-type"] == "application/json"
    # Exactly the documented shape: `field` and `state` appear only when the error names them.
    assert body == {"error": expected_error}


@pytest.mark.filterwarnings("ignore:No application metrics to publish")
def test_a_route_that_raises_nothing_answers_normally(handler: Any):
    status, _, body = call(handler, ASYNC_ROUTE, "ok")
    assert (status, body) == (200, {"ok": "ok"})


def test_status_of_each_kind():
    assert {name: status_of(error) for name, error in RAISED.items()} == {
        name: status for name, (status, _) in EXPECTED.items()
    }


def test_every_domain_error_kind_has_a_status():
    """A new kind added to persona_rails.errors without a status would leave as a bare 400."""
    kinds = {
        cls.kind
        for _, cls in inspect.getmembers(errors, inspect.isclass)
        if issubclass(cls, DomainError) and cls is not DomainError
    }
    assert kinds == {"not_found", "conflict", "gone", "invalid", "forbidden", "unavailable"}
    assert kinds <= set(STATUS_OF_KIND)


def test_the_errors_carry_what_the_edge_needs():
    conflict = Conflict("wrong_state", "not now", state="closed")
    invalid = Invalid("bad", "no", field="reason_text")
    assert (conflict.code, conflict.message, conflict.state, conflict.field) == (
        "wrong_state",
        "not now",
        "closed",
        None,
    )
    assert (invalid.field, invalid.state, str(invalid)) == ("reason_text", None, "no")
    # Invalid must name its field: the client is told which one to fix.
    with pytest.raises(TypeError):
        Invalid("bad", "no")  # type: ignore[call-arg]
