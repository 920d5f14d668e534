"""docs/openapi/<function>.json: one per HTTP function, generated from its app, never stale."""

from __future__ import annotations

import json

import pytest

from persona_rails_dev import openapi_docs
from persona_rails_dev.template import functions

HTTP_FUNCTIONS = [function for function in functions().values() if function.routes]


def test_every_http_function_has_a_current_document():
    stale = openapi_docs.stale()
    assert stale == [], f"stale or missing OpenAPI documents {stale}: run `rails openapi` and commit them"


@pytest.mark.parametrize("function", HTTP_FUNCTIONS, ids=lambda f: f.logical_id)
def test_the_document_declares_every_route_the_bearer_scheme_and_the_error_shape(function):
    document = json.loads(openapi_docs.document_path(function).read_text(encoding="utf-8"))
    declared = {
        (method.upper(), path) for path, operations in document["paths"].items() for method in operations
    }
    assert declared == {(route.method, route.path) for route in function.routes}
    assert document["components"]["securitySchemes"]["supabaseJwt"]["scheme"] == "bearer"
    assert document["security"] == [{"supabaseJwt": []}]
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            responses = operation["responses"]
            where = f"{method.upper()} {path}"
            # Every route authenticates, and any route can meet a bug or a dependency that is down.
            assert {"401", "500", "503"} <= set(responses), where
            for status, response in responses.items():
                if int(status) >= 400:
                    schema = response["content"]["application/json"]["schema"]
                    assert schema == {"$ref": "#/components/schemas/ErrorBody"}, f"{where} {status}"
            assert not any(
                p["in"] == "header" and p["name"].lower() == "authorization"
                for p in operation.get("parameters", [])
            )
