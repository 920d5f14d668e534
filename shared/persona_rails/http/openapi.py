"""The OpenAPI document of a function, telling the truth about what its routes answer.

Routes declare the error statuses they really return with `responses=errors(...)`; every error
has the one JSON shape `{"error": {...}}`; the bearer JWT (a user's Supabase token, or a
service-role token where the route allows it) is the security scheme, not a header parameter.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel, Field

SECURITY_SCHEME = "supabaseJwt"
_DESCRIPTIONS = {
    400: "The body is not JSON, or is missing",
    401: "Missing, malformed, badly signed or expired token",
    403: "The token may not act for this user, or this kind of caller may not use this route",
    404: "Unknown, or another user's (they look the same); `user_not_found` when the token's user, or the "
    "user a service-role token names, does not exist",
    409: "The thing's current state does not allow this; `state` names it",
    410: "The thing has expired for good; `state` says so",
    413: "The body is too large",
    422: "A field is invalid; `field` names it",
    500: "An unexpected failure; quote `error_id` when reporting it",
    503: "A dependency is not configured or not reachable",
}
# Any route can meet these through the layer: a bad token, a user who does not exist
# (persona_rails.db checks at each transaction), a bug, the database or the LLM endpoint down.
_EVERY_ROUTE = (401, 404, 500, 503)
# And any route that takes a body: not JSON, over the function's limit, or invalid.
_WITH_BODY = (400, 413, 422)


class FieldProblem(BaseModel):
    field: str
    message: str


class ErrorDetail(BaseModel):
    code: str = Field(description="Machine-readable, e.g. session_not_found, appeal_limit_reached")
    message: str
    field: str | None = Field(default=None, description="The field at fault (400/403/404/422)")
    state: str | None = Field(default=None, description="The state that refused the request (409, 410)")
    fields: list[FieldProblem] | None = Field(default=None, description="Every invalid field (422)")
    error_id: str | None = Field(default=None, description="Quote it when reporting a 500")


class ErrorBody(BaseModel):
    error: ErrorDetail


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The `responses=` of a route: each status it can answer with, all in the error shape."""
    return {status: {"model": ErrorBody, "description": _DESCRIPTIONS[status]} for status in statuses}


def document(app: FastAPI, *, version: str = "1.0.0", description: str | None = None) -> dict[str, Any]:
    spec = get_openapi(title=app.title, version=version, description=description, routes=app.routes)
    spec.setdefault("components", {})["securitySchemes"] = {
        SECURITY_SCHEME: {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "JWT",
            "description": "A user's Supabase JWT, or a service-role JWT naming the user_id it acts for",
        }
    }
    spec["security"] = [{SECURITY_SCHEME: []}]
    for path in spec.get("paths", {}).values():
        for operation in path.values():
            # The token is the security scheme; as a header parameter it would be documented twice.
            operation["parameters"] = [
                parameter
                for parameter in operation.get("parameters", [])
                if not (parameter["in"] == "header" and parameter["name"].lower() == "authorization")
            ]
            if not operation["parameters"]:
                del operation["parameters"]
            statuses = (*_EVERY_ROUTE, *(_WITH_BODY if "requestBody" in operation else ()))
            for status, response in errors(*statuses).items():
                operation["responses"].setdefault(
                    str(status),
                    {
                        "description": response["description"],
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}
                        },
                    },
                )
    return spec
