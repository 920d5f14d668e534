"""HTTP adapter: parse, authorize, call the layer's moderation service (the same one library mode runs).

Callers: a user's own token, or a companion-chat backend's service-role token naming the
`user_id` it acts for in the body; either way the check is stored as that user's.
"""

from __future__ import annotations

from fastapi import APIRouter

from persona_rails.http.dependencies import DbDep, Token, acting_for
from persona_rails.http.openapi import errors
from persona_rails.moderation.schemas import CheckRequest, CheckResponse
from persona_rails.moderation.service import moderation_service

router = APIRouter(prefix="/moderation")


@router.post("/check", response_model=CheckResponse, responses=errors(400, 401, 403, 422))
async def check(body: CheckRequest, token: Token, db: DbDep) -> CheckResponse:
    caller = acting_for(token, body.user_id)
    return moderation_service(db).check(caller, body)
