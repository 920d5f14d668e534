"""Which moves each dialog state allows (S1-S6, one appeal, emergency from any open state)."""

import pytest

from intercept_session.engine.model import Decision, State, Verdict
from intercept_session.engine.state_machine import (
    SessionView,
    TransitionError,
    can_appeal,
    check_appeal,
    check_decision,
    check_reason,
)

FRESH = SessionView(State.AWAITING_REASON, 0, None)
DENIED = SessionView(State.AWAITING_DECISION, 1, Verdict.DENY)
DELAYED = SessionView(State.AWAITING_DECISION, 1, Verdict.DELAY)
ALLOWED = SessionView(State.AWAITING_DECISION, 1, Verdict.ALLOW)
APPEALED = SessionView(State.AWAITING_DECISION, 2, Verdict.DENY)
CLOSED = SessionView(State.CLOSED, 1, Verdict.DENY)


def code_of(check, *args, **kwargs):
    with pytest.raises(TransitionError) as error:
        check(*args, **kwargs)
    return error.value.code


def test_reason_only_once_and_only_while_open():
    check_reason(FRESH)
    assert code_of(check_reason, DENIED) == "reason_already_submitted"
    assert code_of(check_reason, CLOSED) == "session_closed"


def test_one_appeal_after_a_non_allow_verdict():
    check_appeal(DENIED)
    check_appeal(DELAYED)
    assert code_of(check_appeal, FRESH) == "no_verdict_to_appeal"
    assert code_of(check_appeal, APPEALED) == "appeal_limit_reached"
    assert code_of(check_appeal, ALLOWED) == "nothing_to_appeal"
    assert code_of(check_appeal, CLOSED) == "session_closed"


def test_can_appeal_mirrors_check_appeal():
    for view in (FRESH, DENIED, DELAYED, ALLOWED, APPEALED, CLOSED):
        try:
            check_appeal(view)
            allowed = True
        except TransitionError:
            allowed = False
        assert can_appeal(view) is allowed


@pytest.mark.parametrize("view", [FRESH, DENIED, ALLOWED, APPEALED])
def test_emergency_from_every_open_state(view):
    check_decision(view, Decision.EMERGENCY, accepted_delay=False)


def test_comply_before_a_verdict_is_the_auto_dismiss_path():
    check_decision(FRESH, Decision.COMPLY, accepted_delay=False)


def test_override_needs_a_verdict():
    assert code_of(check_decision, FRESH, Decision.OVERRIDE, accepted_delay=False) == "no_verdict_yet"
    check_decision(DENIED, Decision.OVERRIDE, accepted_delay=False)


def test_accepting_a_delay_needs_a_delay_verdict_and_comply():
    check_decision(DELAYED, Decision.COMPLY, accepted_delay=True)
    assert code_of(check_decision, DENIED, Decision.COMPLY, accepted_delay=True) == "delay_not_offered"
    assert code_of(check_decision, DELAYED, Decision.OVERRIDE, accepted_delay=True) == "delay_not_offered"


@pytest.mark.parametrize("decision", list(Decision))
def test_nothing_is_decided_twice(decision):
    assert code_of(check_decision, CLOSED, decision, accepted_delay=False) == "session_closed"
