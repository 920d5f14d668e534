"""Paths that lock both a user's clock row and their sessions take them in one order (clock,
then sessions), so a history delete, starts that sweep abandoned dialogs, and emergency
decisions running at once for one user never deadlock: every request answers, none with a 500.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest

from tests.integration.intercept_session.v2_helpers import new_dialog, start_reply
from tests.support.dialog import decide

ROUNDS = 8
# Powertools keeps one metrics buffer per process (Lambda runs one invocation at a time); threads
# here share it, so one may flush another's metrics and leave its own flush empty.
pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")


def _backdate_open_sessions(db, user_id: str) -> None:
    with db.as_owner() as tx:
        tx.execute(
            "UPDATE public.intercept_sessions SET created_at = created_at - CAST(:age AS interval)"
            " WHERE user_id = CAST(:u AS uuid) AND state <> 'closed'",
            age=str(timedelta(hours=1)),
            u=user_id,
        )


def test_delete_starts_and_decisions_at_once_never_deadlock(api, users, db):
    user = users.create()
    rules = [users.rule(user) for _ in range(3)]
    for _ in range(ROUNDS):
        open_ids = [new_dialog(api, user, rule)["session_id"] for rule in rules]
        barrier = threading.Barrier(4)

        def run(task: int, barrier=barrier, open_ids=open_ids):
            barrier.wait()
            if task == 0:
                return api.request("DELETE", "/intercept-session/me/history", user.token)
            if task == 1:
                return start_reply(api, user, rules[0])
            return decide(api, user, open_ids[task - 1], "emergency")

        with ThreadPoolExecutor(4) as pool:
            replies = list(pool.map(run, range(4)))
        statuses = [reply.status for reply in replies]
        assert all(status < 500 for status in statuses), [reply.body for reply in replies]
        # The delete always succeeds; a decision finds its session or, deleted first, a 404.
        assert statuses[0] == 200
        assert all(status in (200, 404) for status in statuses[2:]), statuses
        assert statuses[1] in (200, 201), replies[1].body


def test_a_sweeping_start_and_a_delete_never_deadlock(api, users, db):
    user = users.create()
    rules = [users.rule(user) for _ in range(2)]
    for _ in range(ROUNDS):
        for rule in rules:
            new_dialog(api, user, rule)
        _backdate_open_sessions(db, user.id)
        barrier = threading.Barrier(3)

        def run(task: int, barrier=barrier):
            barrier.wait()
            if task == 0:
                return api.request("DELETE", "/intercept-session/me/history", user.token)
            return start_reply(api, user, rules[task - 1])

        with ThreadPoolExecutor(3) as pool:
            replies = list(pool.map(run, range(3)))
        assert [reply.status < 500 for reply in replies] == [True] * 3, [reply.body for reply in replies]
