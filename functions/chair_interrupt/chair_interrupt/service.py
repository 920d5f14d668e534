"""The interruption use cases: read the debate's cooldowns, decide, record atomically.

An evaluation reads which chairs are on cooldown (one round trip), decides with the pure engine
(asking the LLM only when the quick check or the aggressiveness calls for it, holding no lock),
then claims the interrupting chair's cooldown, logs the interrupt and stores the decision record
in one statement (the second round trip). If a concurrent evaluation claimed that chair first,
this one answers "no interrupt": the cooldown holds across any number of function instances.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass
from typing import Any

from chair_interrupt import repository
from chair_interrupt.artifacts import chair_config, chair_model
from chair_interrupt.engine.config import ChairConfig
from chair_interrupt.engine.evaluate import (
    Decision,
    Outcome,
    asks_llm,
    eligible_chairs,
    gate,
    llm_decision,
    offline_decision,
    seed_for,
)
from chair_interrupt.engine.model import (
    ENGINE_VERSION,
    Candidate,
    Chair,
    EvaluationContext,
    Interruptions,
    QuickCheck,
)
from chair_interrupt.engine.prompt import MAX_TOKENS, TEMPERATURE, LlmVerdict, messages
from chair_interrupt.engine.quick import quick_check
from chair_interrupt.schemas import (
    CandidateOut,
    ChairIn,
    ChairOut,
    EvaluateRequest,
    QuickCheckResult,
    ResetOut,
    StatsOut,
)
from persona_rails.db import Database, unknown_user_is_not_found
from persona_rails.errors import Invalid
from persona_rails.idempotency import fingerprint
from persona_rails.identity import Caller
from persona_rails.llm.step import Source
from persona_rails.llm.structured import LlmFault, complete_structured
from persona_rails.observability import count, logger
from persona_rails.settings import LlmSettings

Row = dict[str, Any]
# A reply that is not the JSON asked for is the model's answer, and the spec's answer to it is
# "no interrupt"; a fault of the call itself (timeout, 5xx, rate limit) falls back to the
# offline evaluator, like every engine's LLM step.
_UNUSABLE_REPLY = frozenset({"malformed", "out_of_range"})


def _chair(chair: ChairIn) -> Chair:
    return Chair(chair.position, chair.framework, chair.model_id, chair.model_display_name)


def _chair_out(chair: Chair) -> ChairOut:
    return ChairOut(
        position=chair.position,
        framework=chair.framework,
        model_id=chair.model_id,
        model_display_name=chair.model_display_name,
    )


def candidate_out(candidate: Candidate) -> CandidateOut:
    return CandidateOut(
        interrupting_chair=_chair_out(candidate.interrupting_chair),
        interrupted_chair=_chair_out(candidate.interrupted_chair),
        trigger_reason=candidate.trigger_reason,
        trigger_content=candidate.trigger_content,
        urgency=candidate.urgency,
        suggested_opener=candidate.suggested_opener,
    )


def context_of(request: EvaluateRequest) -> EvaluationContext:
    return EvaluationContext(
        current_speaker=_chair(request.current_speaker),
        other_chairs=tuple(_chair(chair) for chair in request.other_chairs),
        recent_content=request.recent_content,
        debate_so_far=request.debate_so_far,
        topic=request.topic,
    )


@dataclass(frozen=True)
class Evaluated:
    decision: Decision
    source: Source
    model: str | None
    raw_reply: str | None
    fallback_reason: str | None


def decide_offline(
    config: ChairConfig,
    context: EvaluationContext,
    eligible: list[Chair],
    quick: QuickCheck,
    *,
    aggressiveness: int,
    seed: int,
) -> Decision:
    """The offline evaluator with the shipped local scorer (models/chair.json)."""
    return offline_decision(
        config, context, eligible, quick, aggressiveness=aggressiveness, seed=seed, model=chair_model()
    )


def decide(
    config: ChairConfig,
    llm: LlmSettings,
    context: EvaluationContext,
    interruptions: Interruptions,
    *,
    eligible: list[Chair],
    quick: QuickCheck,
    seed: int,
) -> Evaluated:
    """The quick check first; then the LLM when configured and called for, else offline."""
    threshold = config.threshold(interruptions.aggressiveness)
    if not (llm.configured and asks_llm(config, quick, interruptions.aggressiveness)):
        return Evaluated(
            decide_offline(
                config, context, eligible, quick, aggressiveness=interruptions.aggressiveness, seed=seed
            ),
            Source.OFFLINE,
            None,
            None,
            None,
        )
    try:
        reply = complete_structured(
            llm,
            messages(config, context, eligible, interruptions.aggressiveness),
            schema=LlmVerdict,
            schema_name="chair_interrupt",
            max_tokens=MAX_TOKENS,
            temperature=TEMPERATURE,
        )
    except LlmFault as fault:
        if fault.reason in _UNUSABLE_REPLY and fault.raw is not None:
            logger.warning("unusable interrupt evaluation", extra={"fallback_reason": fault.reason})
            count("InterruptReplyRejected")
            # Postgres text cannot hold NUL. Written as its JSON escape the reply still reads as
            # malformed (parse_reply refuses a NUL in any value), so its replay is the same.
            raw = fault.raw.replace("\x00", "\\u0000")
            return Evaluated(Decision(Outcome.MALFORMED_REPLY), Source.LLM, llm.model, raw, fault.reason)
        logger.warning("llm fault, using the offline evaluator", extra={"fallback_reason": fault.reason})
        count("LlmFallback")
        decision = decide_offline(
            config, context, eligible, quick, aggressiveness=interruptions.aggressiveness, seed=seed
        )
        return Evaluated(decision, Source.OFFLINE, None, None, fault.reason)
    decision = llm_decision(config, context, eligible, reply.value, threshold=threshold, seed=seed)
    return Evaluated(decision, Source.LLM, reply.model, reply.raw, None)


def _output(outcome: Outcome, urgency: float | None, candidate: Candidate | None) -> Row:
    return {
        "outcome": outcome.value,
        "urgency": urgency,
        "candidate": candidate_out(candidate).model_dump(mode="json") if candidate else None,
    }


def roster_of(request: EvaluateRequest) -> dict[str, str]:
    chairs = [request.current_speaker, *request.other_chairs]
    return {chair.position: chair.framework for chair in chairs}


def joining_chairs(roster: dict[str, str], request: EvaluateRequest) -> dict[str, str]:
    """The chairs this evaluation adds to the debate's roster (a chair may join a debate).

    A seat keeps its framework, and a framework its seat: a known seat with another framework,
    or a new seat for a framework another seat already holds, is refused, so a chair cannot
    escape its cooldown under a new name."""
    named = [("current_speaker", request.current_speaker)] + [
        (f"other_chairs[{index}]", chair) for index, chair in enumerate(request.other_chairs)
    ]
    holders = {framework: position for position, framework in roster.items()}
    joining: dict[str, str] = {}
    for field, chair in named:
        known = roster.get(chair.position)
        holder = holders.get(chair.framework)
        if (known is not None and known != chair.framework) or (known is None and holder is not None):
            raise Invalid(
                "chair_not_in_debate",
                f"{chair.position} ({chair.framework}) does not match this debate's chairs: "
                + ", ".join(f"{position} ({framework})" for position, framework in sorted(roster.items())),
                field=field,
            )
        if known is None:
            joining[chair.position] = chair.framework
    return joining


def context_hash(request: EvaluateRequest) -> str:
    return hashlib.sha256(
        json.dumps(request.model_dump(mode="json", exclude={"user_id"}), sort_keys=True).encode()
    ).hexdigest()


def evaluate(
    db: Database, llm: LlmSettings, caller: Caller, debate_id: str, request: EvaluateRequest
) -> tuple[CandidateOut | None, str]:
    """The candidate (or None) and the evaluation's id (its decision record)."""
    config = chair_config()
    interruptions = Interruptions(**request.interruptions.model_dump())
    context = context_of(request)
    evaluation_id = str(uuid.uuid4())
    seed = seed_for(debate_id, fingerprint(request.model_dump(mode="json", exclude={"user_id"})))
    on_cooldown: frozenset[str] = frozenset()
    quick: QuickCheck | None = None
    new_roster: dict[str, str] | None = None
    closed = gate(interruptions)
    if closed is not None:
        evaluated = Evaluated(Decision(closed), Source.OFFLINE, None, None, None)
    else:
        rows, rosters = db.run_as_user(
            caller.claims,
            repository.on_cooldown(debate_id, interruptions.cooldown_seconds),
            repository.roster(debate_id),
        )
        new_roster = joining_chairs(rosters[0]["roster"], request) if rosters else roster_of(request)
        on_cooldown = frozenset(row["chair_position"] for row in rows)
        eligible = eligible_chairs(context, on_cooldown)
        quick = quick_check(config, context.recent_content)
        if not eligible:
            evaluated = Evaluated(Decision(Outcome.NO_ELIGIBLE_CHAIR), Source.OFFLINE, None, None, None)
        else:
            evaluated = decide(config, llm, context, interruptions, eligible=eligible, quick=quick, seed=seed)
    decision = evaluated.decision
    candidate = decision.candidate
    inputs = {
        "context_hash": context_hash(request),
        "context": {
            "current_speaker": request.current_speaker.model_dump(mode="json"),
            "other_chairs": [chair.model_dump(mode="json") for chair in request.other_chairs],
            "recent_content": request.recent_content,
            # Only what the prompt reads; the hash covers the whole.
            "debate_so_far": request.debate_so_far[-config.policy.context_chars :],
            "topic": request.topic,
        },
        "interruptions": request.interruptions.model_dump(mode="json"),
        "threshold": config.threshold(interruptions.aggressiveness),
        "on_cooldown": sorted(on_cooldown),
        "quick_check": None
        if quick is None
        else {
            "potential_trigger": quick.potential_trigger,
            "likely_reason": quick.likely_reason.value if quick.likely_reason else None,
        },
        "fallback_reason": evaluated.fallback_reason,
    }
    interrupt = None
    if candidate is not None:
        interrupt = {
            "interrupting_chair": candidate.interrupting_chair.position,
            "interrupted_chair": candidate.interrupted_chair.position,
            "interrupting_framework": candidate.interrupting_chair.framework,
            "interrupted_framework": candidate.interrupted_chair.framework,
            "trigger_reason": candidate.trigger_reason.value,
            "trigger_content": candidate.trigger_content,
            "urgency": candidate.urgency,
            "suggested_opener": candidate.suggested_opener,
            "source": evaluated.source.value,
        }
    record = {
        "engine_version": ENGINE_VERSION,
        "config_version": config.version,
        "inputs": inputs,
        "output": _output(decision.outcome, decision.urgency, candidate),
        # What the record says if a concurrent evaluation claimed the chair first.
        "lost_output": _output(Outcome.ON_COOLDOWN, decision.urgency, None),
        "source": Source.LLM.value if evaluated.raw_reply is not None else Source.OFFLINE.value,
        "model": evaluated.model,
        "raw_reply": evaluated.raw_reply,
        "seed": seed,
    }
    evaluation = {
        "id": evaluation_id,
        "debate_id": debate_id,
        "cooldown_seconds": interruptions.cooldown_seconds,
        "new_roster": new_roster,
    }
    with unknown_user_is_not_found():
        ((written,),) = db.run_as_user(
            caller.claims, repository.record_evaluation(evaluation, interrupt, record)
        )
    interrupted = candidate is not None and written["claimed"]
    outcome = (
        Outcome.INTERRUPT
        if interrupted
        else (Outcome.ON_COOLDOWN if candidate is not None else decision.outcome)
    )
    count("Interrupt" if interrupted else "NoInterrupt")
    logger.info(
        "interrupt evaluated",
        extra={
            "debate_id": debate_id,
            "evaluation_id": evaluation_id,
            "outcome": outcome.value,
            "reason": candidate.trigger_reason.value if interrupted and candidate else None,
            "urgency": decision.urgency,
            "source": evaluated.source.value,
            "on_cooldown": sorted(on_cooldown),
        },
    )
    return (candidate_out(candidate) if interrupted and candidate else None), evaluation_id


def quick(content: str) -> QuickCheckResult:
    result = quick_check(chair_config(), content)
    return QuickCheckResult(potential_trigger=result.potential_trigger, likely_reason=result.likely_reason)


def stats(db: Database, caller: Caller, debate_id: str) -> StatsOut:
    ((row,),) = db.run_as_user(caller.claims, repository.stats(debate_id))
    return StatsOut(total_interrupts=row["total"], by_chair=row["by_chair"], by_reason=row["by_reason"])


def reset_cooldowns(db: Database, caller: Caller, debate_id: str) -> ResetOut:
    (rows,) = db.run_as_user(caller.claims, repository.reset_cooldowns(debate_id))
    count("CooldownsReset")
    return ResetOut(debate_id=uuid.UUID(debate_id), cleared=sorted(row["chair_position"] for row in rows))
