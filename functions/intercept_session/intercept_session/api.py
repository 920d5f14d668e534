"""HTTP adapter: parse, authorize, call the service, map domain errors. No logic lives here.

Routes are `async` on purpose: Lambda serves one request per process, so running the blocking
service on the invoking thread avoids a thread-pool hop and keeps one database connection.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from uuid import UUID

from fastapi import APIRouter, Response, status

from intercept_session import service
from intercept_session.engine.state_machine import TransitionError
from intercept_session.schemas import (
    AppealRequest,
    DecisionRequest,
    DecisionResult,
    ReasonRequest,
    SessionOut,
    SessionStarted,
    StartSessionRequest,
    TurnResult,
)
from persona_rails.http.dependencies import CurrentUser, DbDep, LlmDep, require_same_user
from persona_rails.http.errors import conflict

router = APIRouter(prefix="/intercept-session")


@contextmanager
def _state_conflicts() -> Iterator[None]:
    try:
        yield
    except TransitionError as error:
        raise conflict(error.code, str(error), state=error.state.value) from None


@router.post("", response_model=SessionStarted, status_code=status.HTTP_201_CREATED)
async def start_session(
    body: StartSessionRequest, user: CurrentUser, db: DbDep, response: Response
) -> SessionStarted:
    require_same_user(user, body.user_id)
    started, created = service.start_session(db, user, body, datetime.now(UTC))
    if not created:
        response.status_code = status.HTTP_200_OK
    return started


@router.post("/{session_id}/reason", response_model=TurnResult)
async def submit_reason(
    session_id: UUID, body: ReasonRequest, user: CurrentUser, db: DbDep, llm: LlmDep
) -> TurnResult:
    with _state_conflicts():
        return service.submit_turn_settled(db, llm, user, str(session_id), body.reason_text, turn_no=1)


@router.post("/{session_id}/appeal", response_model=TurnResult)
async def submit_appeal(
    session_id: UUID, body: AppealRequest, user: CurrentUser, db: DbDep, llm: LlmDep
) -> TurnResult:
    with _state_conflicts():
        return service.submit_turn_settled(db, llm, user, str(session_id), body.appeal_text, turn_no=2)


@router.post("/{session_id}/decision", response_model=DecisionResult)
async def record_decision(
    session_id: UUID, body: DecisionRequest, user: CurrentUser, db: DbDep
) -> DecisionResult:
    with _state_conflicts():
        return service.decide(db, user, str(session_id), body)


@router.get("/{session_id}", response_model=SessionOut)
async def get_session(session_id: UUID, user: CurrentUser, db: DbDep) -> SessionOut:
    return service.get_session(db, user, str(session_id))
