"""HTTP adapter: parse, authorize, call the service. Domain errors map to HTTP in the layer.

Routes are `async` on purpose: Lambda serves one request per process, so running the blocking
service on the invoking thread avoids a thread-pool hop and keeps one database connection.

Callers: every route takes the user's own Supabase JWT, or a service-role JWT acting for a user
(named by the body's `user_id` on start, by `?user_id=` elsewhere).
"""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import UUID

from fastapi import APIRouter, Response, status

from intercept_session import decisions, service
from intercept_session.schemas import (
    AppealRequest,
    DecisionRequest,
    DecisionResult,
    ReasonRequest,
    SessionOut,
    StartAnswer,
    StartSessionRequest,
    TurnResult,
)
from persona_rails.http.dependencies import DbDep, LlmDep, Token, UserOrService, acting_for
from persona_rails.http.openapi import errors
from persona_rails.settings import InterceptSettings, cached_settings

router = APIRouter(prefix="/intercept-session")


def _grace() -> int:
    """How long after its countdown an open dialog counts as abandoned."""
    return cached_settings(InterceptSettings).abandon_grace_seconds


@router.post(
    "",
    response_model=StartAnswer,
    status_code=status.HTTP_201_CREATED,
    responses={
        **errors(400, 401, 403, 404, 409, 413, 422),
        200: {
            "model": StartAnswer,
            "description": "No new dialog: a retry of a session already started, the app is still unlocked"
            " (`state: unlocked`), or an accepted delay is still running (`state: delayed`)",
        },
    },
)
async def start_session(
    body: StartSessionRequest, token: Token, db: DbDep, response: Response
) -> StartAnswer:
    caller = acting_for(token, body.user_id)
    answer, created = service.start_session(db, caller, body, datetime.now(UTC), grace_seconds=_grace())
    if not created:
        response.status_code = status.HTTP_200_OK
    return answer


@router.post(
    "/{session_id}/reason", response_model=TurnResult, responses=errors(400, 401, 403, 404, 409, 413, 422)
)
async def submit_reason(
    session_id: UUID, body: ReasonRequest, caller: UserOrService, db: DbDep, llm: LlmDep
) -> TurnResult:
    return service.submit_turn_settled(
        db, llm, caller, str(session_id), body.reason_text, turn_no=1, grace_seconds=_grace()
    )


@router.post(
    "/{session_id}/appeal", response_model=TurnResult, responses=errors(400, 401, 403, 404, 409, 413, 422)
)
async def submit_appeal(
    session_id: UUID, body: AppealRequest, caller: UserOrService, db: DbDep, llm: LlmDep
) -> TurnResult:
    return service.submit_turn_settled(
        db, llm, caller, str(session_id), body.appeal_text, turn_no=2, grace_seconds=_grace()
    )


@router.post(
    "/{session_id}/decision",
    response_model=DecisionResult,
    responses=errors(400, 401, 403, 404, 409, 413, 422),
)
async def record_decision(
    session_id: UUID, body: DecisionRequest, caller: UserOrService, db: DbDep
) -> DecisionResult:
    return decisions.decide(db, caller, str(session_id), body, grace_seconds=_grace())


@router.get("/{session_id}", response_model=SessionOut, responses=errors(401, 403, 404, 422))
async def get_session(session_id: UUID, caller: UserOrService, db: DbDep) -> SessionOut:
    return service.get_session(db, caller, str(session_id))


from intercept_session.data_rights_api import router as data_rights_router  # noqa: E402 - with its include

router.include_router(data_rights_router)
