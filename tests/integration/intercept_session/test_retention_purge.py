"""The retention purge, end to end through the embedded Postgres: raw reasons are purged after the
retention period while everything a weekly summary counts stays; the purge is idempotent, the
service role's alone, run by the hourly housekeeping, and a replay of a purged turn says why it
cannot run.

The database is shared by the whole test session, so every assertion is about this test's own
users; the purge is global by design and is only ever asked about them.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

import pytest

from intercept_session.replay import replay as replay_record
from persona_rails.db import DbError
from persona_rails.decisions import DecisionRecord, NotReplayable
from persona_rails_dev.replay import replay as rails_replay
from persona_rails_dev.template import functions
from tests.integration.intercept_session.history_rights import (
    EMERGENCY_REASON,
    HISTORY,
    LLM_JUSTIFICATION,
    owner_rows,
    summarize,
)
from tests.support.dialog import BORED, WORK_APPEAL, appeal, decide, reason, start
from tests.support.fake_openai import json_content
from tests.support.history import CATEGORY_REASONS, add_session

pytestmark = pytest.mark.integration


def llm_verdict(verdict: str, category: str) -> Any:
    return json_content(
        {
            "reason_category": category,
            "verdict": verdict,
            "confidence": 0.7,
            "justification": LLM_JUSTIFICATION,
        }
    )


def age(db: Any, user_id: str, days: int) -> None:
    """Move all of a user's history `days` into the past, as if it had happened then."""
    shift = {"u": user_id, "d": days}
    with db.as_owner() as tx:
        tx.execute(
            """
            UPDATE public.intercept_sessions
            SET created_at = created_at - make_interval(days => :d), closed_at = closed_at - make_interval(days => :d),
                client_timestamp = client_timestamp - make_interval(days => :d), local_date = local_date - :d,
                unlocked_until = unlocked_until - make_interval(days => :d),
                retry_after = retry_after - make_interval(days => :d)
            WHERE user_id = CAST(:u AS uuid)
            """,
            **shift,
        )
        for table, column in (("intercept_turns", "created_at"), ("decision_records", "created_at")):
            tx.execute(
                f"UPDATE public.{table} SET {column} = {column} - make_interval(days => :d)"
                " WHERE user_id = CAST(:u AS uuid)",
                **shift,
            )


def purge(db: Any, days: int = 90) -> int:
    with db.as_service() as tx:
        return int(tx.one("SELECT public.intercept_purge_reasons(:days) AS n", days=days)["n"])


def test_the_purge_removes_raw_reasons_and_keeps_what_summaries_count(api, users, db, fake_openai):
    user = users.create()
    rule = users.rule(user)
    fake_openai.script(llm_verdict("deny", "other"), llm_verdict("delay", "work"))
    old = start(api, user, rule)
    assert reason(api, user, old, BORED).body["source"] == "llm"
    assert appeal(api, user, old, WORK_APPEAL).body["source"] == "llm"
    assert decide(api, user, old, "emergency", emergency_reason=EMERGENCY_REASON).status == 200
    age(db, user.id, 120)
    fake_openai.script(llm_verdict("deny", "other"))
    recent = start(api, user, rule)
    assert reason(api, user, recent, BORED).status == 200
    (old_session,) = [s for s in owner_rows(db, "intercept_sessions", user.id) if str(s["id"]) == old]
    week = old_session["local_date"] - timedelta(days=old_session["local_date"].weekday())
    summary = summarize(db, user.id, week)
    turns_before = owner_rows(db, "intercept_turns", user.id)
    events_before = owner_rows(db, "analytics_events", user.id)
    resumed_before = api.get(f"/intercept-session/{old}", user.token).body

    assert purge(db) >= 1

    turns = {str(t["id"]): t for t in owner_rows(db, "intercept_turns", user.id)}
    for before in turns_before:
        after = turns[str(before["id"])]
        kept = (
            "reason_category",
            "ai_verdict",
            "confidence",
            "user_decision",
            "emergency",
            "source",
            "latency_ms",
        )
        assert {k: after[k] for k in kept} == {k: before[k] for k in kept}
        if str(before["session_id"]) == old:
            assert (after["reason_text"], after["text_fingerprint"]) == (None, "purged")
            assert after["reason_purged_at"] is not None
            assert LLM_JUSTIFICATION not in after["justification"]
        else:
            assert after["reason_text"] == BORED, "a recent turn keeps its reason"
    sessions = {str(s["id"]): s for s in owner_rows(db, "intercept_sessions", user.id)}
    assert sessions[old]["emergency_reason"] is None
    assert sessions[old]["reasons_purged_at"] is not None
    assert sessions[recent]["reasons_purged_at"] is None
    records = owner_rows(db, "decision_records", user.id)
    old_turn_ids = {str(t["id"]) for t in turns_before if str(t["session_id"]) == old}
    purged_records = [r for r in records if str(r["subject_id"]) in old_turn_ids]
    assert len(purged_records) == 2
    for record in purged_records:
        assert "reason_text" not in record["inputs"]
        assert record["raw_reply"] is None
        assert record["inputs_purged_at"] is not None
        assert record["inputs"]["rule"]["summary"] == rule["summary"]
        assert record["output"]["ai_verdict"] in ("deny", "delay")
    appealed = next(r for r in purged_records if r["inputs"]["appeal_of"])
    assert appealed["inputs"]["appeal_of"] == {"verdict": "deny"}
    (event,) = owner_rows(db, "analytics_events", user.id)
    (event_before,) = events_before
    assert "reason_text" not in event["properties"]
    assert "emergency_reason" not in event["properties"]
    assert all("reason_text" not in turn for turn in event["properties"]["turns"])
    assert [t["reason_category"] for t in event["properties"]["turns"]] == ["other", "work"]
    # Nothing else in the event changed.
    stripped = {
        k: v for k, v in event_before["properties"].items() if k not in ("reason_text", "emergency_reason")
    }
    stripped["turns"] = [{k: v for k, v in t.items() if k != "reason_text"} for t in stripped["turns"]]
    assert event["properties"] == stripped
    # Not a word of the texts anywhere the user's history is read from.
    export = api.get(HISTORY, user.token).body
    exported_old = json.dumps([s for s in export["sessions"] if s["id"] == old], ensure_ascii=False)
    exported_records = json.dumps(
        [r for r in export["decision_records"] if r["subject_id"] in old_turn_ids], ensure_ascii=False
    )
    exported_events = json.dumps(export["events"], ensure_ascii=False)
    for text in (BORED, WORK_APPEAL, EMERGENCY_REASON, LLM_JUSTIFICATION):
        assert text not in exported_old + exported_records + exported_events
    # The dialog still reads back, and a weekly summary computed now is the same as before.
    assert api.get(f"/intercept-session/{old}", user.token).body == resumed_before
    assert summarize(db, user.id, week) == summary


