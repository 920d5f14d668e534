"""The dialog's use cases: load state, run the pure engine, persist the result atomically.

Nothing here trusts process memory or the client's counters: each step re-reads the session
under the caller's row-level security, and every write is guarded by a constraint or a
conditional UPDATE, so retries and races resolve in Postgres.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from intercept_session import repository
from intercept_session.decisions import decision_result
from intercept_session.engine import access, state_machine
from intercept_session.engine.messages import (
    VERDICT_BADGE,
    challenge_message,
    delayed_message,
)
from intercept_session.engine.model import EvaluationInput, RuleContext, State, Trigger, Verdict
from intercept_session.engine.turn import ENGINE_VERSION, turn_inputs
from intercept_session.evaluation import evaluate
from intercept_session.judges import judges
from intercept_session.personas import Persona, persona_config, personas
from intercept_session.rows import (
    Row,
    attempt_counts,
    found_rule,
    found_session,
    persona_out,
    persona_view,
    rule_context,
    rule_policy,
    session_view,
)
from intercept_session.schemas import (
    TIMESTAMP_TOLERANCE,
    AttemptCounts,
    SessionOut,
    SessionStarted,
    StartAnswer,
    StartSessionRequest,
    StillDelayed,
    StillUnlocked,
    TurnResult,
)
from persona_rails.db import Database
from persona_rails.errors import Conflict, Invalid
from persona_rails.idempotency import fingerprint, replay_or_conflict
from persona_rails.identity import Caller
from persona_rails.observability import count, logger, milliseconds
from persona_rails.settings import LlmSettings


def _check_timestamp(request: StartSessionRequest, now: datetime) -> None:
    if abs(request.timestamp - now) > TIMESTAMP_TOLERANCE:
        raise Invalid(
            "timestamp_out_of_range",
            "timestamp must be within 24 hours of the server clock",
            field="timestamp",
        )


def _started(session: Row, rule: Row, counts: AttemptCounts) -> SessionStarted:
    persona = personas().get(session["persona_key"])
    excess = session["mentions_excess_of"] is not None
    return SessionStarted(
        session_id=session["id"],
        persona=persona_out(session),
        state=State(session["state"]),
        challenge_message=challenge_message(
            persona, rule_context(rule), session["app_display_name"], excess=excess
        ),
        countdown_seconds=session["countdown_seconds"],
        override_allowed=session["override_allowed"],
        emergency_over_allowance_notice=excess,
        counts=counts,
    )


def start_session(
    db: Database, caller: Caller, request: StartSessionRequest, now: datetime, *, grace_seconds: int
) -> tuple[StartAnswer, bool]:
    """A new dialog (created: True), a retry's stored one, or no dialog at all: the app is still
    unlocked, or an accepted delay is still running. Two round trips for a new dialog."""
    _check_timestamp(request, now)
    persona = personas().get(request.persona_key)
    session_id = str(request.session_id or uuid.uuid4())
    offset = int((request.timestamp.utcoffset() or timedelta(0)).total_seconds() // 60)
    start_print = fingerprint(request.model_dump(mode="json", exclude={"session_id"}))
    with db.as_user(caller.claims) as tx:
        rules, _, _, existing, contexts = tx.batch(
            repository.rule(str(request.rule_id)),
            # The user's clock row first, then their sessions: every path that locks both takes
            # them in this order (decisions, the history delete), so none can deadlock another.
            repository.observe_offset(offset),
            # Abandoned dialogs close before anything is counted, so the counts include them.
            repository.close_abandoned(grace_seconds),
            repository.session(session_id),
            repository.start_context(request.app_identifier, offset),
        )
        rule = found_rule(rules, request.rule_id)
        if rule["app_identifier"] != request.app_identifier:
            raise Invalid(
                "app_mismatch", "app_identifier is not the app this rule governs", field="app_identifier"
            )
        context = contexts[0]
        if existing:
            return _replayed(existing[0], start_print, rule, context), False
        if context["unlocked_until"] is not None:
            count("StartUnlocked")
            counts = attempt_counts(context, opens_today=context["opens_today"])
            return StillUnlocked(unlocked_until=context["unlocked_until"], counts=counts), False
        if context["retry_after"] is not None:
            count("StartDelayed")
            return _still_delayed(persona, context, now), False
        policy = rule_policy(rule)
        (inserted,) = tx.batch(
            repository.insert_session(
                {
                    "id": session_id,
                    "rule_id": str(request.rule_id),
                    "app_identifier": request.app_identifier,
                    "app_display_name": request.app_display_name,
                    "trigger": request.trigger.value,
                    "persona_key": persona.key,
                    "persona_version": persona.version,
                    "client_timestamp": request.timestamp.isoformat(),
                    "utc_offset_minutes": context["utc_offset_minutes"],
                    "local_date": context["local_date"].isoformat(),
                    "client_streak": request.streak,
                    "client_override_count_today": request.override_count_today,
                    "start_fingerprint": start_print,
                    "countdown_seconds": access.countdown_seconds(policy, context["opens_today"]),
                    "override_allowed": access.override_allowed(policy, request.trigger),
                    "emergency_reason_required": policy.emergency_reason_required_past_allowance,
                    "unlock_minutes": policy.unlock_window_minutes,
                    "mentions_excess_of": (
                        str(context["unmentioned_excess"]) if context["unmentioned_excess"] else None
                    ),
                }
            )
        )
        if not inserted:
            # The same user's concurrent retry inserted it first: settle as a retry.
            raced = tx.batch(repository.session(session_id))[0]
            return _replayed(raced[0], start_print, rule, context), False
    count("SessionStarted")
    logger.info("session started", extra={"session_id": session_id, "persona_key": persona.key})
    return _started(inserted[0], rule, attempt_counts(context, opens_today=context["opens_today"] + 1)), True


def _replayed(session: Row, start_print: str, rule: Row, context: Row) -> SessionStarted:
    stored = replay_or_conflict(
        session,
        start_print,
        fingerprint_of=lambda row: row["start_fingerprint"],
        conflict=Conflict("session_id_conflict", "session_id is already used by a different session"),
    )
    count("SessionStartReplayed")
    return _started(stored, rule, attempt_counts(context, opens_today=context["opens_today"]))


def _still_delayed(persona: Persona, context: Row, now: datetime) -> StillDelayed:
    retry_at = context["retry_after"]
    return StillDelayed(
        retry_after=retry_at,
        seconds_left=access.seconds_left(retry_at, now),
        message=delayed_message(persona, access.minutes_left(retry_at, now)),
        persona=persona_view(persona, persona.version),
        counts=attempt_counts(context, opens_today=context["opens_today"]),
    )


def _turn_result(turn: Row, session: Row) -> TurnResult:
    view = session_view(session)
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
        emergency_suggested=turn["emergency_suggested"],
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
    check(session_view(session))
    raise AssertionError("a taken slot always fails its state check")


def _read_turn_context(
    db: Database, caller: Caller, session_id: str, grace_seconds: int
) -> tuple[Row, list[Row], list[Row], Row]:
    """The session (share-locked first), its turns, its rule and today's counts: one round trip.
    A dialog past its countdown and grace is closed as abandoned first, so a late turn finds it
    closed whether or not a start or the housekeeping got there before."""
    _, sessions, turns, rules, stats = db.run_as_user(
        caller.claims,
        repository.close_abandoned(grace_seconds),
        repository.session(session_id, lock="share"),
        repository.turns(session_id),
        repository.rule_of_session(session_id),
        repository.day_stats_of_session(session_id),
    )
    return found_session(sessions, session_id), turns, rules, stats[0] if stats else {}


def submit_turn(
    db: Database,
    llm: LlmSettings,
    caller: Caller,
    session_id: str,
    text: str,
    *,
    turn_no: int,
    grace_seconds: int,
) -> TurnResult:
    text_print = fingerprint(text)
    session, turns, rules, stats = _read_turn_context(db, caller, session_id, grace_seconds)
    if any(turn["turn_no"] >= turn_no for turn in turns) or session["state"] == State.CLOSED:
        return _settle_taken_slot(turns, turn_no, text_print, session)
    check = state_machine.check_reason if turn_no == 1 else state_machine.check_appeal
    check(session_view(session))
    rule = rule_context(found_rule(rules, session["rule_id"]))
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
        # What decides a turn: the personas' words, the urgency lexicon and the local models.
        "config_version": f"{persona_config().version}+{judges().version}",
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
    db: Database,
    llm: LlmSettings,
    caller: Caller,
    session_id: str,
    text: str,
    *,
    turn_no: int,
    grace_seconds: int,
) -> TurnResult:
    try:
        return submit_turn(db, llm, caller, session_id, text, turn_no=turn_no, grace_seconds=grace_seconds)
    except _Raced:
        # Nothing was written; the winner's row is committed, so re-reading settles it.
        session, turns, _, _ = _read_turn_context(db, caller, session_id, grace_seconds)
        return _settle_taken_slot(turns, turn_no, fingerprint(text), session)


def get_session(db: Database, caller: Caller, session_id: str) -> SessionOut:
    sessions, turns, rules = db.run_as_user(
        caller.claims,
        repository.session(session_id, lock="share"),
        repository.turns(session_id),
        repository.rule_of_session(session_id),
    )
    session = found_session(sessions, session_id)
    count("SessionResumed")
    persona = personas().get(session["persona_key"])
    context = rule_context(rules[0]) if rules else RuleContext("", session["app_display_name"], "-", 0, 1)
    return SessionOut(
        session_id=session["id"],
        state=State(session["state"]),
        persona=persona_out(session),
        challenge_message=challenge_message(
            persona, context, session["app_display_name"], excess=session["mentions_excess_of"] is not None
        ),
        countdown_seconds=session["countdown_seconds"],
        override_allowed=session["override_allowed"],
        app_identifier=session["app_identifier"],
        app_display_name=session["app_display_name"],
        trigger=Trigger(session["trigger"]),
        evaluation_turns=session["evaluation_turns"],
        can_appeal=state_machine.can_appeal(session_view(session)),
        turns=[_turn_result(turn, session) for turn in turns],
        decision=decision_result(session) if session["state"] == State.CLOSED else None,
        created_at=session["created_at"],
    )
