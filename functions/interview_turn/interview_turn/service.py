"""The interview's use cases: read the session, run the pure engine, store the turn atomically.

Each turn reads the session and its last turn in one round trip, runs the engine (and the LLM,
when configured) holding no lock, then stores the turn with one conditional statement. If
another turn on the same session committed first, nothing was written: the turn is planned
again on the new state, so concurrent turns are serialized, each seeing the one before it. A
retry (same `Idempotency-Key`, or without a key the same request within the retry window)
returns the stored turn instead of taking a new one.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from interview_turn import repository
from interview_turn.artifacts import interview_config
from interview_turn.engine import assisted, prompt
from interview_turn.engine.config import InterviewConfig
from interview_turn.engine.model import ENGINE_VERSION, Language, SessionState, TopicPlanItem, TurnInput
from interview_turn.engine.safety import attached_constraints
from interview_turn.engine.signals import Signals, extract
from interview_turn.engine.turn import (
    Plan,
    TurnOutcome,
    finish_turn,
    initial_state,
    plan_opening,
    plan_turn,
    resolve_topic,
)
from interview_turn.schemas import (
    HistoryTurn,
    LoopOut,
    Narrator,
    PlannedTopic,
    SessionConsent,
    SessionOut,
    SessionStarted,
    SessionStateOut,
    StartSessionRequest,
    TopicOut,
    TurnContract,
    TurnMeta,
    TurnRequest,
    TurnResponse,
)
from interview_turn.settings import InterviewSettings
from persona_rails.db import Database
from persona_rails.errors import Conflict, NotFound
from persona_rails.idempotency import fingerprint
from persona_rails.identity import Caller
from persona_rails.llm.step import Source, StepResult, run_step
from persona_rails.llm.tokens import count_tokens
from persona_rails.observability import count, logger, milliseconds
from persona_rails.settings import LlmSettings, cached_settings

Row = dict[str, Any]
# Serialized turns re-plan when another turn wins the slot; beyond this many losses in a row
# the session is too busy to be fair to this request.
MAX_ATTEMPTS = 4
_CONTRACT_FIELDS = tuple(TurnContract.model_fields)


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


def _generate(
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


def _assisted_signals(
    config: InterviewConfig, llm: LlmSettings, state: SessionState, turn: TurnInput, previous: str | None
) -> tuple[Signals | None, StepResult[assisted.AssistedSignals | None] | None]:
    if not (llm.configured and cached_settings(InterviewSettings).llm_signals) or state.closed:
        return None, None
    topic_id = resolve_topic(config, state, turn.topic_id)
    topic = state.topic(topic_id)
    heuristic = extract(
        config, turn.user_text, topic_id=topic_id, topic=topic, turn_no=state.turn_no + 1
    ).signals
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
    return assisted.merge(heuristic, step.answer, topic.facts), step


def _contract(row: Row) -> dict[str, Any]:
    return {name: row[name] for name in _CONTRACT_FIELDS}


def _meta(row: Row, session_id: str, status: str) -> TurnMeta:
    return TurnMeta(
        turn_id=row["id"],
        turn_no=row["turn_no"],
        session_id=uuid.UUID(session_id),
        session_status=status,  # type: ignore[arg-type]
        config_version=row["config_version"],
        source=row["source"],
        created_at=row["created_at"],
    )


def _turn_response(row: Row, session_id: str, status: str) -> TurnResponse:
    return TurnResponse(
        **_contract(row),
        signals=row["signals"],
        winning_rule=row["winning_rule"],
        turn=_meta(row, session_id, status),
    )


def _turn_row(
    turn_id: str,
    generated: Generated,
    config: InterviewConfig,
    *,
    user_text: str | None,
    request_print: str | None,
    key: str | None,
) -> Row:
    outcome = generated.outcome
    telemetry = outcome.telemetry
    return {
        "id": turn_id,
        "user_text": user_text,
        "request_fingerprint": request_print,
        "idempotency_key": key,
        **outcome.contract,
        "signals": outcome.signals,
        "winning_rule": outcome.winning_rule,
        "depth_decision": telemetry["depth"]["decision"],
        "depth_reason": telemetry["depth"]["reason"],
        "violated_rule_ids": telemetry["safety"]["violated_rule_ids"],
        "telemetry": telemetry,
        "source": generated.source.value,
        "fallback_reason": generated.fallback_reason,
        "model": generated.model,
        "latency_ms": generated.latency_ms,
        "config_version": config.version,
        "engine_version": ENGINE_VERSION,
    }


def _record(generated: Generated, config: InterviewConfig, inputs: Row, seed: int) -> Row:
    outcome = generated.outcome
    raw = {name: reply for name, reply in generated.raw_replies.items() if reply is not None}
    return {
        "engine_version": ENGINE_VERSION,
        "config_version": config.version,
        "inputs": inputs,
        "output": {
            "contract": outcome.contract,
            "signals": outcome.signals,
            "winning_rule": outcome.winning_rule,
            "telemetry": outcome.telemetry,
        },
        "source": Source.LLM.value if raw else Source.OFFLINE.value,
        "model": generated.model,
        "raw_reply": json.dumps(raw, ensure_ascii=False) if raw else None,
        "seed": seed,
    }


def _log_turn(session_id: str, generated: Generated, turn_no: int) -> None:
    """Ids, scores and decisions only: the narrator's words and the reply never reach the logs."""
    outcome = generated.outcome
    safety = outcome.telemetry["safety"]
    count(f"Route{outcome.winning_rule.title().replace('_', '')}")
    if safety["violated_rule_ids"]:
        count("SafetyFallback")
        logger.warning(
            "SAFETY_FALLBACK: candidate reply rejected",
            extra={
                "session_id": session_id,
                "turn_no": turn_no,
                "violated_rule_ids": safety["violated_rule_ids"],
            },
        )
    if safety["hard_stop"]:
        count("HardStop")
    milliseconds("GenerationLatency", generated.latency_ms)
    logger.info(
        "interview turn",
        extra={
            "session_id": session_id,
            "turn_no": turn_no,
            "winning_rule": outcome.winning_rule,
            "persona_used": outcome.contract["persona_used"],
            "depth": [outcome.contract["depth_level_before"], outcome.contract["depth_level_after"]],
            "depth_reason": outcome.telemetry["depth"]["reason"],
            "safety_action": outcome.contract["safety_action"],
            "hard_stop": safety["hard_stop"],
            "signals": {
                name: value
                for name, value in (outcome.signals or {}).items()
                if name.endswith("_score") or name in {"refusal_or_discomfort", "user_initiated_elaboration"}
            },
            "source": generated.source.value,
            "fallback_reason": generated.fallback_reason,
        },
    )


