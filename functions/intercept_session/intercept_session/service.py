"""The dialog's use cases: load state, run the pure engine, persist the result atomically.

Nothing here trusts process memory or the client's counters: each step re-reads the session
under the caller's row-level security, and every write is guarded by a constraint or a
conditional UPDATE, so retries and races resolve in Postgres.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from datetime import datetime, timedelta
from typing import Any

from intercept_session import repository
from intercept_session.engine import state_machine
from intercept_session.engine.messages import (
    RECOMMENDED_ACTION,
    VERDICT_BADGE,
    challenge_message,
    verdict_message,
)
from intercept_session.engine.model import EvaluationInput, RuleContext, State, Trigger, Verdict
from intercept_session.evaluation import evaluate
from intercept_session.schemas import (
    DecisionRequest,
    DecisionResult,
    PersonaOut,
    SessionOut,
    SessionStarted,
    StartSessionRequest,
    TurnResult,
)
from persona_rails.auth import Claims
from persona_rails.db import Database, Tx
from persona_rails.http.errors import conflict, not_found, unprocessable
from persona_rails.interception_personas import catalog
from persona_rails.observability import count, logger, milliseconds
from persona_rails.settings import LlmSettings

Row = dict[str, Any]
DIALOG_COMPLETED = "interception.dialog_completed"


def fingerprint(payload: Any) -> str:
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _rule_context(rule: Row) -> RuleContext:
    return RuleContext(
        summary=rule["summary"],
        app_display_name=rule["app_display_name"],
        next_action=rule["next_action"],
        remaining_minutes=rule["remaining_minutes"],
        delay_minutes=rule["delay_minutes"],
    )


def _view(session: Row) -> state_machine.SessionView:
    verdict = session["final_verdict"]
    return state_machine.SessionView(
        state=State(session["state"]),
        evaluation_turns=session["evaluation_turns"],
        final_verdict=Verdict(verdict) if verdict else None,
    )


def _persona_out(session: Row) -> PersonaOut:
    persona = catalog().get(session["persona_key"])
    return PersonaOut(
        key=persona.key,
        display_name=persona.display_name,
        avatar_asset_key=persona.avatar_asset_key,
        version=session["persona_version"],
    )


def _load_session(tx: Tx, session_id: str, *, lock: str | None = None) -> Row:
    session = repository.get_session(tx, session_id, lock=lock)
    if session is None:
        # A foreign session is invisible under RLS and reads exactly like an unknown one.
        raise not_found("session_not_found", f"no session {session_id}", field="session_id")
    return session


def _load_rule(tx: Tx, rule_id: Any) -> Row:
    rule = repository.get_rule(tx, str(rule_id)) if rule_id else None
    if rule is None:
        raise not_found("rule_not_found", f"no rule {rule_id} for this user", field="rule_id")
    return rule


def start_session(
    db: Database, claims: Claims, request: StartSessionRequest, now: datetime
) -> tuple[SessionStarted, bool]:
    persona = catalog().get(request.persona_key)
    session_id = str(request.session_id or uuid.uuid4())
    offset = request.timestamp.utcoffset() or timedelta(0)
    with db.as_user(claims.raw) as tx:
        rule = _load_rule(tx, request.rule_id)
        if rule["app_identifier"] != request.app_identifier:
            raise unprocessable(
                "app_mismatch", "app_identifier is not the app this rule governs", field="app_identifier"
            )
        start_print = fingerprint(request.model_dump(mode="json", exclude={"session_id"}))
        session = repository.insert_session(
            tx,
            {
                "id": session_id,
                "rule_id": str(request.rule_id),
                "app_identifier": request.app_identifier,
                "app_display_name": request.app_display_name,
                "trigger": request.trigger.value,
                "persona_key": persona.key,
                "persona_version": persona.version,
                "client_timestamp": request.timestamp.isoformat(),
                "utc_offset_minutes": int(offset.total_seconds() // 60),
                "local_date": (now + offset).date().isoformat(),
                "client_streak": request.streak,
                "client_override_count_today": request.override_count_today,
                "start_fingerprint": start_print,
            },
        )
        created = session is not None
        if session is None:
            session = repository.get_session(tx, session_id)
            if session is None or session["start_fingerprint"] != start_print:
                raise conflict("session_id_conflict", "session_id is already used by a different session")
    count("SessionStarted" if created else "SessionStartReplayed")
    if created:
        logger.info("session started", extra={"session_id": session_id, "persona_key": persona.key})
    started = SessionStarted(
        session_id=session["id"],
        persona=_persona_out(session),
        state=State(session["state"]),
        challenge_message=challenge_message(persona, _rule_context(rule), session["app_display_name"]),
    )
    return started, created


def _turn_result(turn: Row, session: Row) -> TurnResult:
    view = _view(session)
    return TurnResult(
        session_id=turn["session_id"],
        turn_no=turn["turn_no"],
        ai_verdict=turn["ai_verdict"],
        confidence=float(turn["confidence"]),
        reason_category=turn["reason_category"],
        persona_response=turn["persona_response"],
        recommended_action=turn["recommended_action"],
        verdict_badge=VERDICT_BADGE[Verdict(turn["ai_verdict"])],
        delay_minutes=turn["delay_minutes"],
        emergency=turn["emergency"],
        appeal_used=turn["appeal_used"],
        can_appeal=state_machine.can_appeal(view),
        state=view.state,
        source=turn["source"],
    )


def _replay_or_conflict(turns: list[Row], turn_no: int, text_print: str, session: Row) -> TurnResult:
    """A retried turn returns what was stored; a different text for a taken slot is a conflict."""
    existing = next((turn for turn in turns if turn["turn_no"] == turn_no), None)
    if existing is not None and existing["text_fingerprint"] == text_print:
        count("TurnReplayed")
        return _turn_result(existing, session)
    check = state_machine.check_reason if turn_no == 1 else state_machine.check_appeal
    check(_view(session))
    raise AssertionError("a taken slot always fails its state check")


def submit_turn(
    db: Database, llm: LlmSettings, claims: Claims, session_id: str, text: str, *, turn_no: int
) -> TurnResult:
    text_print = fingerprint(text)
    with db.as_user(claims.raw) as tx:
        session = _load_session(tx, session_id, lock="share")
        turns = repository.get_turns(tx, session_id)
        if any(turn["turn_no"] >= turn_no for turn in turns) or session["state"] == State.CLOSED:
            return _replay_or_conflict(turns, turn_no, text_print, session)
        check = state_machine.check_reason if turn_no == 1 else state_machine.check_appeal
        check(_view(session))
        rule = _rule_context(_load_rule(tx, session["rule_id"]))
        overrides_today, streak = repository.day_stats(tx, session["utc_offset_minutes"])
    first = turns[0] if turns else None
    request = EvaluationInput(
        reason_text=text,
        trigger=Trigger(session["trigger"]),
        rule=rule,
        streak=streak,
        override_count_today=overrides_today,
        appeal_of=(first["reason_text"], Verdict(first["ai_verdict"])) if first else None,
    )
    persona = catalog().get(session["persona_key"])
    # The LLM call happens outside any transaction: no row lock is held while it thinks.
    outcome = evaluate(llm, persona, request)
    verdict = outcome.evaluation.verdict
    with db.as_user(claims.raw) as tx:
        turn = repository.insert_turn(
            tx,
            {
                "session_id": session_id,
                "turn_no": turn_no,
                "reason_text": text,
                "reason_category": outcome.evaluation.category.value,
                "ai_verdict": verdict.value,
                "confidence": outcome.evaluation.confidence,
                "persona_response": verdict_message(persona, verdict, rule),
                "appeal_used": turn_no == 2,
                "emergency": outcome.evaluation.emergency,
                "recommended_action": RECOMMENDED_ACTION[verdict].value,
                "delay_minutes": rule.delay_minutes if verdict is Verdict.DELAY else None,
                "justification": outcome.evaluation.justification[:600],
                "source": outcome.source.value,
                "fallback_reason": outcome.fallback_reason,
                "model": outcome.model,
                "latency_ms": outcome.latency_ms,
                "override_count_today": overrides_today,
                "streak": streak,
                "text_fingerprint": text_print,
            },
        )
        if turn is None or not repository.advance_after_turn(
            tx, session_id, turn_no, verdict.value, outcome.evaluation.emergency
        ):
            raise _Raced()
        session = _load_session(tx, session_id)
    count(f"Verdict{verdict.value.title()}")
    milliseconds("EvaluationLatency", outcome.latency_ms)
    logger.info(
        "turn evaluated",
        extra={
            "session_id": session_id,
            "turn_no": turn_no,
            "verdict": verdict.value,
            "category": outcome.evaluation.category.value,
            "source": outcome.source.value,
            "fallback_reason": outcome.fallback_reason,
            "latency_ms": outcome.latency_ms,
        },
    )
    return _turn_result(turn, session)


class _Raced(Exception):
    """Another request took the turn's slot or moved the session while this one was evaluating."""


