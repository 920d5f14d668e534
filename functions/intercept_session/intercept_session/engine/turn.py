"""One evaluation turn, decided purely from its inputs: what replaying a stored turn recomputes.

The emergency judge reads the text first (engine/emergency.py). The verdict comes from the
LLM's reply when one was used (`from_llm_reply`), else from the offline evaluator; the spec's
heuristics follow either way, then the persona's message: the emergency line when the judge found
an emergency, the pointer to the emergency button when it could not rule one out, else the
verdict's template. No I/O, no clock, no configuration read here: the persona, the urgency rules
and the local models are arguments.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from intercept_session.engine.emergency import judge_emergency
from intercept_session.engine.heuristics import apply_heuristics
from intercept_session.engine.messages import (
    RECOMMENDED_ACTION,
    emergency_doubt_message,
    emergency_message,
    verdict_message,
)
from intercept_session.engine.model import (
    Category,
    Evaluation,
    EvaluationInput,
    RecommendedAction,
    RuleContext,
    Trigger,
    Verdict,
)
from intercept_session.engine.offline_evaluator import evaluate_offline
from intercept_session.engine.urgency import UrgencyRules
from intercept_session.personas import Persona
from persona_rails.local_model import LocalModel

# Bump when a change here (or in the heuristics, keywords, urgency rule, offline evaluator or
# messages) can change what a stored turn would be decided as: replays then say which engine
# decided it. /2: the urgency rule (docs/emergencies.md) and the emergency line. /3: text folding,
# the emergency judge and the category scorer (docs/judges.md), the emergency-button reply.
ENGINE_VERSION = "intercept-turn/3"
JUSTIFICATION_LIMIT = 300
STORED_JUSTIFICATION_LIMIT = 600


class LlmVerdict(BaseModel):
    """The reply the LLM must give; its strict JSON schema is generated from this model."""

    model_config = ConfigDict(extra="forbid")

    reason_category: Category
    verdict: Verdict
    confidence: float = Field(ge=0, le=1)
    justification: str = Field(max_length=JUSTIFICATION_LIMIT)


def from_llm_reply(answer: LlmVerdict) -> Evaluation:
    return Evaluation(
        verdict=answer.verdict,
        confidence=round(answer.confidence, 3),
        category=answer.reason_category,
        justification=f"llm: {answer.justification}",
    )


@dataclass(frozen=True)
class Judges:
    """What judges a reason besides the LLM: the urgency rule and the two local models."""

    urgency: UrgencyRules
    emergency: LocalModel
    category: LocalModel

    @property
    def version(self) -> str:
        """The versions a decision record keeps: a replay knows whether it runs the same judges."""
        return f"urgency@{self.urgency.version}+{self.emergency.id}+{self.category.id}"


@dataclass(frozen=True)
class TurnDecision:
    evaluation: Evaluation
    persona_response: str
    recommended_action: RecommendedAction
    delay_minutes: int | None

    def as_record(self) -> dict[str, object]:
        """The decided fields exactly as stored on the turn (and compared on replay)."""
        return {
            "ai_verdict": self.evaluation.verdict.value,
            "reason_category": self.evaluation.category.value,
            "confidence": self.evaluation.confidence,
            "emergency": self.evaluation.emergency,
            "emergency_suggested": self.evaluation.emergency_doubt,
            "justification": self.evaluation.justification[:STORED_JUSTIFICATION_LIMIT],
            "persona_response": self.persona_response,
            "recommended_action": self.recommended_action.value,
            "delay_minutes": self.delay_minutes,
        }


def decide_turn(
    request: EvaluationInput, persona: Persona, llm_answer: Evaluation | None, judges: Judges
) -> TurnDecision:
    judgment = judge_emergency(request.full_text, judges.urgency, judges.emergency)
    evaluation = (
        llm_answer if llm_answer is not None else evaluate_offline(request, judges.category, judgment)
    )
    final = apply_heuristics(evaluation, judgment, request.override_count_today)
    verdict = final.verdict
    if final.emergency:
        response = emergency_message(persona)
    elif final.emergency_doubt:
        response = emergency_doubt_message(persona)
    else:
        response = verdict_message(persona, verdict, request.rule)
    return TurnDecision(
        evaluation=final,
        persona_response=response,
        recommended_action=RECOMMENDED_ACTION[verdict],
        delay_minutes=request.rule.delay_minutes if verdict is Verdict.DELAY else None,
    )


def turn_inputs(request: EvaluationInput, persona_key: str) -> dict[str, object]:
    """Everything `decide_turn` reads, as JSON: what the decision record stores (the owner's text
    included, readable by the owner only)."""
    return {
        "persona_key": persona_key,
        "reason_text": request.reason_text,
        "trigger": request.trigger.value,
        "rule": {
            "summary": request.rule.summary,
            "app_display_name": request.rule.app_display_name,
            "next_action": request.rule.next_action,
            "remaining_minutes": request.rule.remaining_minutes,
            "delay_minutes": request.rule.delay_minutes,
        },
        "streak": request.streak,
        "override_count_today": request.override_count_today,
        "appeal_of": (
            {"reason_text": request.appeal_of[0], "verdict": request.appeal_of[1].value}
            if request.appeal_of
            else None
        ),
    }


def request_from_inputs(inputs: dict[str, Any]) -> EvaluationInput:
    rule = inputs["rule"]
    appeal_of = inputs.get("appeal_of")
    return EvaluationInput(
        reason_text=inputs["reason_text"],
        trigger=Trigger(inputs["trigger"]),
        rule=RuleContext(
            summary=rule["summary"],
            app_display_name=rule["app_display_name"],
            next_action=rule["next_action"],
            remaining_minutes=int(rule["remaining_minutes"]),
            delay_minutes=int(rule["delay_minutes"]),
        ),
        streak=int(inputs["streak"]),
        override_count_today=int(inputs["override_count_today"]),
        appeal_of=(appeal_of["reason_text"], Verdict(appeal_of["verdict"])) if appeal_of else None,
    )
