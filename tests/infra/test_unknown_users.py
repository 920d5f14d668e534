"""A user missing from auth.users is 404 user_not_found on every route of every function.

A token outlives its account (a deleted user's token is valid until it expires), and a
service-role token names any `user_id`. Each route of each function in template.yaml is sent its
events/ fixture as such a caller: a user token for an unknown id, and a service-role token
naming one. A new route or function is covered the day it is added, with no edit here; a route
without a fixture fails the test."""

from __future__ import annotations

import json
import uuid
from typing import Any
from urllib.parse import urlencode

import pytest

from persona_rails_dev.event_fixtures import EVENTS_DIR, load_event
from persona_rails_dev.template import REPO_ROOT, functions
from tests.support.fixtures import TEST_JWT_SECRET
from tests.support.users import make_token, service_token

pytestmark = [
    pytest.mark.integration,
    pytest.mark.filterwarnings("ignore:No application metrics:UserWarning"),
]

ROUTES = sorted(route.route_key for function in functions().values() for route in function.routes)


def _body(event: dict[str, Any]) -> Any:
    return json.loads(event["body"]) if event.get("body") else None


def _operation(route_key: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The route's operation in its function's OpenAPI document, and the document."""
    method, path = route_key.split(" ", 1)
    for document_file in sorted((REPO_ROOT / "docs" / "openapi").glob("*.json")):
        document = json.loads(document_file.read_text(encoding="utf-8"))
        operation = document["paths"].get(path, {}).get(method.lower())
        if operation is not None:
            return document, operation
    raise AssertionError(f"{route_key} is in no OpenAPI document: run `rails openapi`")


def _body_names_user(route_key: str) -> bool:
    """Whether the route's request body has a `user_id` (else a service token names it in the query)."""
    document, operation = _operation(route_key)
    schema = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
    if "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return "user_id" in schema.get("properties", {})


def _query_names_user(route_key: str) -> bool:
    _, operation = _operation(route_key)
    return any(p["in"] == "query" and p["name"] == "user_id" for p in operation.get("parameters", []))


def _fixture_for(route_key: str) -> dict[str, Any]:
    """The route's fixture, one whose body names a `user_id` (a backend's) if there is one."""
    found = [
        e for e in map(load_event, sorted(EVENTS_DIR.glob("*/*.json"))) if e.get("routeKey") == route_key
    ]
    assert found, f"no events/ fixture for {route_key}: add one (it is also a sam local invoke input)"
    return next((e for e in found if "user_id" in (_body(e) or {})), found[0])


def _as_caller(event: dict[str, Any], token: str, ghost: str, *, service: bool) -> dict[str, Any]:
    """The fixture sent with `token`, naming `ghost` where it names a user: in the body where the
    fixture does (a start), else, for a service token, as `?user_id=`."""
    headers = {**event["headers"], "authorization": f"Bearer {token}"}
    # A replayed Idempotency-Key would be the fixture user's; the ghost has none.
    headers.pop("idempotency-key", None)
    event = {**event, "headers": headers}
    body = _body(event)
    if isinstance(body, dict) and (service or "user_id" in body) and _body_names_user(event["routeKey"]):
        event["body"] = json.dumps({**body, "user_id": ghost})
    elif service and _query_names_user(event["routeKey"]):
        query = dict(event.get("queryStringParameters") or {}, user_id=ghost)
        event["queryStringParameters"] = query
        event["rawQueryString"] = urlencode(query)
    return event


@pytest.mark.parametrize("route_key", ROUTES)
def test_a_user_token_for_an_unknown_user_is_404_user_not_found(api, route_key):
    ghost = str(uuid.uuid4())
    token = make_token(ghost, TEST_JWT_SECRET)
    reply = api.invoke_event(_as_caller(_fixture_for(route_key), token, ghost, service=False))
    assert (reply.status, reply.error["code"], reply.error["field"]) == (404, "user_not_found", "user_id"), (
        reply.body
    )


@pytest.mark.parametrize("route_key", ROUTES)
def test_a_service_token_naming_an_unknown_user_is_404_user_not_found(api, route_key):
    ghost = str(uuid.uuid4())
    token = service_token(TEST_JWT_SECRET)
    reply = api.invoke_event(_as_caller(_fixture_for(route_key), token, ghost, service=True))
    if reply.status == 403 and reply.error["code"] == "service_caller_not_allowed":
        return  # a route for users' own tokens only: the service token goes no further
    if not (_body_names_user(route_key) or _query_names_user(route_key)):
        # A route a backend calls for no user (the SPS catalog): nobody to look up.
        assert reply.status == 200, reply.body
        return
    assert (reply.status, reply.error["code"], reply.error["field"]) == (404, "user_not_found", "user_id"), (
        reply.body
    )


@pytest.mark.parametrize("route_key", ROUTES)
def test_every_route_documents_user_not_found(route_key):
    _, operation = _operation(route_key)
    assert "404" in operation["responses"], f"{route_key} does not document 404 user_not_found"
