"""InterceptHousekeepingFunction through its Lambda entry and events/ fixture: one tick closes the
abandoned dialogs and purges the raw reasons past retention of every user, and a retried tick
finds nothing left (the chores' own cases: tests/integration/intercept_session)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from persona_rails_dev.lambda_runtime import LambdaContext, load_handler
from persona_rails_dev.template import functions
from tests.support.api import load_event
from tests.support.history import add_session

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")


def tick() -> dict:
    handler = load_handler(functions()["InterceptHousekeepingFunction"])
    return handler(
        load_event("intercept-housekeeping/scheduled.json"), LambdaContext("InterceptHousekeepingFunction")
    )


def session(db, session_id: str) -> dict:
    with db.as_owner() as tx:
        return tx.one(
            "SELECT s.state, s.abandoned, t.reason_text FROM public.intercept_sessions s"
            " LEFT JOIN public.intercept_turns t ON t.user_id = s.user_id AND t.session_id = s.id"
            " WHERE s.id = CAST(:s AS uuid)",
            s=session_id,
        )


def test_one_tick_closes_abandoned_dialogs_and_purges_old_reasons_of_every_user(db, users):
    long_ago = datetime.now() - timedelta(days=200)  # past the default 90 days' retention
    killed = add_session(db, users.create().id, local_start=long_ago, category="study", decision=None)
    answered = add_session(db, users.create().id, local_start=long_ago, category="work")
    recent = add_session(
        db, users.create().id, local_start=datetime.now() - timedelta(days=2), category="work"
    )

    report = tick()

    assert report["abandoned_closed"] >= 1
    assert report["reasons_purged"] >= 1
    assert (session(db, killed)["state"], session(db, killed)["abandoned"]) == ("closed", True)
    assert session(db, answered)["reason_text"] is None
    assert session(db, recent)["reason_text"] is not None
    # A retried tick (the scheduler's retry policy) finds nothing left of these.
    again = tick()
    assert (again["abandoned_closed"], session(db, killed)["state"]) == (0, "closed")
