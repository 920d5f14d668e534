"""WeeklySummaryFunction's configuration: the database, the LLM, and two knobs of its own."""

from __future__ import annotations

from pydantic import Field

from persona_rails import env
from persona_rails.settings import DatabaseSettings, LlmSettings


class WeeklySettings(DatabaseSettings, LlmSettings):
    # One LLM call per user: opt in explicitly, the template insight is the default.
    llm_insights: bool = Field(default=False, validation_alias=env.WEEKLY_LLM_INSIGHTS)
    batch_size: int = Field(default=2000, ge=1, le=20_000, validation_alias=env.WEEKLY_BATCH_SIZE)