def submit_turn_settled(
    db: Database, llm: LlmSettings, claims: Claims, session_id: str, text: str, *, turn_no: int
) -> TurnResult:
    try:
        return submit_turn(db, llm, claims, session_id, text, turn_no=turn_no)
    except _Raced:
        # The transaction rolled back; the winner's row is committed, so re-reading settles it.
        with db.as_user(claims.raw) as tx:
            session = _load_session(tx, session_id, lock="share")
            turns = repository.get_turns(tx, session_id)
        return _replay_or_conflict(turns, turn_no, fingerprint(text), session)


def _decision_result(session: Row) -> DecisionResult:
    return DecisionResult(
        session_id=session["id"],
        state=State(session["state"]),
        user_decision=session["user_decision"],
        final_verdict=session["final_verdict"],
        accepted_delay=bool(session["accepted_delay"]),
        auto_dismissed=bool(session["auto_dismissed"]),
        emergency=session["emergency"],
        closed_at=session["closed_at"],
    )


_TURN_FIELDS = (
    "reason_text",
    "reason_category",
    "ai_verdict",
    "confidence",
    "persona_response",
    "user_decision",
    "appeal_used",
    "source",
    "latency_ms",
)


def _turn_fields(turn: Row) -> Row:
    fields = {field: turn[field] for field in _TURN_FIELDS}
    fields["confidence"] = float(turn["confidence"])
    return fields