# Starting a session


def _plan_items(request: StartSessionRequest) -> tuple[TopicPlanItem, ...]:
    return tuple(TopicPlanItem(**topic.model_dump()) for topic in request.topic_plan)


def _started(session: Row, opening: Row) -> SessionStarted:
    return SessionStarted(
        session_id=session["id"],
        status=session["status"],
        narrator=Narrator(display_name=session["narrator_name"]),
        language=session["language"],
        locale=session["locale"],
        topic_plan=[PlannedTopic(**item) for item in session["topic_plan"]],
        consent=SessionConsent(sensitive_topics=session["sensitive_consent"]),
        topic_id=opening["topic_id"],
        opening=TurnContract(**_contract(opening)),
        opening_turn=_meta(opening, str(session["id"]), session["status"]),
        created_at=session["created_at"],
    )


def _existing_start(db: Database, caller: Caller, session_id: str) -> SessionStarted:
    sessions, turns = db.run_as_user(
        caller.claims, repository.session(session_id), repository.turns(session_id)
    )
    opening = next(turn for turn in turns if turn["turn_no"] == 0)
    return _started(sessions[0], opening)


def start_session(
    db: Database, caller: Caller, request: StartSessionRequest, key: str | None
) -> tuple[SessionStarted, bool]:
    config = interview_config()
    start_print = fingerprint(request.model_dump(mode="json", exclude={"user_id"}))
    window = config.router.session.retry_window_seconds
    (earlier,) = db.run_as_user(
        caller.claims,
        repository.session_by_key(key) if key else repository.recent_start(start_print, window),
    )
    if earlier:
        if key and earlier[0]["start_fingerprint"] != start_print:
            raise Conflict(
                "idempotency_key_reused",
                "this Idempotency-Key started a different session",
                field="Idempotency-Key",
            )
        count("SessionStartReplayed")
        return _existing_start(db, caller, str(earlier[0]["id"])), False

    session_id = str(uuid.uuid4())
    state = initial_state(
        config,
        SessionState(
            language=Language(request.language),
            narrator_name=request.narrator.display_name,
            locale=request.locale,
            topic_plan=_plan_items(request),
            sensitive_consent=request.consent.sensitive_topics,
            topic_id="",
        ),
    )
    seed = turn_seed(session_id, 0)
    generated = _generate(config, cached_settings(LlmSettings), plan_opening(config, state, seed), None, None)
    opening = _turn_row(str(uuid.uuid4()), generated, config, user_text=None, request_print=None, key=None)
    session_row = {
        "id": session_id,
        "narrator_name": request.narrator.display_name,
        "language": state.language.value,
        "locale": request.locale,
        "topic_plan": [topic.model_dump() for topic in request.topic_plan],
        "sensitive_consent": state.sensitive_consent,
        "topic_id": state.topic_id,
        "engine_state": state.to_json(),
        "last_response_text": generated.outcome.contract["response_text"],
        "config_version": config.version,
        "idempotency_key": key,
        "start_fingerprint": start_print,
    }
    record = _record(generated, config, {"opening": True, "state": state.to_json()}, seed)
    inserted, _ = db.run_as_user(caller.claims, *repository.start_session(session_row, opening, record))
    if not inserted:
        # The same key won a race a moment ago: answer as its retry (or its conflict).
        return start_session(db, caller, request, key)
    count("SessionStarted")
    logger.info(
        "interview session started", extra={"session_id": session_id, "language": state.language.value}
    )
    return _existing_start(db, caller, session_id), True


