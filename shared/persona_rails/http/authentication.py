"""A request's bearer token verified into claims, or the 401/503 to answer with: used by the
routes' dependencies and by the error handlers (an unauthenticated caller gets 401 before any
word about its body)."""

from __future__ import annotations

from persona_rails.auth import AuthError, AuthNotConfiguredError, Claims, bearer_token, verify
from persona_rails.http.api_error import ApiError
from persona_rails.observability import logger
from persona_rails.settings import AuthSettings, cached_settings


def authenticate(authorization: str | None) -> Claims:
    """The verified claims of a bearer token, or the ApiError (401/503) to answer with."""
    settings = cached_settings(AuthSettings)
    try:
        return verify(
            bearer_token(authorization),
            secret=settings.jwt_secret,
            jwks_url=settings.jwks_url,
            audience=settings.jwt_audience,
        )
    except AuthError as exc:
        raise ApiError(401, "unauthorized", str(exc)) from None
    except AuthNotConfiguredError as exc:
        logger.error("auth is not configured")
        raise ApiError(503, "auth_not_configured", str(exc)) from None
