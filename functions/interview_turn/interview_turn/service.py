"""The interview's use cases: read the session, run the pure engine, store the turn atomically.

Each turn reads the session and its last turn in one round trip, runs the engine (and the LLM,
when configured) holding no lock, then stores the turn with one conditional statement. If
another turn on the same session committed first, nothing was written: the turn is planned
again on the new state, so concurrent turns are serialized, each seeing the one before it. A
retry (same `Idempotency-Key`, or without a key the same request within the retry window)
returns the stored turn instead of taking a new one.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from interview_turn import repository, views
from interview_turn.artifacts import interview_config
from interview_turn.engine.config import InterviewConfig
from interview_turn.engine.model import ENGINE_VERSION, Language, SessionState, TopicPlanItem, TurnInput
from interview_turn.engine.turn import initial_state, plan_opening, plan_turn
from interview_turn.generation import Generated, assisted_signals, generate, turn_seed, with_signal_step
from interview_turn.schemas import SessionOut, SessionStarted, StartSessionRequest, TurnRequest, TurnResponse
from persona_rails.db import Database, unknown_user_is_not_found
from persona_rails.errors import Conflict, NotFound
from persona_rails.idempotency import fingerprint, retried_turn
from persona_rails.identity import Caller
from persona_rails.llm.step import Source
from persona_rails.observability import count, logger, milliseconds
from persona_rails.settings import LlmSettings, cached_settings

Row = dict[str, Any]
# Serialized turns re-plan when another turn wins the slot; beyond this many losses in a row
# the session is too busy to be fair to this request.
MAX_ATTEMPTS = 8


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
        return views.started(earlier[0], earlier[0]["opening"]), False

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
    generated = generate(config, cached_settings(LlmSettings), plan_opening(config, state, seed), None, None)
    opening = _turn_row(str(uuid.uuid4()), generated, config, user_text=None, request_print=None, key=None)
    session_row = {
        "id": session_id,
        "narrator_name": request.narrator.display_name,
        "language": state.language.value,
        "locale": request.locale,
        "topic_plan": [topic.model_dump() for topic in request.topic_plan],
        "sensitive_consent": state.sensitive_consent,
        "topic_id": state.topic_id,
        # The opening's line is remembered too, so that no later turn says it again.
        "engine_state": generated.outcome.state_after.to_json(),
        "last_response_text": generated.outcome.contract["response_text"],
        "config_version": config.version,
        "idempotency_key": key,
        "start_fingerprint": start_print,
    }
    record = _record(generated, config, {"opening": True, "state": state.to_json()}, seed)
    with unknown_user_is_not_found():
        inserted, openings = db.run_as_user(
            caller.claims, *repository.start_session(session_row, opening, record)
        )
    if not inserted:
        # The same key won a race a moment ago: answer as its retry (or its conflict).
        return start_session(db, caller, request, key)
    count("SessionStarted")
    logger.info(
        "interview session started", extra={"session_id": session_id, "language": state.language.value}
    )
    return views.started(inserted[0], openings[0]), True


# Taking a turn


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
        # The session's opening line (turn 0) is no turn a request made.
        last = last_rows[0] if last_rows and last_rows[0]["turn_no"] > 0 else None
        stored = retried_turn(
            last,
            keyed_rows[0] if keyed_rows else None,
            key,
            request_print,
            config.router.session.retry_window_seconds,
        )
        if stored is not None:
            count("TurnReplayed")
            return views.turn_response(stored, session_id, session["status"])
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
    merged, signal_step = assisted_signals(config, llm, state, turn, previous)
    plan = plan_turn(config, state, turn, seed, merged)
    generated = generate(config, llm, plan, turn.user_text, previous)
    if signal_step is not None:
        generated = with_signal_step(generated, signal_step)
    outcome = generated.outcome
    after = outcome.state_after
    turn_id = str(uuid.uuid4())
    row = _turn_row(
        turn_id, generated, config, user_text=turn.user_text, request_print=request_print, key=key
    )
    inputs = {
        # The state as read: the row's JSON already is what replay needs.
        "state": session["engine_state"],
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
    return views.turn_response(written[0], session_id, written[0]["session_status"])


# Reading a session


def get_session(db: Database, caller: Caller, session_id: str) -> SessionOut:
    sessions, turns = db.run_as_user(
        caller.claims, repository.session(session_id), repository.turns(session_id)
    )
    count("SessionRead")
    return views.session_out(_found(sessions, session_id), turns)
