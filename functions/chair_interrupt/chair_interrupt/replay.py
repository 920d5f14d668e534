"""Replay a stored evaluation (decision kind `chair.interrupt`) with no network.

The engine runs again on the recorded context, the chairs that were on cooldown and the seed;
an LLM-decided evaluation is replayed from its recorded reply, parsed as it was then. A candidate
that lost its cooldown claim to a concurrent evaluation replays as `on_cooldown`, as it was stored.
"""

from __future__ import annotations

from typing import Any

from chair_interrupt.artifacts import chair_config
from chair_interrupt.engine.evaluate import (
    Decision,
    Outcome,
    eligible_chairs,
    gate,
    llm_decision,
)
from chair_interrupt.engine.model import Chair, EvaluationContext, Interruptions
from chair_interrupt.engine.prompt import LlmVerdict
from chair_interrupt.engine.quick import quick_check
from chair_interrupt.service import candidate_out, decide_offline
from persona_rails.decisions import DecisionRecord, NotReplayable
from persona_rails.llm.structured import LlmFault, parse_reply


def _chair(data: dict[str, Any]) -> Chair:
    return Chair(data["position"], data["framework"], data["model_id"], data.get("model_display_name"))


def replay(record: DecisionRecord) -> dict[str, Any]:
    config = chair_config()
    inputs = record.inputs
    if record.seed is None:
        raise NotReplayable("the evaluation's seed was not recorded")
    seed = int(record.seed)
    raw = inputs["context"]
    context = EvaluationContext(
        current_speaker=_chair(raw["current_speaker"]),
        other_chairs=tuple(_chair(chair) for chair in raw["other_chairs"]),
        recent_content=raw["recent_content"],
        debate_so_far=raw["debate_so_far"],
        topic=raw["topic"],
    )
    interruptions = Interruptions(**inputs["interruptions"])
    threshold = config.threshold(interruptions.aggressiveness)
    closed = gate(interruptions)
    eligible = eligible_chairs(context, frozenset(inputs["on_cooldown"]))
    if closed is not None:
        decision = Decision(closed)
    elif not eligible:
        decision = Decision(Outcome.NO_ELIGIBLE_CHAIR)
    elif record.raw_reply is not None:
        try:
            verdict = parse_reply(record.raw_reply, LlmVerdict)
        except LlmFault:
            decision = Decision(Outcome.MALFORMED_REPLY)
        else:
            decision = llm_decision(config, context, eligible, verdict, threshold=threshold, seed=seed)
    else:
        quick = quick_check(config, context.recent_content)
        decision = decide_offline(
            config, context, eligible, quick, aggressiveness=interruptions.aggressiveness, seed=seed
        )
    candidate = decision.candidate
    if candidate is not None and not inputs.get("cooldown_claimed", True):
        return {"outcome": Outcome.ON_COOLDOWN.value, "urgency": decision.urgency, "candidate": None}
    return {
        "outcome": decision.outcome.value,
        "urgency": decision.urgency,
        "candidate": candidate_out(candidate).model_dump(mode="json") if candidate else None,
    }
