"""`Annotated` dependencies for routes; tests swap them through `app.dependency_overrides`.

Identity: `UserOnly` for routes that accept a user's own token only; `UserOrService` for routes
a backend may also call with a service-role token, naming the user in `?user_id=`. A route whose
body carries `user_id` takes `Token` and calls `acting_for(token, body.user_id)` itself.
"""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from fastapi import Depends, Header, Query

from persona_rails.auth import Claims
from persona_rails.db import Database, get_database
from persona_rails.http.authentication import authenticate
from persona_rails.identity import Caller, resolve_caller
from persona_rails.settings import LlmSettings, cached_settings


async def current_token(authorization: Annotated[str | None, Header()] = None) -> Claims:
    return authenticate(authorization)


Token = Annotated[Claims, Depends(current_token)]


def acting_for(token: Claims, user_id: object | None) -> Caller:
    """A user, or a service-role backend acting for the `user_id` the body names."""
    return resolve_caller(token, user_id, allow_service=True)


async def user_only(token: Token) -> Caller:
    return resolve_caller(token, None, allow_service=False)


async def user_or_service(
    token: Token,
    user_id: Annotated[
        UUID | None, Query(description="The user a service-role caller acts for (service-role tokens only).")
    ] = None,
) -> Caller:
    return resolve_caller(token, user_id, allow_service=True)


async def database() -> Database:
    return get_database()


async def llm_settings() -> LlmSettings:
    return cached_settings(LlmSettings)


UserOnly = Annotated[Caller, Depends(user_only)]
UserOrService = Annotated[Caller, Depends(user_or_service)]
DbDep = Annotated[Database, Depends(database)]
LlmDep = Annotated[LlmSettings, Depends(llm_settings)]
