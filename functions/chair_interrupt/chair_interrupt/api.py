"""HTTP adapter: parse, authorize, call the service. Domain errors map to HTTP in the layer.

Callers: the debate owner's own token, or the debate orchestrator's service-role token naming
the owner (`user_id` in the evaluate body, `?user_id=` elsewhere). A debate, its cooldowns, its
interrupts and its stats belong to its owner: another owner's debate with the same id is another
debate.
"""

from __future__ import annotations

from uuid import UUID

from fastapi import APIRouter, Response

from chair_interrupt import service
from chair_interrupt.schemas import (
    CandidateOut,
    EvaluateRequest,
    QuickCheckRequest,
    QuickCheckResult,
    ResetOut,
    StatsOut,
)
from persona_rails.http.dependencies import DbDep, LlmDep, Token, UserOrService, acting_for
from persona_rails.http.openapi import errors

router = APIRouter(prefix="/debates/{debate_id}/interrupts")
EVALUATION_ID_HEADER = "x-evaluation-id"


@router.post(
    "/evaluate",
    response_model=CandidateOut | None,
    responses={
        **errors(400, 401, 403, 404, 422),
        200: {
            "description": "The candidate, or null",
            "headers": {
                EVALUATION_ID_HEADER: {
                    "description": "The evaluation's decision record: rails replay ChairInterruptFunction ID",
                    "schema": {"type": "string", "format": "uuid"},
                }
            },
        },
    },
    description="The chair that should interrupt now, or `null`. The `x-evaluation-id` header names the "
    "evaluation's decision record (`rails replay ChairInterruptFunction ID`).",
)
async def evaluate(
    debate_id: UUID, body: EvaluateRequest, token: Token, *, db: DbDep, llm: LlmDep, response: Response
) -> CandidateOut | None:
    caller = acting_for(token, body.user_id)
    candidate, evaluation_id = service.evaluate(db, llm, caller, str(debate_id), body)
    response.headers[EVALUATION_ID_HEADER] = evaluation_id
    return candidate


@router.post("/quick-check", response_model=QuickCheckResult, responses=errors(400, 401, 403, 422))
async def quick_check(
    debate_id: UUID, body: QuickCheckRequest, caller: UserOrService, db: DbDep
) -> QuickCheckResult:
    db.require_user(caller.claims)  # a pure check, but a deleted account's token is still refused
    return service.quick(body.content)


@router.get("/stats", response_model=StatsOut, responses=errors(401, 403, 422))
async def stats(debate_id: UUID, caller: UserOrService, db: DbDep) -> StatsOut:
    return service.stats(db, caller, str(debate_id))


@router.post("/reset-cooldowns", response_model=ResetOut, responses=errors(401, 403, 422))
async def reset_cooldowns(debate_id: UUID, caller: UserOrService, db: DbDep) -> ResetOut:
    return service.reset_cooldowns(db, caller, str(debate_id))
