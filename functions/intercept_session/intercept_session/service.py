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
from intercept_session.engine import access, state_machine
from intercept_session.engine.access import RulePolicy
from intercept_session.engine.messages import (
    VERDICT_BADGE,
    challenge_message,
    delayed_message,
    emergency_message,
)
from intercept_session.engine.model import Decision, EvaluationInput, RuleContext, State, Trigger, Verdict
from intercept_session.engine.turn import ENGINE_VERSION, turn_inputs
from intercept_session.evaluation import evaluate
from intercept_session.judges import judges
from intercept_session.personas import Persona, persona_config, personas
from intercept_session.schemas import (
    TIMESTAMP_TOLERANCE,
    AttemptCounts,
    DecisionRequest,
    DecisionResult,
    PersonaOut,
    SessionOut,
    SessionStarted,
    StartAnswer,
    StartSessionRequest,
    StillDelayed,
    StillUnlocked,
    TurnResult,
)
from persona_rails.db import Database
from persona_rails.db.database import Tx
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


def _persona_view(persona: Persona, version: int) -> PersonaOut:
    return PersonaOut(
        key=persona.key,
        display_name=persona.display_name,
        avatar_asset_key=persona.avatar_asset_key,
        version=version,
    )


def _persona_out(session: Row) -> PersonaOut:
    """The persona as the session met it: its version is the session's, not today's file's."""
    return _persona_view(personas().get(session["persona_key"]), session["persona_version"])


def _found_session(rows: list[Row], session_id: str) -> Row:
    if not rows:
        # A foreign session is invisible under RLS and reads exactly like an unknown one.
        raise NotFound("session_not_found", f"no session {session_id}", field="session_id")
    return rows[0]


def _found_rule(rows: list[Row], rule_id: Any) -> Row:
    if not rows:
        raise NotFound("rule_not_found", f"no rule {rule_id} for this user", field="rule_id")
    return rows[0]


def _policy(rule: Row) -> RulePolicy:
    return RulePolicy(
        remaining_minutes=rule["remaining_minutes"],
        unlock_minutes=rule["unlock_minutes"],
        friction_growth_seconds=rule["friction_growth_seconds"],
        friction_cap_seconds=rule["friction_cap_seconds"],
        overrides_disabled_in_blocked_window=rule["overrides_disabled_in_blocked_window"],
        emergency_reason_required_past_allowance=rule["emergency_reason_required_past_allowance"],
    )


