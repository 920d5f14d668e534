"""The dialog's states and the moves each allows (spec: Conversation State Machine).

awaiting_reason (S1-S2) --reason--> awaiting_decision (S3-S4) --appeal, once--> awaiting_decision
any open state --decision--> closed (S5-S6)

Comply is allowed before a verdict (the 20 s countdown auto-dismisses to comply), override
only after one, and emergency from any open state: it bypasses the debate.
"""

from __future__ import annotations

from dataclasses import dataclass

from intercept_session.engine.model import Decision, State, Verdict
from persona_rails.errors import Conflict

MAX_EVALUATION_TURNS = 2


class TransitionError(Conflict):
    """The move is not allowed in the session's state; `code` names the conflict."""

    def __init__(self, code: str, message: str, state: State) -> None:
        super().__init__(code, message, state=state.value)


@dataclass(frozen=True)
class SessionView:
    state: State
    evaluation_turns: int
    final_verdict: Verdict | None


def can_appeal(session: SessionView) -> bool:
    return (
        session.state is State.AWAITING_DECISION
        and session.evaluation_turns < MAX_EVALUATION_TURNS
        and session.final_verdict is not Verdict.ALLOW
    )


def check_reason(session: SessionView) -> None:
    if session.state is State.CLOSED:
        raise TransitionError("session_closed", "the session is closed", session.state)
    if session.state is not State.AWAITING_REASON:
        raise TransitionError("reason_already_submitted", "the reason was already evaluated", session.state)


def check_appeal(session: SessionView) -> None:
    if session.state is State.AWAITING_REASON:
        raise TransitionError("no_verdict_to_appeal", "submit the reason before appealing", session.state)
    if session.state is State.CLOSED:
        raise TransitionError("session_closed", "the session is closed", session.state)
    if session.evaluation_turns >= MAX_EVALUATION_TURNS:
        raise TransitionError("appeal_limit_reached", "only one appeal is allowed per session", session.state)
    if session.final_verdict is Verdict.ALLOW:
        raise TransitionError("nothing_to_appeal", "the verdict is already allow", session.state)


def check_decision(session: SessionView, decision: Decision, *, accepted_delay: bool) -> None:
    if session.state is State.CLOSED:
        raise TransitionError("session_closed", "the session is already closed", session.state)
    if decision is Decision.OVERRIDE and session.state is State.AWAITING_REASON:
        raise TransitionError("no_verdict_yet", "override needs a verdict first", session.state)
    if accepted_delay and (decision is not Decision.COMPLY or session.final_verdict is not Verdict.DELAY):
        raise TransitionError(
            "delay_not_offered", "accepted_delay needs a delay verdict and decision comply", session.state
        )