def test_the_purge_is_idempotent_and_only_takes_what_is_due(users, db):
    user, younger = users.create(), users.create()
    add_session(db, user.id, local_start=datetime.now() - timedelta(days=40), category="work", appeal=True)
    add_session(db, younger.id, local_start=datetime.now() - timedelta(days=20), category="study")

    assert purge(db, 30) >= 1

    turns, sessions = (
        owner_rows(db, "intercept_turns", user.id),
        owner_rows(db, "intercept_sessions", user.id),
    )
    assert [t["reason_text"] for t in turns] == [None, None]
    assert [t["reason_text"] for t in owner_rows(db, "intercept_turns", younger.id)] == [
        CATEGORY_REASONS["study"]
    ]
    # Run again: nothing of it is touched a second time (not even its purge time).
    purge(db, 30)
    assert owner_rows(db, "intercept_turns", user.id) == turns
    assert owner_rows(db, "intercept_sessions", user.id) == sessions


def test_only_service_role_may_run_the_purge(users, db):
    user = users.create()
    for transaction in (db.as_user(user.claims), db.transaction("authenticated", user.claims)):
        with pytest.raises(DbError) as refused, transaction as tx:
            tx.one("SELECT public.intercept_purge_reasons(90) AS n")
        assert refused.value.sqlstate == "42501"
    with pytest.raises(DbError) as invalid, db.as_service() as tx:
        tx.one("SELECT public.intercept_purge_reasons(0) AS n")
    assert invalid.value.sqlstate == "22023"


def test_replaying_a_purged_turn_says_why_it_cannot(api, users, db, database_url, capfd):
    user = users.create()
    sid = start(api, user, users.rule(user))
    assert reason(api, user, sid, BORED).status == 200
    age(db, user.id, 100)
    (record,) = owner_rows(db, "decision_records", user.id)
    record_id = str(record["id"])
    assert rails_replay(functions()["InterceptSessionFunction"], database_url, [record_id]) == 0
    capfd.readouterr()

    purge(db)

    (purged,) = owner_rows(db, "decision_records", user.id)
    with pytest.raises(NotReplayable, match="purged after the retention period"):
        replay_record(DecisionRecord.from_row(purged))
    assert rails_replay(functions()["InterceptSessionFunction"], database_url, [record_id]) == 2
    assert f"{record_id}: not replayable: the reason was purged" in capfd.readouterr().out


def test_the_hourly_housekeeping_purges_with_the_configured_retention(users, db):
    from intercept_session.chores import run_housekeeping
    from persona_rails.settings import InterceptSettings

    user = users.create()
    add_session(db, user.id, local_start=datetime.now() - timedelta(days=20), category="other")
    run_housekeeping(db, InterceptSettings.from_env(PERSONA_RAILS_REASON_RETENTION_DAYS=30))
    assert owner_rows(db, "intercept_turns", user.id)[0]["reason_text"] is not None

    report = run_housekeeping(db, InterceptSettings.from_env(PERSONA_RAILS_REASON_RETENTION_DAYS=10))

    assert report.reasons_purged >= 1
    assert owner_rows(db, "intercept_turns", user.id)[0]["reason_text"] is None