def _counts(context: Row, *, opens_today: int) -> AttemptCounts:
    return AttemptCounts(
        opens_today=opens_today,
        overrides_today=context["overrides_today"],
        streak_days=context["streak_days"],
        emergencies_this_week=context["emergencies_this_week"],
        emergency_allowance=context["emergency_allowance"],
    )


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
        persona=_persona_out(session),
        state=State(session["state"]),
        challenge_message=challenge_message(
            persona, _rule_context(rule), session["app_display_name"], excess=excess
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
        rule = _found_rule(rules, request.rule_id)
        if rule["app_identifier"] != request.app_identifier:
            raise Invalid(
                "app_mismatch", "app_identifier is not the app this rule governs", field="app_identifier"
            )
        context = contexts[0]
        if existing:
            return _replayed(existing[0], start_print, rule, context), False
        if context["unlocked_until"] is not None:
            count("StartUnlocked")
            counts = _counts(context, opens_today=context["opens_today"])
            return StillUnlocked(unlocked_until=context["unlocked_until"], counts=counts), False
        if context["retry_after"] is not None:
            count("StartDelayed")
            return _still_delayed(persona, context, now), False
        policy = _policy(rule)
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
    return _started(inserted[0], rule, _counts(context, opens_today=context["opens_today"] + 1)), True


def _replayed(session: Row, start_print: str, rule: Row, context: Row) -> SessionStarted:
    stored = replay_or_conflict(
        session,
        start_print,
        fingerprint_of=lambda row: row["start_fingerprint"],
        conflict=Conflict("session_id_conflict", "session_id is already used by a different session"),
    )
    count("SessionStartReplayed")
    return _started(stored, rule, _counts(context, opens_today=context["opens_today"]))


def _still_delayed(persona: Persona, context: Row, now: datetime) -> StillDelayed:
    retry_at = context["retry_after"]
    return StillDelayed(
        retry_after=retry_at,
        seconds_left=access.seconds_left(retry_at, now),
        message=delayed_message(persona, access.minutes_left(retry_at, now)),
        persona=_persona_view(persona, persona.version),
        counts=_counts(context, opens_today=context["opens_today"]),
    )


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
    check(_view(session))
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
    return _found_session(sessions, session_id), turns, rules, stats[0] if stats else {}


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


def _decision_result(session: Row) -> DecisionResult:
    kind = session["unlock_kind"]
    message = None
    if kind == access.UnlockKind.EMERGENCY:
        message = emergency_message(personas().get(session["persona_key"]))
    return DecisionResult(
        session_id=session["id"],
        state=State(session["state"]),
        user_decision=session["user_decision"],
        final_verdict=session["final_verdict"],
        accepted_delay=bool(session["accepted_delay"]),
        auto_dismissed=bool(session["auto_dismissed"]),
        emergency=session["emergency"],
        closed_at=session["closed_at"],
        abandoned=session["abandoned"],
        unlock_kind=kind,
        unlocked_until=session["unlocked_until"],
        retry_after=session["retry_after"],
        emergency_over_allowance=session["emergency_over_allowance"],
        message=message,
    )


def _check_allowed(session: Row, request: DecisionRequest, *, over_allowance: bool) -> None:
    if request.user_decision is Decision.OVERRIDE and not session["override_allowed"]:
        raise state_machine.TransitionError(
            "override_disabled",
            "the rule disables overrides during its blocked window",
            State(session["state"]),
        )
    if (
        over_allowance
        and request.user_decision is Decision.EMERGENCY
        and session["emergency_reason_required_past_allowance"]
        and request.emergency_reason is None
    ):
        raise Invalid(
            "emergency_reason_required",
            "this week's emergency allowance is used up: the rule asks for an emergency_reason",
            field="emergency_reason",
        )


def decide(
    db: Database, caller: Caller, session_id: str, request: DecisionRequest, *, grace_seconds: int
) -> DecisionResult:
    decision_print = fingerprint(request.model_dump(mode="json"))
    with db.as_user(caller.claims) as tx:
        # The budget locks the user's clock row, so two emergencies at once are counted in
        # turn; FOR UPDATE then queues concurrent decisions on the same session. Clock before
        # session, as on every path that locks both (see start_session). A dialog past its
        # countdown and grace closes as abandoned before it is read: a late decision finds it
        # closed, whether or not a start or the housekeeping got there first.
        budgets, _, sessions, turns, times = tx.batch(
            repository.emergency_budget(session_id),
            repository.close_abandoned(grace_seconds),
            repository.session(session_id, lock="update"),
            repository.turns(session_id),
            repository.closing_time(session_id),
        )
        session = _found_session(sessions, session_id)
        if session["state"] == State.CLOSED and session["decision_fingerprint"] == decision_print:
            count("DecisionReplayed")
            return _decision_result(session)
        view = _view(session)
        if view.state is State.CLOSED:
            closing = None
        else:
            closing = _close(
                tx,
                session_id,
                session,
                turns=turns,
                closed_at=times[0]["closed_at"],
                budget=budgets[0],
                request=request,
                decision_print=decision_print,
            )
    if closing is None:
        # Closed, perhaps as abandoned by this very request: refused once that is committed.
        state_machine.check_decision(view, request.user_decision, accepted_delay=request.accepted_delay)
        raise AssertionError("check_decision refuses every decision on a closed session")
    closed, kind, over = closing
    count(f"Decision{request.user_decision.value.title()}")
    if over:
        count("EmergencyOverAllowance")
    logger.info(
        "session closed",
        extra={
            "session_id": session_id,
            "decision": request.user_decision.value,
            "auto_dismissed": request.auto_dismissed,
            "accepted_delay": request.accepted_delay,
            "unlock_kind": kind.value if kind else None,
            "emergency_over_allowance": over,
        },
    )
    return _decision_result(closed)


def _close(
    tx: Tx,
    session_id: str,
    session: Row,
    *,
    turns: list[Row],
    closed_at: datetime,
    budget: Row,
    request: DecisionRequest,
    decision_print: str,
) -> tuple[Row, access.UnlockKind | None, bool]:
    """Close an open dialog with the decision, in the transaction that locked it: the closed row,
    its unlock kind, and whether an emergency went over the week's allowance."""
    view = _view(session)
    state_machine.check_decision(view, request.user_decision, accepted_delay=request.accepted_delay)
    kind = access.unlock_kind(
        request.user_decision,
        view.final_verdict,
        emergency=session["emergency"],
        auto_dismissed=request.auto_dismissed,
    )
    over = kind is access.UnlockKind.EMERGENCY and access.over_allowance(
        budget["emergencies_this_week"], budget["emergency_allowance"]
    )
    _check_allowed(session, request, over_allowance=over)
    last_turn = max(turns, key=lambda turn: turn["turn_no"]) if turns else None
    delay = last_turn["delay_minutes"] if request.accepted_delay and last_turn else None
    closed_rows, _, _ = tx.batch(
        repository.close_session(
            session_id,
            {
                "user_decision": request.user_decision.value,
                "accepted_delay": request.accepted_delay,
                "auto_dismissed": request.auto_dismissed,
                "emergency_reason": request.emergency_reason,
                "decision_fingerprint": decision_print,
                "closed_at": closed_at.isoformat(),
                "unlock_kind": kind.value if kind else None,
                "unlocked_until": (
                    access.unlocked_until(
                        closed_at, session["unlock_minutes"], budget["day_end"], kind
                    ).isoformat()
                    if kind
                    else None
                ),
                "retry_after": access.retry_after(closed_at, delay).isoformat() if delay else None,
                "over_allowance": over,
            },
        ),
        repository.record_decision_on_turns(session_id, request.user_decision.value),
        repository.completed_event(session_id, DIALOG_COMPLETED),
    )
    assert closed_rows, "the row is locked and open"
    return closed_rows[0], kind, over


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
        challenge_message=challenge_message(
            persona, context, session["app_display_name"], excess=session["mentions_excess_of"] is not None
        ),
        countdown_seconds=session["countdown_seconds"],
        override_allowed=session["override_allowed"],
        app_identifier=session["app_identifier"],
        app_display_name=session["app_display_name"],
        trigger=Trigger(session["trigger"]),
        evaluation_turns=session["evaluation_turns"],
        can_appeal=state_machine.can_appeal(_view(session)),
        turns=[_turn_result(turn, session) for turn in turns],
        decision=_decision_result(session) if session["state"] == State.CLOSED else None,
        created_at=session["created_at"],
    )
