"""WeeklySummaryFunction's configuration: the database, the LLM, and the knobs of its own.

The defaults come from docs/benchmarks.md ("Weekly summary at scale", "Weekly insights at
scale"): what one 900-second invocation was measured to do, with room to spare.
"""

from __future__ import annotations

from pydantic import Field

from persona_rails import env
from persona_rails.settings import DatabaseSettings, InterceptSettings, LlmSettings


class WeeklySettings(DatabaseSettings, LlmSettings, InterceptSettings):
    """With the interception's knobs: a dialog still open past its countdown and
    `abandon_grace_seconds` is counted as abandoned, whether or not its housekeeping has closed it."""

    # One LLM call per user: opt in explicitly, the template insight is the default.
    llm_insights: bool = Field(default=False, validation_alias=env.WEEKLY_LLM_INSIGHTS)
    batch_size: int = Field(default=2000, ge=1, le=20_000, validation_alias=env.WEEKLY_BATCH_SIZE)
    # LLM calls in flight at once, shared by every page of the run.
    llm_concurrency: int = Field(default=64, ge=1, le=256, validation_alias=env.WEEKLY_LLM_CONCURRENCY)
    # Once the invocation has less than this left, no new LLM call starts: the remaining users
    # get the template insight, so the run ends before Lambda's timeout instead of at it.
    llm_reserve_seconds: float = Field(
        default=120, ge=0, le=900, validation_alias=env.WEEKLY_LLM_RESERVE_SECONDS
    )
    # Pages aggregated and written at once, each on its own connection: one page's Python work
    # overlaps the next page's query.
    page_workers: int = Field(default=2, ge=1, le=8, validation_alias=env.WEEKLY_PAGE_WORKERS)
    # The fan-out: with a queue, a week with more due users than one invocation takes is split
    # into partitions of that many users, one SQS message each (see template.yaml).
    partition_queue_url: str | None = Field(default=None, validation_alias=env.WEEKLY_PARTITION_QUEUE_URL)
    partition_users: int = Field(
        default=1_000_000, ge=1, le=10_000_000, validation_alias=env.WEEKLY_PARTITION_USERS
    )
    llm_partition_users: int = Field(
        default=40_000, ge=1, le=10_000_000, validation_alias=env.WEEKLY_LLM_PARTITION_USERS
    )

    @property
    def insights_by_llm(self) -> bool:
        return self.llm_insights and self.configured

    @property
    def users_per_invocation(self) -> int:
        return self.llm_partition_users if self.insights_by_llm else self.partition_users
