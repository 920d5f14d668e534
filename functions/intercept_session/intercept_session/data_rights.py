"""A user's rights over their interception history: export all of it, delete all of it.

The export is paged by session (oldest first) so that years of history never exceed what one
Lambda answer may carry (6 MB): each page holds up to `MAX_PAGE_SIZE` sessions with everything
about them, and an opaque `next_cursor` until the last. The deletion removes every row of the
history in one transaction and answers how many rows of each kind went; run again, it answers
zeros. Rules are configuration, not history: they are exported, never deleted here.
"""

from __future__ import annotations

import base64
import binascii
import uuid
from datetime import datetime
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, Field

from intercept_session import data_rights_repository as repository
from persona_rails.db import Database
from persona_rails.errors import Invalid
from persona_rails.identity import Caller
from persona_rails.observability import count, logger

FORMAT_VERSION: Literal[1] = 1
# Sized so that a page of sessions each at every length limit (reason, appeal, emergency reason,
# LLM reply, event copies) stays under Lambda's 6 MB answer: see test_data_rights.py.
MAX_PAGE_SIZE = 50
_CURSOR_VERSION = "v1"

Rows = list[dict[str, Any]]


class HistoryExport(BaseModel):
    """One page of the caller's interception history. Rows are exported with every column."""

    format_version: Literal[1] = FORMAT_VERSION
    exported_at: datetime
    user_id: UUID
    sessions: Rows = Field(
        description="Every column of each session, oldest first, each with its `turns` (a turn whose"
        " reason was purged has `reason_text: null` and `reason_purged_at`)"
    )
    events: Rows = Field(description="The analytics events about these sessions")
    decision_records: Rows = Field(
        description="What each verdict of these sessions was computed from (`rails replay`)"
    )
    weekly_summaries: Rows | None = Field(description="First page only (null on later pages)")
    rules: Rows | None = Field(
        description="First page only; rules are configuration and are never deleted here"
    )
    settings: dict[str, Any] | None = Field(
        description="First page only: the interception settings row, null when never set"
    )
    clock: dict[str, Any] | None = Field(
        description="First page only: the UTC offset the local day follows, null before any session"
    )
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page; null on the last page")


class DeletedCounts(BaseModel):
    """Rows deleted, per kind. All zero when there was nothing (left) to delete."""

    sessions: int
    turns: int
    events: int
    decision_records: int
    weekly_summaries: int
    settings: int
    clock: int


class HistoryDeleted(BaseModel):
    user_id: UUID
    deleted: DeletedCounts


def _encode_cursor(created_at: datetime, session_id: str) -> str:
    raw = f"{_CURSOR_VERSION}|{created_at.isoformat()}|{session_id}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        raw = base64.b64decode(cursor + "=" * (-len(cursor) % 4), altchars=b"-_", validate=True)
        version, created, session_id = raw.decode().split("|")
        created_at = datetime.fromisoformat(created)
        if version != _CURSOR_VERSION or created_at.tzinfo is None:
            raise ValueError(version)
        return created_at, str(uuid.UUID(session_id))
    except (ValueError, UnicodeDecodeError, binascii.Error):
        raise Invalid("invalid_cursor", "cursor is not one this route returned", field="cursor") from None


def export_history(db: Database, caller: Caller, cursor: str | None, limit: int) -> HistoryExport:
    after = _decode_cursor(cursor) if cursor is not None else None
    ((page,),) = db.run_as_user(caller.claims, repository.export_page(after, limit))
    has_more = bool(page["has_more"])
    count("HistoryExported")
    logger.info(
        "history exported",
        extra={"caller": caller.kind.value, "sessions": len(page["sessions"]), "has_more": has_more},
    )
    return HistoryExport(
        exported_at=page["exported_at"],
        user_id=UUID(caller.user_id),
        sessions=page["sessions"],
        events=page["events"],
        decision_records=page["decision_records"],
        weekly_summaries=page["weekly_summaries"],
        rules=page["rules"],
        settings=page["settings"],
        clock=page["clock"],
        next_cursor=_encode_cursor(page["last_created_at"], str(page["last_id"])) if has_more else None,
    )


def delete_history(db: Database, caller: Caller) -> HistoryDeleted:
    results = db.run_as_user(caller.claims, *repository.delete_history())
    counts = {
        name: int(rows[0]["n"])
        for (name, _), rows in zip(repository.DELETIONS, results[-len(repository.DELETIONS) :], strict=True)
    }
    count("HistoryDeleted")
    logger.info("history deleted", extra={"caller": caller.kind.value, **counts})
    return HistoryDeleted(user_id=UUID(caller.user_id), deleted=DeletedCounts(**counts))
