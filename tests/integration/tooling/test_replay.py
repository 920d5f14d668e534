"""`rails replay`: every stored intercept turn recomputes identically with no network, including
turns the LLM decided (replayed from their recorded reply), and a tampered record shows a diff."""

from persona_rails_dev.cli import main as rails
from persona_rails_dev.demo import run_varied_dialogs
from persona_rails_dev.replay import replay
from persona_rails_dev.template import functions
from tests.support.dialog import reason, start
from tests.support.fake_openai import json_content

FUNCTION = "InterceptSessionFunction"


def _records(db, where="TRUE", **params):
    with db.as_owner() as tx:
        return tx.rows(f"SELECT * FROM public.decision_records WHERE {where} ORDER BY created_at", **params)


def test_after_twenty_demo_dialogs_every_turn_replays_identically(local_stack, db, capfd):
    before = {row["id"] for row in _records(db)}
    run_varied_dialogs(local_stack, 20, print_fn=lambda *_: None)
    new = [str(row["id"]) for row in _records(db) if row["id"] not in before]
    assert len(new) == 20
    capfd.readouterr()
    assert rails(["replay", FUNCTION, *new]) == 0
    out = capfd.readouterr().out
    assert out.count(": identical") == 20
    assert "replayed 20 decision(s)" in out


def test_a_turn_the_llm_decided_replays_from_its_recorded_reply(
    api, users, db, database_url, fake_openai, capfd
):
    alice = users.create()
    sid = start(api, alice, users.rule(alice))
    fake_openai.script(
        json_content(
            {
                "reason_category": "work",
                "verdict": "delay",
                "confidence": 0.77,
                "justification": "needs a timer",
            }
        )
    )
    assert reason(api, alice, sid, "老板让我看一下客户的新需求文档").body["source"] == "llm"
    (record,) = _records(db, "subject_type = 'intercept_turn' AND user_id = CAST(:u AS uuid)", u=alice.id)
    assert record["source"] == "llm"
    assert '"needs a timer"' in record["raw_reply"]
    capfd.readouterr()
    # The fake server is still configured in this process; the child replays with no LLM at all.
    assert replay(functions()[FUNCTION], database_url, [str(record["id"])]) == 0
    assert f"{record['id']}: identical" in capfd.readouterr().out
    assert len(fake_openai.requests) == 1


def test_a_tampered_record_shows_the_diff_and_an_unknown_id_is_reported(api, users, db, database_url, capfd):
    alice = users.create()
    sid = start(api, alice, users.rule(alice))
    reason(api, alice, sid)
    (record,) = _records(db, "user_id = CAST(:u AS uuid)", u=alice.id)
    with db.as_owner() as tx:
        tx.execute(
            "UPDATE public.decision_records SET output = jsonb_set(output, '{ai_verdict}', '\"allow\"')"
            " WHERE id = :id",
            id=record["id"],
        )
    capfd.readouterr()
    assert replay(functions()[FUNCTION], database_url, [str(record["id"])]) == 1
    out = capfd.readouterr().out
    assert "differs" in out
    assert '-  "ai_verdict": "allow"' in out
    assert replay(functions()[FUNCTION], database_url, ["00000000-0000-4000-8000-00000000dead"]) == 2
