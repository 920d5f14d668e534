"""Closing a dialog with the user's decision (`POST /intercept-session/{id}/decision`): the unlock
it grants, the week's emergency allowance, and the dialog's completed event, in the transaction
that locks the session; a retried identical decision answers as the first did."""

from __future__ import annotations

from datetime import datetime

from intercept_session import repository
from intercept_session.engine import access, state_machine
from intercept_session.engine.messages import emergency_message
from intercept_session.engine.model import Decision, State
from intercept_session.personas import personas
from intercept_session.rows import Row, found_session, session_view
from intercept_session.schemas import DecisionRequest, DecisionResult
from persona_rails.db import Database
from persona_rails.db.database import Tx
from persona_rails.errors import Invalid
from persona_rails.idempotency import fingerprint
from persona_rails.identity import Caller
from persona_rails.observability import count, logger

DIALOG_COMPLETED = "interception.dialog_completed"


def decision_result(session: Row) -> DecisionResult:
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
        session = found_session(sessions, session_id)
        if session["state"] == State.CLOSED and session["decision_fingerprint"] == decision_print:
            count("DecisionReplayed")
            return decision_result(session)
        view = session_view(session)
        if view.state is State.CLOSED:
            closing = None
        else:
            closing = _close(
                tx,
                session_id,
                session,
                view,
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
    return decision_result(closed)


def _close(
    tx: Tx,
    session_id: str,
    session: Row,
    view: state_machine.SessionView,
    *,
    turns: list[Row],
    closed_at: datetime,
    budget: Row,
    request: DecisionRequest,
    decision_print: str,
) -> tuple[Row, access.UnlockKind | None, bool]:
    """Close an open dialog with the decision, in the transaction that locked it: the closed row,
    its unlock kind, and whether an emergency went over the week's allowance."""
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
