"""Build a function's FastAPI app and its Lambda entry point the same way for every function."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aws_lambda_powertools.logging import correlation_paths
from fastapi import APIRouter, FastAPI

from persona_rails import coldstart, snapstart
from persona_rails.http.errors import install_error_handlers
from persona_rails.observability import logger, publishing_metrics, tracer, tracing_enabled
from persona_rails.secrets import require_secrets

LambdaHandler = Callable[[dict[str, Any], Any], dict[str, Any]]


def create_app(title: str, router: APIRouter, *, max_body_bytes: int | None = None) -> FastAPI:
    """`max_body_bytes`: bodies over it get 413 before parsing (`persona_rails.http.body_limit`)."""
    # At init, so a missing or invalid secret parameter fails the cold start, not a request.
    require_secrets()
    # No docs routes: API Gateway only forwards the declared routes anyway.
    app = FastAPI(title=title, docs_url=None, redoc_url=None, openapi_url=None)
    install_error_handlers(app)
    app.include_router(router)
    if max_body_bytes is not None:
        from persona_rails.http.body_limit import BodyLimit

        app.add_middleware(BodyLimit, max_bytes=max_body_bytes)
    return app


def lambda_handler_for(app: FastAPI) -> LambdaHandler:
    from mangum import Mangum

    handler: LambdaHandler = Mangum(app, lifespan="off")
    handler = publishing_metrics(handler)
    if tracing_enabled():
        handler = tracer().capture_lambda_handler(handler, capture_response=False)
    handler = logger.inject_lambda_context(
        handler, correlation_id_path=correlation_paths.API_GATEWAY_HTTP, log_event=False
    )
    # Under SnapStart, init ends in a snapshot: a restored copy recreates its connections.
    snapstart.register()
    coldstart.end_of_init()
    return handler
