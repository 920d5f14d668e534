"""HTTP adapter of the data-rights routes: export and delete the caller's interception history.

Included by `api.router`, so the paths below hang off its `/intercept-session` prefix. They are
two segments deep on purpose: `GET /intercept-session/{session_id}` is declared first and would
take any single segment (FastAPI tries routes in order).

Callers: the user's own JWT, or a service-role JWT naming the user in `?user_id=`.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from intercept_session import data_rights
from intercept_session.data_rights import HistoryDeleted, HistoryExport
from persona_rails.http.dependencies import DbDep, UserOrService
from persona_rails.http.openapi import errors

router = APIRouter(prefix="/me/history")


@router.get("", response_model=HistoryExport, responses=errors(401, 403, 422))
async def export_history(
    caller: UserOrService,
    db: DbDep,
    cursor: Annotated[
        str | None,
        Query(
            max_length=200, pattern=r"^[A-Za-z0-9_-]+$", description="The `next_cursor` of the previous page"
        ),
    ] = None,
    limit: Annotated[
        int, Query(ge=1, le=data_rights.MAX_PAGE_SIZE, description="Sessions per page")
    ] = data_rights.MAX_PAGE_SIZE,
) -> HistoryExport:
    return data_rights.export_history(db, caller, cursor, limit)


@router.delete("", response_model=HistoryDeleted, responses=errors(401, 403, 422))
async def delete_history(caller: UserOrService, db: DbDep) -> HistoryDeleted:
    return data_rights.delete_history(db, caller)
