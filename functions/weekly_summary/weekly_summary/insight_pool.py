"""LLM insights for many users at once: bounded concurrency, a deadline, and the template on any fault.

One thread pool of `llm_concurrency` workers serves the whole run (every page, every page
worker), and they share the layer's one openai client (`persona_rails.llm.structured._client`
is created once per process and is thread-safe). Each user's call is bounded by the LLM timeout;
whatever goes wrong with it (timeout, 5xx, a reply that is not the schema or not an insight, an
unexpected exception) leaves that user with the persona's template insight. Once the invocation
has less than `llm_reserve_seconds` left, no new call starts, so a slow endpoint makes the rest
of the run use templates rather than time the invocation out.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from persona_rails.observability import count, logger
from weekly_summary.engine.summary import Insight
from weekly_summary.insight import llm_insight
from weekly_summary.personas import InsightPersonas
from weekly_summary.settings import WeeklySettings

# Seconds left in the invocation; None outside Lambda (no deadline).
Remaining = Callable[[], float]
DEADLINE_METRIC = "WeeklyInsightDeadlineFallback"


@dataclass(frozen=True)
class Outcome:
    insight: Insight
    # Why the template was used although the LLM was asked for: "fault" or "deadline".
    fallback: str | None = None


class InsightPool:
    def __init__(
        self, settings: WeeklySettings, personas: InsightPersonas, remaining: Remaining | None = None
    ) -> None:
        self._settings = settings
        self._personas = personas
        self._remaining = remaining
        self._pool = (
            ThreadPoolExecutor(settings.llm_concurrency, thread_name_prefix="weekly-insight")
            if settings.insights_by_llm
            else None
        )

    def write(self, items: list[tuple[dict[str, Any], Insight]]) -> list[Outcome]:
        """The insight of each (summary, template insight) pair, in order."""
        if self._pool is None:
            return [Outcome(fallback) for _, fallback in items]
        futures = [self._pool.submit(self._one, summary, fallback) for summary, fallback in items]
        return [future.result() for future in futures]

    def _short_of_time(self) -> bool:
        return self._remaining is not None and self._remaining() < self._settings.llm_reserve_seconds

    def _one(self, summary: dict[str, Any], fallback: Insight) -> Outcome:
        if self._short_of_time():
            count(DEADLINE_METRIC)
            return Outcome(fallback, "deadline")
        try:
            insight = llm_insight(self._settings, self._personas.get(fallback.persona_key), summary, fallback)
        except Exception as exc:  # noqa: BLE001 - one user's insight never fails the run
            # The user's id and the kind of fault: the prompt holds numbers only, but stay terse.
            logger.warning(
                "weekly insight failed, using the template",
                extra={"user_id": summary.get("user_id"), "problem": type(exc).__name__},
            )
            return Outcome(fallback, "fault")
        return Outcome(insight, None if insight.source == "llm" else "fault")

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
