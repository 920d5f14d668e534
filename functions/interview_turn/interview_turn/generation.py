"""The Generator and the LLM-assisted signals: the turn's two optional LLM calls.

Each call goes through the layer's `run_step`, so any fault falls back to the engine's own
answer (the template line, or the heuristic signals) and says why. The raw replies are kept for
the decision record: replaying them reproduces the turn with no network.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from interview_turn.engine import assisted, prompt
from interview_turn.engine.config import InterviewConfig
from interview_turn.engine.model import SessionState, TurnInput
from interview_turn.engine.safety import attached_constraints
from interview_turn.engine.signals import Signals
from interview_turn.engine.turn import Plan, TurnOutcome, finish_turn, merged_signals, resolve_topic
from interview_turn.settings import InterviewSettings
from persona_rails.llm.step import Source, StepResult, run_step
from persona_rails.llm.tokens import count_tokens
from persona_rails.settings import LlmSettings, cached_settings


def turn_seed(session_id: str, turn_no: int) -> int:
    """The template draw of a turn: fixed by the session and the turn number, so replays match."""
    digest = hashlib.sha256(f"{session_id}:{turn_no}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


@dataclass(frozen=True)
class Generated:
    outcome: TurnOutcome
    source: Source
    model: str | None
    fallback_reason: str | None
    latency_ms: int
    raw_replies: dict[str, str | None]


def generate(
    config: InterviewConfig, llm: LlmSettings, plan: Plan, user_text: str | None, previous: str | None
) -> Generated:
    """The Generator: the LLM with the persona, tactic and constraints attached, or the template."""
    example = plan.offline_line()
    step: StepResult[str]
    if plan.uses_llm and llm.configured and user_text is not None:
        step = run_step(
            llm,
            name="interview_turn",
            messages=lambda: prompt.messages(
                config,
                persona=plan.persona,
                tactic=plan.tactic,
                depth_level=plan.depth_after,
                language=plan.language,
                constraints=attached_constraints(config, plan.persona),
                example=example,
                previous_line=previous,
                user_text=user_text,
            ),
            reply_model=prompt.GeneratedTurn,
            from_reply=lambda reply: reply.response_text,
            offline=lambda: example,
        )
    else:
        step = StepResult(example, Source.OFFLINE, None, None, 0, None)
    outcome = finish_turn(config, plan, step.answer, count_tokens)
    return Generated(
        outcome,
        step.source,
        step.model,
        step.fallback_reason,
        step.latency_ms,
        {"generation": step.raw_reply},
    )


def assisted_signals(
    config: InterviewConfig, llm: LlmSettings, state: SessionState, turn: TurnInput, previous: str | None
) -> tuple[Signals | None, StepResult[assisted.AssistedSignals | None] | None]:
    if not (llm.configured and cached_settings(InterviewSettings).llm_signals) or state.closed:
        return None, None
    topic = state.topic(resolve_topic(config, state, turn.topic_id))
    step: StepResult[assisted.AssistedSignals | None] = run_step(
        llm,
        name="interview_signals",
        messages=lambda: assisted.messages(turn.user_text, topic.facts, previous),
        reply_model=assisted.AssistedSignals,
        from_reply=lambda reply: reply,
        offline=lambda: None,
    )
    if step.answer is None:
        return None, step
    return merged_signals(config, state, turn, step.answer), step


def with_signal_step(generated: Generated, step: StepResult[assisted.AssistedSignals | None]) -> Generated:
    """The turn's record when the signals were scored by the LLM too: both replies, the summed latency."""
    return Generated(
        generated.outcome,
        Source.LLM if step.source is Source.LLM else generated.source,
        generated.model or step.model,
        generated.fallback_reason or step.fallback_reason,
        generated.latency_ms + step.latency_ms,
        {"signals": step.raw_reply, **generated.raw_replies},
    )
