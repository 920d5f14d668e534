"""S3: evaluate a reason with the LLM, fall back to the offline evaluator, then apply the heuristics."""

from __future__ import annotations

import time
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from intercept_session.engine.heuristics import apply_heuristics
from intercept_session.engine.model import Category, Evaluation, EvaluationInput, Source, Verdict
from intercept_session.engine.offline_evaluator import evaluate_offline
from intercept_session.engine.prompt import JUSTIFICATION_LIMIT, RESPONSE_SCHEMA, build_messages
from persona_rails.llm import LlmFault, complete_structured
from persona_rails.llm.tokens import count_tokens
from persona_rails.observability import count, logger
from persona_rails.personas import Persona
from persona_rails.settings import LlmSettings


class LlmVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason_category: Category
    verdict: Verdict
    confidence: float = Field(ge=0, le=1)
    justification: str = Field(max_length=JUSTIFICATION_LIMIT)


@dataclass(frozen=True)
class Outcome:
    evaluation: Evaluation
    source: Source
    model: str | None
    fallback_reason: str | None
    latency_ms: int


def _ask_llm(settings: LlmSettings, persona: Persona, request: EvaluationInput) -> tuple[Evaluation, str]:
    reply = complete_structured(
        settings,
        build_messages(persona, request, count_tokens),
        schema=LlmVerdict,
        json_schema=RESPONSE_SCHEMA,
        schema_name="intercept_verdict",
    )
    answer = reply.value
    evaluation = Evaluation(
        verdict=answer.verdict,
        confidence=round(answer.confidence, 3),
        category=answer.reason_category,
        justification=f"llm: {answer.justification}",
    )
    return evaluation, reply.model


def evaluate(settings: LlmSettings, persona: Persona, request: EvaluationInput) -> Outcome:
    started = time.perf_counter()
    source, model, fallback_reason = Source.OFFLINE, None, None
    if settings.configured:
        try:
            evaluation, model = _ask_llm(settings, persona, request)
            source = Source.LLM
        except LlmFault as fault:
            fallback_reason = fault.reason
            count("LlmFallback")
            logger.warning("llm fault, using offline evaluator", extra={"fallback_reason": fault.reason})
    if source is Source.OFFLINE:
        evaluation = evaluate_offline(request)
    final = apply_heuristics(evaluation, request.full_text, request.override_count_today)
    latency_ms = int((time.perf_counter() - started) * 1000)
    return Outcome(final, source, model, fallback_reason, latency_ms)