def _completed_event(session: Row, turns: list[Row]) -> Row:
    """The spec's per-turn fields for the turn that decided the dialog at the top level (null
    before any reason), every turn under `turns`, and the session's outcome."""
    last = _turn_fields(turns[-1]) if turns else dict.fromkeys(_TURN_FIELDS)
    return {
        **last,
        "session_id": str(session["id"]),
        "persona_key": session["persona_key"],
        "persona_version": session["persona_version"],
        "trigger": session["trigger"],
        "app_identifier": session["app_identifier"],
        "final_verdict": session["final_verdict"],
        "user_decision": session["user_decision"],
        "appeal_used": len(turns) > 1,
        "accepted_delay": session["accepted_delay"],
        "auto_dismissed": session["auto_dismissed"],
        "emergency": session["emergency"],
        "emergency_reason": session["emergency_reason"],
        "evaluation_turns": len(turns),
        "response_latency_ms": int((session["closed_at"] - session["created_at"]).total_seconds() * 1000),
        "turns": [_turn_fields(turn) for turn in turns],
    }


def decide(db: Database, claims: Claims, session_id: str, request: DecisionRequest) -> DecisionResult:
    decision_print = fingerprint(request.model_dump(mode="json"))
    with db.as_user(claims.raw) as tx:
        # FOR UPDATE queues concurrent decisions on the same session behind this one.
        session = _load_session(tx, session_id, lock="update")
        if session["state"] == State.CLOSED and session["decision_fingerprint"] == decision_print:
            count("DecisionReplayed")
            return _decision_result(session)
        state_machine.check_decision(
            _view(session), request.user_decision, accepted_delay=request.accepted_delay
        )
        closed = repository.close_session(
            tx,
            session_id,
            {
                "user_decision": request.user_decision.value,
                "accepted_delay": request.accepted_delay,
                "auto_dismissed": request.auto_dismissed,
                "emergency_reason": request.emergency_reason,
                "decision_fingerprint": decision_print,
            },
        )
        assert closed is not None, "the row is locked and open"
        repository.record_decision_on_turns(tx, session_id, request.user_decision.value)
        turns = repository.get_turns(tx, session_id)
        repository.insert_event(tx, session_id, DIALOG_COMPLETED, _completed_event(closed, turns))
    count(f"Decision{request.user_decision.value.title()}")
    logger.info(
        "session closed",
        extra={
            "session_id": session_id,
            "decision": request.user_decision.value,
            "auto_dismissed": request.auto_dismissed,
            "accepted_delay": request.accepted_delay,
        },
    )
    return _decision_result(closed)


def get_session(db: Database, claims: Claims, session_id: str) -> SessionOut:
    with db.as_user(claims.raw) as tx:
        session = _load_session(tx, session_id, lock="share")
        turns = repository.get_turns(tx, session_id)
        rule = repository.get_rule(tx, str(session["rule_id"])) if session["rule_id"] else None
    count("SessionResumed")
    persona = catalog().get(session["persona_key"])
    context = _rule_context(rule) if rule else RuleContext("", session["app_display_name"], "-", 0, 1)
    return SessionOut(
        session_id=session["id"],
        state=State(session["state"]),
        persona=_persona_out(session),
        challenge_message=challenge_message(persona, context, session["app_display_name"]),
        app_identifier=session["app_identifier"],
        app_display_name=session["app_display_name"],
        trigger=Trigger(session["trigger"]),
        evaluation_turns=session["evaluation_turns"],
        can_appeal=state_machine.can_appeal(_view(session)),
        turns=[_turn_result(turn, session) for turn in turns],
        decision=_decision_result(session) if session["state"] == State.CLOSED else None,
        created_at=session["created_at"],
    )
