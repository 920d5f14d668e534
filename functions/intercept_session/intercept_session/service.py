"""The dialog's use cases: load state, run the pure engine, persist the result atomically.

Nothing here trusts process memory or the client's counters: each step re-reads the session
under the caller's row-level security, and every write is guarded by a constraint or a
conditional UPDATE, so retries and races resolve in Postgres.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

from intercept_session import repository
from intercept_session.engine import state_machine
from intercept_session.engine.messages import VERDICT_BADGE, challenge_message
from intercept_session.engine.model import EvaluationInput, RuleContext, State, Trigger, Verdict
from intercept_session.engine.turn import ENGINE_VERSION, turn_inputs
from intercept_session.evaluation import evaluate
from intercept_session.personas import persona_config, personas
from intercept_session.schemas import (
    DecisionRequest,
    DecisionResult,
    PersonaOut,
    SessionOut,
    SessionStarted,
    StartSessionRequest,
    TurnResult,
)
from persona_rails.db import Database
from persona_rails.errors import Conflict, Invalid, NotFound
from persona_rails.idempotency import fingerprint, replay_or_conflict
from persona_rails.identity import Caller
from persona_rails.observability import count, logger, milliseconds
from persona_rails.settings import LlmSettings

Row = dict[str, Any]
DIALOG_COMPLETED = "interception.dialog_completed"
SUBJECT_SESSION = "intercept_session"


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
    persona = personas().get(session["persona_key"])
    return PersonaOut(
        key=persona.key,
        display_name=persona.display_name,
        avatar_asset_key=persona.avatar_asset_key,
        version=session["persona_version"],
    )


def _found_session(rows: list[Row], session_id: str) -> Row:
    if not rows:
        # A foreign session is invisible under RLS and reads exactly like an unknown one.
        raise NotFound("session_not_found", f"no session {session_id}", field="session_id")
    return rows[0]


def _found_rule(rows: list[Row], rule_id: Any) -> Row:
    if not rows:
        raise NotFound("rule_not_found", f"no rule {rule_id} for this user", field="rule_id")
    return rows[0]


def start_session(
    db: Database, caller: Caller, request: StartSessionRequest, now: datetime
) -> tuple[SessionStarted, bool]:
    persona = personas().get(request.persona_key)
    session_id = str(request.session_id or uuid.uuid4())
    offset = request.timestamp.utcoffset() or timedelta(0)
    with db.as_user(caller.claims) as tx:
        rule = _found_rule(tx.batch(repository.rule(str(request.rule_id)))[0], request.rule_id)
        if rule["app_identifier"] != request.app_identifier:
            raise Invalid(
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
            existing = tx.batch(repository.session(session_id))[0]
            session = replay_or_conflict(
                existing[0] if existing else None,
                start_print,
                fingerprint_of=lambda row: row["start_fingerprint"],
                conflict=Conflict("session_id_conflict", "session_id is already used by a different session"),
            )
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


def _settle_taken_slot(turns: list[Row], turn_no: int, text_print: str, session: Row) -> TurnResult:
    """A retried turn returns what was stored; a different text for a taken slot is a conflict."""
    existing = next((turn for turn in turns if turn["turn_no"] == turn_no), None)
    if existing is not None and existing["text_fingerprint"] == text_print:
        count("TurnReplayed")
        return _turn_result(existing, session)
    check = state_machine.check_reason if turn_no == 1 else state_machine.check_appeal
    check(_view(session))
    raise AssertionError("a taken slot always fails its state check")


def _read_turn_context(
    db: Database, caller: Caller, session_id: str
) -> tuple[Row, list[Row], list[Row], Row]:
    """The session (share-locked first), its turns, its rule and today's counts: one round trip."""
    sessions, turns, rules, stats = db.run_as_user(
        caller.claims,
        repository.session(session_id, lock="share"),
        repository.turns(session_id),
        repository.rule_of_session(session_id),
        repository.day_stats_of_session(session_id),
    )
    return _found_session(sessions, session_id), turns, rules, stats[0] if stats else {}


