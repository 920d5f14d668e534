"""What a run is asked to do: the scheduler's tick, or an operator's backfill of a week or a user."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any
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
