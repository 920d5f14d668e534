"""The LLM step every engine shares: ask the model, fall back to the deterministic evaluator.

`run_step` makes one structured call and converts the reply into the engine's answer; on any
fault (timeout, rate limit, 5xx, junk, a reply the engine rejects) it answers from the engine's
offline evaluator instead, says why in `fallback_reason` and counts `LlmFallback`. With no LLM
configured it answers offline without a call: that is the chosen mode, not a fault, so no reason
and no metric. Either way the result carries what a
decision record stores: `source`, `model`, `fallback_reason`, `latency_ms` and the raw reply.
The offline path never imports `openai`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Generic, TypeVar

from pydantic import BaseModel

from persona_rails.llm.structured import LlmFault, complete_structured
from persona_rails.observability import count, logger
from persona_rails.settings import LlmSettings

ReplyT = TypeVar("ReplyT", bound=BaseModel)
AnswerT = TypeVar("AnswerT")
FALLBACK_METRIC = "LlmFallback"


class Source(StrEnum):
    LLM = "llm"
    OFFLINE = "offline"


@dataclass(frozen=True)
class StepResult(Generic[AnswerT]):
    answer: AnswerT
    source: Source
    model: str | None
    fallback_reason: str | None
    latency_ms: int
    # The model's reply as received, when one was used: replaying it reproduces the answer.
    raw_reply: str | None


def run_step(
    settings: LlmSettings,
    *,
    name: str,
    messages: Callable[[], list[dict[str, str]]],
    reply_model: type[ReplyT],
    from_reply: Callable[[ReplyT], AnswerT],
    offline: Callable[[], AnswerT],
    max_tokens: int = 300,
) -> StepResult[AnswerT]:
    """`from_reply` may raise `LlmFault` (or ValueError) to refuse a reply that parses but does
    not serve the engine; that falls back like any other fault."""
    started = time.perf_counter()
    fallback_reason: str | None = None
    if settings.configured:
        try:
            reply = complete_structured(
                settings, messages(), schema=reply_model, schema_name=name, max_tokens=max_tokens
            )
            answer = from_reply(reply.value)
            return StepResult(answer, Source.LLM, reply.model, None, _elapsed(started), reply.raw)
        except (LlmFault, ValueError) as fault:
            fallback_reason = fault.reason if isinstance(fault, LlmFault) else "rejected"
            count(FALLBACK_METRIC)
            logger.warning(
                "llm fault, using the offline evaluator",
                extra={"step": name, "fallback_reason": fallback_reason},
            )
    return StepResult(offline(), Source.OFFLINE, None, fallback_reason, _elapsed(started), None)


def _elapsed(started: float) -> int:
    return int((time.perf_counter() - started) * 1000)