# Taking a turn


def _replayed(
    last: Row | None, keyed: Row | None, key: str | None, request_print: str, window: int
) -> Row | None:
    """The stored turn this request is a retry of, if it is one."""
    if key:
        if keyed is None:
            return None
        if keyed["request_fingerprint"] != request_print:
            raise Conflict(
                "idempotency_key_reused",
                "this Idempotency-Key sent a different turn",
                field="Idempotency-Key",
            )
        return keyed
    if last is None or last["turn_no"] == 0 or last["idempotency_key"] is not None:
        return None
    age = (datetime.now(UTC) - last["created_at"]).total_seconds()
    return last if last["request_fingerprint"] == request_print and age <= window else None


def _found(rows: list[Row], session_id: str) -> Row:
    if not rows:
        # Another narrator's session is invisible under RLS and reads exactly like an unknown one.
        raise NotFound("session_not_found", f"no interview session {session_id}", field="session_id")
    return rows[0]


def submit_turn(
    db: Database, llm: LlmSettings, caller: Caller, session_id: str, request: TurnRequest, *, key: str | None
) -> TurnResponse:
    config = interview_config()
    consent = request.turn_consent()
    turn = TurnInput(
        user_text=request.user_text,
        topic_id=request.topic_id,
        go_deeper=consent.go_deeper,
        sensitive_consent=consent.sensitive_topics,
    )
    request_print = fingerprint(request.model_dump(mode="json"))
    for _ in range(MAX_ATTEMPTS):
        sessions, last_rows, keyed_rows = db.run_as_user(
            caller.claims,
            repository.session(session_id),
            repository.last_turn(session_id),
            repository.turn_by_key(session_id, key),
        )
        session = _found(sessions, session_id)
        last = last_rows[0] if last_rows else None
        stored = _replayed(
            last,
            keyed_rows[0] if keyed_rows else None,
            key,
            request_print,
            config.router.session.retry_window_seconds,
        )
        if stored is not None:
            count("TurnReplayed")
            return _turn_response(stored, session_id, session["status"])
        response = _take_turn(
            db, llm, caller, config=config, session=session, turn=turn, request_print=request_print, key=key
        )
        if response is not None:
            return response
        count("TurnSerialized")
    raise Conflict("session_busy", "other turns on this session keep arriving; retry shortly", state="busy")


