"""The deployed functions connect as logins of least privilege (migration 0800), never as
`postgres`: a login reads nothing by itself, may become only the roles its functions need, and
a whole interception dialog and a weekly run work connected as them."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta, timezone
from urllib.parse import urlsplit, urlunsplit

import pytest

API_LOGIN = "persona_rails_api_login"
WEEKLY_LOGIN = "persona_rails_weekly_login"


def _as_login(database_url: str, login: str) -> str:
    parts = urlsplit(database_url)
    netloc = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{login}@{netloc}"))


@pytest.fixture(scope="module")
def logins(database_url: str):
    """The two logins switched on as `infra/sql/enable_function_logins.sql` does (the embedded
    server trusts its socket, so no password is needed here)."""
    from persona_rails.db import Database

    owner = Database(database_url)
    with owner.as_owner() as tx:
        for login in (API_LOGIN, WEEKLY_LOGIN):
            tx.execute(f"ALTER ROLE {login} WITH LOGIN")
    owner.close()
    databases = {login: Database(_as_login(database_url, login)) for login in (API_LOGIN, WEEKLY_LOGIN)}
    yield databases
    for database in databases.values():
        database.close()


def _error_of(database, sql: str) -> str:
    from persona_rails.db.database import DbError

    with pytest.raises(DbError) as raised, database.as_owner() as tx:
        tx.execute(sql)
    return str(raised.value)


def test_a_login_reads_nothing_by_itself(logins):
    for database in logins.values():
        assert "permission denied" in _error_of(database, "SELECT * FROM public.intercept_sessions")
        assert "permission denied" in _error_of(database, "SELECT * FROM public.decision_records")


@pytest.mark.parametrize("role", ["postgres", "service_role", "authenticator", "supabase_admin"])
def test_the_api_login_cannot_become_anything_but_the_function_role(logins, role):
    error = _error_of(logins[API_LOGIN], f"SET ROLE {role}")
    assert "permission denied" in error or "does not exist" in error


def test_the_weekly_login_may_become_service_role_but_never_postgres(logins):
    with logins[WEEKLY_LOGIN].as_service() as tx:
        assert tx.one("SELECT current_user AS u")["u"] == "service_role"
    assert "permission denied" in _error_of(logins[WEEKLY_LOGIN], "SET ROLE postgres")


def _start(database, user, rule):
    from intercept_session import service
    from intercept_session.schemas import StartSessionRequest
    from persona_rails.identity import Caller, CallerKind

    caller = Caller(user.id, CallerKind.USER)
    request = StartSessionRequest.model_validate(
        {
            "user_id": user.id,
            "rule_id": rule["id"],
            "app_identifier": rule["app_identifier"],
            "app_display_name": rule["app_display_name"],
            "trigger": "quota_exceeded",
            "timestamp": datetime.now(timezone(timedelta(hours=8))).isoformat(),
            "persona_key": "strict-father",
            "streak": 0,
            "override_count_today": 0,
            "session_id": str(uuid.uuid4()),
        }
    )
    started, created = service.start_session(database, caller, request, datetime.now(UTC), grace_seconds=600)
    assert created
    return caller, str(started.session_id)


def test_a_whole_dialog_runs_connected_as_the_api_login(logins, users):
    from intercept_session import decisions, service
    from intercept_session.engine.model import Decision
    from intercept_session.schemas import DecisionRequest
    from persona_rails.settings import InterceptSettings, LlmSettings

    user = users.create()
    database = logins[API_LOGIN]
    caller, sid = _start(database, user, users.rule(user))
    grace = InterceptSettings().abandon_grace_seconds
    turn = service.submit_turn_settled(
        database, LlmSettings(), caller, sid, "就是无聊想刷一会儿视频放松", turn_no=1, grace_seconds=grace
    )
    assert turn.ai_verdict in {"deny", "delay", "allow"}
    closed = decisions.decide(
        database, caller, sid, DecisionRequest(user_decision=Decision.COMPLY), grace_seconds=grace
    )
    assert closed.state == "closed"


def test_the_intercept_housekeeping_closes_abandoned_dialogs_connected_as_the_weekly_login(logins, users, db):
    from intercept_session.chores import run_housekeeping
    from persona_rails.settings import InterceptSettings

    user = users.create()
    _, sid = _start(logins[API_LOGIN], user, users.rule(user))
    with db.as_owner() as tx:
        tx.execute(
            "UPDATE public.intercept_sessions SET created_at = created_at - interval '1 hour'"
            " WHERE id = CAST(:id AS uuid)",
            id=sid,
        )
    report = run_housekeeping(logins[WEEKLY_LOGIN], InterceptSettings())
    assert report.abandoned_closed >= 1
    with db.as_owner() as tx:
        row = tx.one(
            "SELECT state, abandoned FROM public.intercept_sessions WHERE id = CAST(:id AS uuid)", id=sid
        )
    assert row == {"state": "closed", "abandoned": True}


def test_the_sps_housekeeping_erases_expired_states_connected_as_the_weekly_login(logins, users, db):
    from sps_encounter.chores import erase_expired_states

    user = users.create()
    with db.as_owner() as tx:
        encounter = tx.one(
            """INSERT INTO public.sps_encounters (user_id, scenario_id, scenario_source, scenario_hash, scenario,
                 persona_id, persona_source, persona_hash, persona, seed, state, expires_at, config_version,
                 start_fingerprint)
               VALUES (CAST(:u AS uuid), 'chest-pain', 'inline', repeat('a', 64), '{}', 'p', 'inline',
                 repeat('b', 64), '{}', 1, '{"rapport": "guarded"}', now() - interval '1 minute', 'v', 'f')
               RETURNING id""",
            u=user.id,
        )["id"]
    assert erase_expired_states(logins[WEEKLY_LOGIN]) >= 1
    with db.as_owner() as tx:
        row = tx.one("SELECT state FROM public.sps_encounters WHERE id = :id", id=encounter)
    assert row == {"state": None}
