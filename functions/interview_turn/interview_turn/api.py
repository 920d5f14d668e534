"""HTTP adapter: parse, authorize, call the service. Domain errors map to HTTP in the layer.

Callers: the narrator's own Supabase JWT, or the memoir app backend's service-role JWT naming
the narrator (`user_id` in the start body, `?user_id=` elsewhere). Either way a caller sees only
that narrator's rows. Send an `Idempotency-Key` header to make a retried POST safe to repeat.
"""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Header, Response, status

from interview_turn import service
from interview_turn.schemas import SessionOut, SessionStarted, StartSessionRequest, TurnRequest, TurnResponse
from persona_rails.http.dependencies import DbDep, LlmDep, Token, UserOrService, acting_for
from persona_rails.http.openapi import errors
from persona_rails.text import VISIBLE_ASCII

router = APIRouter(prefix="/interview/sessions")

IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        min_length=1,
        max_length=200,
        pattern=VISIBLE_ASCII,
        description="Makes a retry return the stored result instead of acting twice.",
    ),
]


@router.post(
    "",
    response_model=SessionStarted,
    status_code=status.HTTP_201_CREATED,
    responses={
        **errors(400, 401, 403, 404, 409, 422),
        200: {"model": SessionStarted, "description": "A retry of a session already started"},
    },
)
async def start_session(
    body: StartSessionRequest,
    token: Token,
    db: DbDep,
    response: Response,
    idempotency_key: IdempotencyKey = None,
) -> SessionStarted:
    caller = acting_for(token, body.user_id)
    started, created = service.start_session(db, caller, body, idempotency_key)
    if not created:
        response.status_code = status.HTTP_200_OK
    return started


@router.post(
    "/{session_id}/turns", response_model=TurnResponse, responses=errors(400, 401, 403, 404, 409, 422)
)
async def take_turn(
    session_id: UUID,
    body: TurnRequest,
    caller: UserOrService,
    *,
    db: DbDep,
    llm: LlmDep,
    idempotency_key: IdempotencyKey = None,
) -> TurnResponse:
    return service.submit_turn(db, llm, caller, str(session_id), body, key=idempotency_key)


@router.get("/{session_id}", response_model=SessionOut, responses=errors(401, 403, 404, 422))
async def get_session(session_id: UUID, caller: UserOrService, db: DbDep) -> SessionOut:
    return service.get_session(db, caller, str(session_id))
