"""HTTP adapter: parse, authorize, call the service. Domain errors map to HTTP in the layer.

Callers: the learner's own Supabase JWT, or the education platform's backend with a
service-role JWT naming the learner (`user_id` in a body, `?user_id=` elsewhere). Either way a
caller sees only that learner's encounters. Send an `Idempotency-Key` header to make a retried
POST safe to repeat.
"""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Header, Response, status

from persona_rails.auth import SERVICE_ROLE
from persona_rails.http.dependencies import DbDep, LlmDep, Token, UserOrService, acting_for
from persona_rails.http.openapi import errors
from persona_rails.identity import resolve_caller
from persona_rails.text import VISIBLE_ASCII
from sps_encounter import service
from sps_encounter.schemas import (
    Catalog,
    EncounterDetail,
    EncounterOut,
    PatientTurnOut,
    StartEncounterRequest,
    TurnRequest,
    ValidateRequest,
    ValidationResult,
)

router = APIRouter(prefix="/sps")

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


@router.get("/scenarios", response_model=Catalog, responses=errors(401, 422))
async def scenarios(token: Token, db: DbDep) -> Catalog:
    # The catalog is nobody's data: any valid token reads it, a service role without naming a user;
    # a user's token must still name an existing user.
    if token.role != SERVICE_ROLE:
        db.require_user(resolve_caller(token, None, allow_service=False).claims)
    return service.catalog()


@router.post(
    "/encounters",
    response_model=EncounterOut,
    status_code=status.HTTP_201_CREATED,
    responses={
        **errors(400, 401, 403, 404, 409, 413, 422),
        200: {"model": EncounterOut, "description": "A retry of an encounter already started"},
    },
)
async def start_encounter(
    body: StartEncounterRequest,
    token: Token,
    db: DbDep,
    response: Response,
    idempotency_key: IdempotencyKey = None,
) -> EncounterOut:
    caller = acting_for(token, body.user_id)
    started, created = service.start_encounter(db, caller, body, idempotency_key)
    if not created:
        response.status_code = status.HTTP_200_OK
    return started


@router.post(
    "/encounters/{encounter_id}/turns",
    response_model=PatientTurnOut,
    responses=errors(400, 401, 403, 404, 409, 410, 413, 422),
)
async def take_turn(
    encounter_id: UUID,
    body: TurnRequest,
    caller: UserOrService,
    *,
    db: DbDep,
    llm: LlmDep,
    idempotency_key: IdempotencyKey = None,
) -> PatientTurnOut:
    return service.take_turn(db, llm, caller, str(encounter_id), body, key=idempotency_key)


@router.get(
    "/encounters/{encounter_id}", response_model=EncounterDetail, responses=errors(401, 403, 404, 422)
)
async def get_encounter(encounter_id: UUID, caller: UserOrService, db: DbDep) -> EncounterDetail:
    return service.get_encounter(db, caller, str(encounter_id))


@router.post("/validate", response_model=ValidationResult, responses=errors(400, 401, 403, 404, 413, 422))
async def validate(body: ValidateRequest, token: Token, db: DbDep) -> ValidationResult:
    caller = acting_for(token, body.user_id)
    return service.validate(db, caller, body)
