"""`Annotated` dependencies for routes; tests swap them through `app.dependency_overrides`."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header

from persona_rails.auth import AuthError, AuthNotConfiguredError, Claims, bearer_token, verify
from persona_rails.db import Database, get_database
from persona_rails.http.errors import ApiError
from persona_rails.observability import logger
from persona_rails.settings import AuthSettings, LlmSettings, cached_settings


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


async def current_user(authorization: Annotated[str | None, Header()] = None) -> Claims:
    return authenticate(authorization)


async def database() -> Database:
    return get_database()


async def llm_settings() -> LlmSettings:
    return cached_settings(LlmSettings)


CurrentUser = Annotated[Claims, Depends(current_user)]
DbDep = Annotated[Database, Depends(database)]
LlmDep = Annotated[LlmSettings, Depends(llm_settings)]


def require_same_user(claims: Claims, payload_user_id: object) -> None:
    if str(payload_user_id) != claims.sub:
        raise ApiError(403, "user_mismatch", "user_id does not match the token's subject", field="user_id")
