"""Every failure leaves as a JSON body `{"error": {"code", "message", "field"?, "state"?}}`.

This is the one place where domain errors (`persona_rails.errors`) become HTTP statuses.
Validation errors name the field; conflicts name the state. Nothing unexpected is allowed to
become a bare 500 without a JSON body and a logged error id.
"""

from __future__ import annotations

import traceback
import uuid
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from persona_rails.errors import DomainError
from persona_rails.http.api_error import ApiError
from persona_rails.observability import count, logger

STATUS_OF_KIND = {
    "not_found": 404,
    "conflict": 409,
    "gone": 410,
    "invalid": 422,
    "forbidden": 403,
    "unavailable": 503,
}


def status_of(error: DomainError) -> int:
    return STATUS_OF_KIND.get(error.kind, 400)


def error_body(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, **{k: v for k, v in extra.items() if v is not None}}}


def _field_name(location: tuple[Any, ...]) -> str:
    """`transcript[3].role`: the field's path, list positions included so the client can find it.
    FastAPI prefixes the source ("body", "path", "query", "header"); the client wants the field."""
    name = ""
    for part in location[1:]:
        name += f"[{part}]" if isinstance(part, int) else (f".{part}" if name else str(part))
    return name or str(location[0])


def _validation_response(exc: RequestValidationError) -> JSONResponse:
    errors = exc.errors()
    if any(error["type"] == "json_invalid" for error in errors):
        return JSONResponse(
            status_code=400, content=error_body("invalid_json", "the request body is not valid JSON")
        )
    if any(error["loc"] == ("body",) and error["type"] == "missing" for error in errors):
        return JSONResponse(status_code=400, content=error_body("missing_body", "a JSON body is required"))
    fields = [
        # `input` is left out on purpose: it may be the user's raw text.
        {
            "field": _field_name(tuple(error["loc"])),
            "message": "unknown field" if error["type"] == "extra_forbidden" else error["msg"],
        }
        for error in errors
    ]
    unknown = [
        field["field"]
        for field, error in zip(fields, errors, strict=True)
        if error["type"] == "extra_forbidden"
    ]
    first = fields[0]
    message = f"{first['field']}: {first['message']}"
    if unknown:
        # Name every unknown field (up to a readable few): the client fixes them all at once.
        message = f"unknown fields: {', '.join(unknown[:20])}" + (" …" if len(unknown) > 20 else "")
    return JSONResponse(
        status_code=422,
        content=error_body(
            "validation_error", message, field=unknown[0] if unknown else first["field"], fields=fields[:100]
        ),
    )


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
        count(f"Http{exc.status}")
        return JSONResponse(
            status_code=exc.status,
            content=error_body(exc.code, exc.message, field=exc.field, state=exc.state),
            headers={"WWW-Authenticate": "Bearer"} if exc.status == 401 else None,
        )

    @app.exception_handler(DomainError)
    async def _domain_error(request: Request, exc: DomainError) -> JSONResponse:
        as_api = ApiError(status_of(exc), exc.code, exc.message, field=exc.field, state=exc.state)
        return await _api_error(request, as_api)

    async def _unauthenticated(request: Request) -> JSONResponse | None:
        # FastAPI parses the body before it runs dependencies; an unauthenticated caller must
        # still get 401, and never learn how its body would have been judged.
        from persona_rails.http.authentication import authenticate

        try:
            authenticate(request.headers.get("authorization"))
        except ApiError as auth_error:
            return await _api_error(request, auth_error)
        return None

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        refused = await _unauthenticated(request)
        if refused is not None:
            return refused
        count("HttpValidationError")
        return _validation_response(exc)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400:
            # FastAPI's "There was an error parsing the body": bytes that are not UTF-8, or JSON
            # nested too deep to decode. To the client that is the same mistake as any bad JSON.
            refused = await _unauthenticated(request)
            bad_json = ApiError(400, "invalid_json", "the request body is not valid JSON")
            return refused or await _api_error(request, bad_json)
        codes = {404: "route_not_found", 405: "method_not_allowed"}
        return JSONResponse(
            status_code=exc.status_code,
            content=error_body(codes.get(exc.status_code, "http_error"), str(exc.detail)),
        )

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        error_id = str(uuid.uuid4())
        # The exception's message is not logged: drivers put row values (user text) in theirs.
        frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
        logger.error(
            "unhandled error",
            extra={
                "error_id": error_id,
                "error_type": type(exc).__name__,
                "where": f"{frame.filename}:{frame.lineno}" if frame else None,
            },
        )
        return JSONResponse(
            status_code=500, content=error_body("internal_error", "unexpected error", error_id=error_id)
        )