def _take_turn(
    db: Database,
    llm: LlmSettings,
    caller: Caller,
    *,
    config: InterviewConfig,
    session: Row,
    turn: TurnInput,
    request_print: str,
    key: str | None,
) -> TurnResponse | None:
    session_id = str(session["id"])
    state = SessionState.from_json(session["engine_state"])
    previous = session["last_response_text"]
    seed = turn_seed(session_id, state.turn_no + 1)
    # The LLM calls happen here, between the read and the write: no row is locked meanwhile.
    merged, signal_step = _assisted_signals(config, llm, state, turn, previous)
    plan = plan_turn(config, state, turn, seed, merged)
    generated = _generate(config, llm, plan, turn.user_text, previous)
    if signal_step is not None:
        generated = Generated(
            generated.outcome,
            Source.LLM if signal_step.source is Source.LLM else generated.source,
            generated.model or signal_step.model,
            generated.fallback_reason or signal_step.fallback_reason,
            generated.latency_ms + signal_step.latency_ms,
            {"signals": signal_step.raw_reply, **generated.raw_replies},
        )
    outcome = generated.outcome
    after = outcome.state_after
    turn_id = str(uuid.uuid4())
    row = _turn_row(
        turn_id, generated, config, user_text=turn.user_text, request_print=request_print, key=key
    )
    inputs = {
        "state": state.to_json(),
        "turn": {
            "user_text": turn.user_text,
            "topic_id": turn.topic_id,
            "go_deeper": turn.go_deeper,
            "sensitive_consent": turn.sensitive_consent,
        },
        "previous_line": previous,
    }
    advance = {
        "topic_id": after.topic_id,
        "depth_level": after.topic(after.topic_id).depth,
        "sensitive_consent": after.sensitive_consent,
        "engine_state": after.to_json(),
        "last_response_text": outcome.contract["response_text"],
        "config_version": config.version,
        "closed_reason": outcome.closed_reason,
    }
    (written,) = db.run_as_user(
        caller.claims,
        repository.record_turn(
            session_id, plan.turn_no, advance, row, _record(generated, config, inputs, seed)
        ),
    )
    if not written:
        return None
    _log_turn(session_id, generated, plan.turn_no)
    return _turn_response(written[0], session_id, written[0]["session_status"])


# Reading a session


def get_session(db: Database, caller: Caller, session_id: str) -> SessionOut:
    sessions, turns = db.run_as_user(
        caller.claims, repository.session(session_id), repository.turns(session_id)
    )
    session = _found(sessions, session_id)
    state = SessionState.from_json(session["engine_state"])
    count("SessionRead")
    return SessionOut(
        session_id=session["id"],
        status=session["status"],
        closed_reason=session["closed_reason"],
        narrator=Narrator(display_name=session["narrator_name"]),
        language=session["language"],
        locale=session["locale"],
        topic_plan=[PlannedTopic(**item) for item in session["topic_plan"]],
        state=SessionStateOut(
            topic_id=state.topic_id,
            depth_level=state.topic(state.topic_id).depth,
            turn_count=state.turn_no,
            last_turn_increased_depth=state.last_increase,
            loop=LoopOut(machine=state.loop.machine, steps=state.loop.steps) if state.loop else None,
            sensitive_consent=state.sensitive_consent,
            topics=[
                TopicOut(
                    topic_id=topic_id,
                    depth_level=topic.depth,
                    escalations=topic.escalations,
                    facts=len(topic.facts),
                )
                for topic_id, topic in state.topics.items()
            ],
        ),
        turns=[
            HistoryTurn(
                **_contract(turn),
                turn_no=turn["turn_no"],
                turn_id=turn["id"],
                user_text=turn["user_text"],
                signals=turn["signals"],
                winning_rule=turn["winning_rule"],
                depth_decision=turn["depth_decision"],
                depth_reason=turn["depth_reason"],
                violated_rule_ids=turn["violated_rule_ids"],
                source=turn["source"],
                config_version=turn["config_version"],
                created_at=turn["created_at"],
            )
            for turn in turns
        ],
        created_at=session["created_at"],
        closed_at=session["closed_at"],
    )
