"""S3: ask the LLM (the shared step falls back to the offline evaluator), then decide the turn."""

from __future__ import annotations

from dataclasses import dataclass

from intercept_session.engine.model import Evaluation, EvaluationInput
from intercept_session.engine.prompt import build_messages
from intercept_session.engine.turn import LlmVerdict, TurnDecision, decide_turn, from_llm_reply
from intercept_session.judges import judges
from intercept_session.personas import Persona
from persona_rails.llm import StepResult, run_step
from persona_rails.llm.tokens import count_tokens
from persona_rails.settings import LlmSettings


@dataclass(frozen=True)
class Outcome:
    decision: TurnDecision
    step: StepResult[Evaluation | None]


def evaluate(settings: LlmSettings, persona: Persona, request: EvaluationInput) -> Outcome:
    step: StepResult[Evaluation | None] = run_step(
        settings,
        name="intercept_verdict",
        messages=lambda: build_messages(persona, request, count_tokens),
        reply_model=LlmVerdict,
        from_reply=from_llm_reply,
        # The offline evaluator runs inside decide_turn, so that a replay decides the same way.
        offline=lambda: None,
    )
    return Outcome(decide_turn(request, persona, step.answer, judges()), step)
