"""The LLM path of a patient turn: have the model phrase the planned core, check it, or fall back.

`take_turn` runs the §13 hooks in order: `apply_learner_turn`, `plan_response`, the phrasing,
`finish_response`. The phrasing is the model's when an LLM is configured, the plan states case
facts, and the reply passes `factcheck`; otherwise (no LLM, any fault, a refused reply) it is the
offline generator's. A replay passes the recorded reply instead of calling, and gets the same
turn, draw for draw.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from persona_rails.llm.step import Source
from persona_rails.llm.structured import LlmFault, complete_structured, parse_reply
from persona_rails.observability import count, logger
from persona_rails.settings import LlmSettings
from sps_encounter.engine import factcheck, prompt
from sps_encounter.engine.compiled import Case
from sps_encounter.engine.learner import apply_learner_turn
from sps_encounter.engine.respond import PatientResponse, Plan, finish_response, plan_response
from sps_encounter.engine.state import SPSRuntimeState


@dataclass(frozen=True)
class Phrased:
    core: str
    source: Source
    model: str | None
    # The model's reply as received, kept even when refused: replaying it refuses it again.
    raw_reply: str | None
    fallback_reason: str | None
    violations: tuple[str, ...]
    latency_ms: int


def _checked(case: Case, plan: Plan, text: str, *, raw: str, model: str | None, latency_ms: int) -> Phrased:
    problems = tuple(factcheck.violations(case, plan, text, plan.learner_text))
    if problems:
        return Phrased(plan.core, Source.OFFLINE, model, raw, "fact_check", problems, latency_ms)
    return Phrased(text, Source.LLM, model, raw, None, (), latency_ms)


def phrase(case: Case, llm: LlmSettings, state: SPSRuntimeState, plan: Plan, learner_text: str) -> Phrased:
    if not (plan.phrasable and llm.configured):
        return Phrased(plan.core, Source.OFFLINE, None, None, None, (), 0)
    started = time.perf_counter()
    try:
        reply = complete_structured(
            llm,
            prompt.messages(case, state, plan, learner_text),
            schema=prompt.PatientReply,
            schema_name="sps_patient_reply",
            max_tokens=prompt.MAX_TOKENS,
            temperature=prompt.TEMPERATURE,
        )
    except LlmFault as fault:
        count("LlmFallback")
        logger.warning("llm fault, using the offline generator", extra={"fallback_reason": fault.reason})
        raw = fault.raw.replace("\x00", "\\u0000") if fault.raw is not None else None
        elapsed = int((time.perf_counter() - started) * 1000)
        return Phrased(plan.core, Source.OFFLINE, llm.model if raw else None, raw, fault.reason, (), elapsed)
    phrased = _checked(
        case, plan, reply.value.text, raw=reply.raw, model=reply.model, latency_ms=reply.latency_ms
    )
    if phrased.violations:
        count("FactCheckRejected")
        logger.warning("llm reply refused by the fact check", extra={"violations": list(phrased.violations)})
    return phrased


def replayed(case: Case, plan: Plan, raw_reply: str | None, fallback_reason: str | None) -> Phrased:
    """The phrasing a stored turn had, recomputed from its recorded reply with no network."""
    if raw_reply is None or not plan.phrasable:
        return Phrased(plan.core, Source.OFFLINE, None, None, fallback_reason, (), 0)
    try:
        reply = parse_reply(raw_reply, prompt.PatientReply)
    except LlmFault as fault:
        return Phrased(plan.core, Source.OFFLINE, None, raw_reply, fault.reason, (), 0)
    return _checked(case, plan, reply.text, raw=raw_reply, model=None, latency_ms=0)


PhraseFn = Callable[[Plan], Phrased]


@dataclass(frozen=True)
class TakenTurn:
    learner_index: int
    response: PatientResponse
    phrased: Phrased


def take_turn(
    case: Case,
    state: SPSRuntimeState,
    learner_text: str,
    phrasing: PhraseFn,
) -> TakenTurn:
    """Advance `state` by one learner utterance and the patient's answer."""
    learner = apply_learner_turn(case, state, learner_text)
    plan = plan_response(case, state, learner, learner_text)
    phrased = phrasing(plan)
    fact_check = (
        {"violations": list(phrased.violations), "used": "offline"}
        if phrased.violations
        else ({"violations": [], "used": "llm"} if phrased.source is Source.LLM else None)
    )
    response = finish_response(
        case,
        state,
        plan,
        phrased.core,
        source=phrased.source.value,
        fact_check=fact_check,
        fallback_reason=phrased.fallback_reason,
    )
    return TakenTurn(learner.turn_index, response, phrased)