def submit_turn(
    db: Database, llm: LlmSettings, caller: Caller, session_id: str, text: str, *, turn_no: int
) -> TurnResult:
    text_print = fingerprint(text)
    session, turns, rules, stats = _read_turn_context(db, caller, session_id)
    if any(turn["turn_no"] >= turn_no for turn in turns) or session["state"] == State.CLOSED:
        return _settle_taken_slot(turns, turn_no, text_print, session)
    check = state_machine.check_reason if turn_no == 1 else state_machine.check_appeal
    check(_view(session))
    rule = _rule_context(_found_rule(rules, session["rule_id"]))
    overrides_today, streak = int(stats["override_count_today"]), int(stats["streak"])
    first = turns[0] if turns else None
    request = EvaluationInput(
        reason_text=text,
        trigger=Trigger(session["trigger"]),
        rule=rule,
        streak=streak,
        override_count_today=overrides_today,
        appeal_of=(first["reason_text"], Verdict(first["ai_verdict"])) if first else None,
    )
    persona = personas().get(session["persona_key"])
    # The LLM call happens between the two transactions: no row lock is held while it thinks.
    outcome = evaluate(llm, persona, request)
    decided, step = outcome.decision, outcome.step
    output = decided.as_record()
    turn_values = {
        **output,
        "session_id": session_id,
        "turn_id": str(uuid.uuid4()),
        "turn_no": turn_no,
        "reason_text": text,
        "appeal_used": turn_no == 2,
        "source": step.source.value,
        "fallback_reason": step.fallback_reason,
        "model": step.model,
        "latency_ms": step.latency_ms,
        "override_count_today": overrides_today,
        "streak": streak,
        "text_fingerprint": text_print,
    }
    record = {
        "engine_version": ENGINE_VERSION,
        "config_version": persona_config().version,
        "inputs": turn_inputs(request, persona.key),
        "output": output,
        "source": step.source.value,
        "model": step.model,
        "raw_reply": step.raw_reply,
    }
    (written,) = db.run_as_user(caller.claims, repository.record_turn(turn_values, record))
    if not written:
        raise _Raced()
    turn = written[0]
    verdict = decided.evaluation.verdict
    count(f"Verdict{verdict.value.title()}")
    milliseconds("EvaluationLatency", step.latency_ms)
    logger.info(
        "turn evaluated",
        extra={
            "session_id": session_id,
            "turn_no": turn_no,
            "verdict": verdict.value,
            "category": decided.evaluation.category.value,
            "source": step.source.value,
            "fallback_reason": step.fallback_reason,
            "latency_ms": step.latency_ms,
        },
    )
    advanced = {
        "state": turn["session_state"],
        "evaluation_turns": turn["session_evaluation_turns"],
        "final_verdict": turn["session_final_verdict"],
    }
    return _turn_result(turn, advanced)


class _Raced(Exception):
    """Another request took the turn's slot or moved the session while this one was evaluating."""


def submit_turn_settled(
    db: Database, llm: LlmSettings, caller: Caller, session_id: str, text: str, *, turn_no: int
) -> TurnResult:
    try:
        return submit_turn(db, llm, caller, session_id, text, turn_no=turn_no)
    except _Raced:
        # Nothing was written; the winner's row is committed, so re-reading settles it.
        session, turns, _, _ = _read_turn_context(db, caller, session_id)
        return _settle_taken_slot(turns, turn_no, fingerprint(text), session)


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


def decide(db: Database, caller: Caller, session_id: str, request: DecisionRequest) -> DecisionResult:
    decision_print = fingerprint(request.model_dump(mode="json"))
    with db.as_user(caller.claims) as tx:
        # FOR UPDATE queues concurrent decisions on the same session behind this one.
        session = _found_session(tx.batch(repository.session(session_id, lock="update"))[0], session_id)
        if session["state"] == State.CLOSED and session["decision_fingerprint"] == decision_print:
            count("DecisionReplayed")
            return _decision_result(session)
        state_machine.check_decision(
            _view(session), request.user_decision, accepted_delay=request.accepted_delay
        )
        closed_rows, turns = tx.batch(
            repository.close_session(
                session_id,
                {
                    "user_decision": request.user_decision.value,
                    "accepted_delay": request.accepted_delay,
                    "auto_dismissed": request.auto_dismissed,
                    "emergency_reason": request.emergency_reason,
                    "decision_fingerprint": decision_print,
                },
            ),
            repository.record_decision_on_turns(session_id, request.user_decision.value),
        )
        assert closed_rows, "the row is locked and open"
        closed = closed_rows[0]
        turns.sort(key=lambda turn: turn["turn_no"])
        event = _completed_event(closed, turns)
        repository.insert_event(tx, SUBJECT_SESSION, session_id, DIALOG_COMPLETED, event)
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


def get_session(db: Database, caller: Caller, session_id: str) -> SessionOut:
    sessions, turns, rules = db.run_as_user(
        caller.claims,
        repository.session(session_id, lock="share"),
        repository.turns(session_id),
        repository.rule_of_session(session_id),
    )
    session = _found_session(sessions, session_id)
    count("SessionResumed")
    persona = personas().get(session["persona_key"])
    context = _rule_context(rules[0]) if rules else RuleContext("", session["app_display_name"], "-", 0, 1)
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
