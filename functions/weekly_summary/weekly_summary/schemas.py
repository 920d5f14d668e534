"""What a run is asked to do: the scheduler's tick, an operator's backfill of a week or a user, or
one partition of a week that a large run fanned out."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Literal
from uuid import UUID

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator

from weekly_summary.engine.weeks import parse_week


class RunRequest(BaseModel):
    """EventBridge Scheduler sends template.yaml's Input: `{"scheduled_time": ...}`. A backfill
    adds `week` ("2026-W47" or a date in it) and/or `user_id`; both may also sit under `detail`."""

    model_config = ConfigDict(extra="ignore")

    scheduled_time: AwareDatetime | None = None
    week: str | None = Field(default=None, max_length=20)
    user_id: UUID | None = None

    @field_validator("week")
    @classmethod
    def _valid_week(cls, value: str | None) -> str | None:
        if value is not None:
            parse_week(value)
        return value

    @property
    def week_start(self) -> date | None:
        return parse_week(self.week) if self.week else None

    @classmethod
    def from_event(cls, event: Any) -> RunRequest:
        if not isinstance(event, dict):
            raise ValueError("the event must be a JSON object")
        detail = event.get("detail")
        detail = detail if isinstance(detail, dict) else {}
        merged = {**event, **detail}
        # An EventBridge envelope carries the tick's time as `time`.
        if "scheduled_time" not in merged and isinstance(event.get("time"), str):
            merged["scheduled_time"] = event["time"]
        return cls.model_validate(merged)

    def tick(self, fallback: datetime) -> datetime:
        # Retries of one tick reuse its scheduled time, so they pick the same weeks.
        return self.scheduled_time or fallback


class PartitionRequest(BaseModel):
    """One partition of a fanned-out week, as the coordinator sends it through SQS: the users of
    `week` with ids in (`after`, `until`] (`until` null: to the end). `due_at` is the tick's time
    for a scheduled run (only users due then, skipping those already summarized) and null for a
    backfill (every user of the range, rewritten)."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["weekly_partition"] = "weekly_partition"
    week: str = Field(max_length=20)
    due_at: AwareDatetime | None
    after: UUID
    until: UUID | None
    index: int = Field(ge=0)
    count: int = Field(ge=1)

    @field_validator("week")
    @classmethod
    def _valid_week(cls, value: str) -> str:
        parse_week(value)
        return value

    @property
    def week_start(self) -> date:
        return parse_week(self.week)


def sqs_records(event: Any) -> list[dict[str, Any]] | None:
    """The records of an SQS event, or None for any other event (the scheduler's, an operator's)."""
    if not isinstance(event, dict) or not isinstance(event.get("Records"), list):
        return None
    records = event["Records"]
    if not all(isinstance(record, dict) and record.get("eventSource") == "aws:sqs" for record in records):
        raise ValueError("Records must all come from SQS")
    return records
