"""Every evaluation stores one decision record (kind `chair.interrupt`), whatever it decided, and
every record replays identically with no network, `rails replay ChairInterruptFunction ID`:
offline evaluations from their inputs and seed, LLM ones from their recorded replies. A tampered
record shows a diff; a candidate that lost its cooldown claim replays as `on_cooldown`."""

from __future__ import annotations

import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from chair_interrupt.artifacts import chair_config
from chair_interrupt.replay import replay as replay_evaluation
from persona_rails.decisions import DecisionRecord, diff
from persona_rails_dev.cli import main as rails
from persona_rails_dev.replay import replay
from persona_rails_dev.template import functions
from tests.integration.chair_interrupt.helpers import (
    CALM,
    CHALLENGE,
    DECISION_KIND,
    DEONTOLOGY_ERROR,
    EVALUATION_ID,
    FUNCTION,
    HEDGED,
    PIVOTAL,
    STRAW_MAN,
    THRESHOLDS,
    VIRTUE,
    cooldown_rows,
    decision_record,
    evaluate,
    evaluate_body,
    new_debate,
    post_evaluate,
    record_of,
    records,
)
from tests.support.decisions import tampered_output
from tests.support.fake_openai import Completion, json_content, server_error

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")


def _assert_replays_in_process(rows: list[dict]) -> None:
    for row in rows:
        record = DecisionRecord.from_row(row)
        assert diff(record.output, replay_evaluation(record)) == [], row["id"]


def _verdict(**overrides):
    reply = {
        "shouldInterrupt": True,
        "interruptingChairPosition": "chair_3",
        "reason": "pivotal_point",
        "triggerContent": "whether rights are absolute",
        "urgency": 0.9,
        "suggestedOpener": None,
    }
    return json_content({**reply, **overrides})


# -- what a record holds ------------------------------------------------------------------------


def test_every_kind_of_evaluation_stores_one_record(api, users, db):
    owner = users.create()
    debate = new_debate()
    history = "x" * 500 + "The moderator opened. " * 50 + "Then chair_1 spoke."
    cases = [
        ("interrupt", dict(recent_content=STRAW_MAN, debate_so_far=history)),
        ("on_cooldown", dict(recent_content=STRAW_MAN)),  # chair_2 alone can defend itself
        ("interrupt", dict(recent_content=CHALLENGE)),  # chair_3 takes it
        ("no_eligible_chair", dict(recent_content=DEONTOLOGY_ERROR)),
        ("disabled", dict(recent_content=STRAW_MAN, enabled=False)),
        ("chair_interruptions_off", dict(recent_content=STRAW_MAN, allow_chair_interruptions=False)),
    ]
    other = new_debate()
    replies = [evaluate(api, owner, debate, **kwargs) for _, kwargs in cases]
    replies.append(evaluate(api, owner, other, CALM, aggressiveness=1))
    replies.append(evaluate(api, owner, other, PIVOTAL, aggressiveness=1))
    replies.append(evaluate(api, owner, other, HEDGED, aggressiveness=4))
    expected = [outcome for outcome, _ in cases] + ["below_threshold", "below_threshold", "hedged"]

    rows = records(db, owner.id)
    assert len(rows) == len(replies)
    assert sorted(str(row["id"]) for row in rows) == sorted(reply.headers[EVALUATION_ID] for reply in replies)
    version = chair_config().version
    for reply, outcome in zip(replies, expected, strict=True):
        record = record_of(db, reply)
        assert (record["function_name"], record["kind"], record["subject_type"]) == (
            FUNCTION,
            DECISION_KIND,
            "chair_evaluation",
        )
        assert str(record["subject_id"]) == str(record["id"])
        assert str(record["user_id"]) == owner.id
        assert record["engine_version"]
        assert record["config_version"] == version
        assert (record["source"], record["model"], record["raw_reply"]) == ("offline", None, None)
        assert isinstance(record["seed"], int)
        output = record["output"]
        assert output["outcome"] == outcome, (outcome, output)
        assert (output["candidate"] is not None) == (outcome == "interrupt")
        assert output["candidate"] == reply.body
        inputs = record["inputs"]
        assert re.fullmatch(r"[0-9a-f]{64}", inputs["context_hash"])
        assert inputs["threshold"] == THRESHOLDS[inputs["interruptions"]["aggressiveness"]]
        assert inputs["cooldown_claimed"] is (outcome == "interrupt")
        if outcome in ("disabled", "chair_interruptions_off"):
            # Nothing was read or checked: the config alone decided.
            assert inputs["quick_check"] is None
            assert inputs["on_cooldown"] == []
        else:
            assert set(inputs["quick_check"]) == {"potential_trigger", "likely_reason"}

    first, blocked, challenged, nobody = (record_of(db, reply) for reply in replies[:4])
    assert first["inputs"]["quick_check"] == {
        "potential_trigger": True,
        "likely_reason": "straw_man_detected",
    }
    assert first["inputs"]["on_cooldown"] == []
    assert blocked["inputs"]["on_cooldown"] == ["chair_2"]
    assert challenged["inputs"]["quick_check"] == {
        "potential_trigger": True,
        "likely_reason": "direct_challenge",
    }
    assert nobody["inputs"]["on_cooldown"] == ["chair_2", "chair_3"]
    # The context as the prompt reads it: the last 800 characters of the debate so far.
    context = first["inputs"]["context"]
    assert context["debate_so_far"] == history[-800:]
    assert context["recent_content"] == STRAW_MAN
    assert context["other_chairs"][0] == VIRTUE
    assert first["inputs"]["interruptions"] == evaluate_body()["interruptions"]
    no_trigger = record_of(db, replies[6])
    assert no_trigger["inputs"]["quick_check"] == {"potential_trigger": False, "likely_reason": None}


def test_the_context_hash_identifies_the_request(api, users, db):
    owner = users.create()
    same = [evaluate(api, owner, new_debate(), STRAW_MAN) for _ in range(2)]
    changed = [
        evaluate(api, owner, new_debate(), STRAW_MAN, aggressiveness=4),
        evaluate(api, owner, new_debate(), STRAW_MAN, topic="Free will"),
        evaluate(api, owner, new_debate(), STRAW_MAN, debate_so_far="x" * 900),
        evaluate(api, owner, new_debate(), STRAW_MAN, debate_so_far="y" + "x" * 900),
    ]
    hashes = [record_of(db, reply)["inputs"]["context_hash"] for reply in same + changed]
    assert hashes[0] == hashes[1]
    # The hash covers the whole history, not only the 800 characters the prompt reads.
    assert len(set(hashes[1:])) == len(changed) + 1


def test_the_same_request_in_the_same_debate_draws_the_same_seed(api, users, db):
    owner = users.create()
    debate = new_debate()
    first = evaluate(api, owner, debate, STRAW_MAN, cooldown_seconds=0)
    again = evaluate(api, owner, debate, STRAW_MAN, cooldown_seconds=0)
    elsewhere = evaluate(api, owner, new_debate(), STRAW_MAN, cooldown_seconds=0)
    seeds = [record_of(db, reply)["seed"] for reply in (first, again, elsewhere)]
    assert seeds[0] == seeds[1] != seeds[2]
    assert first.body["suggested_opener"] == again.body["suggested_opener"]


def test_an_llm_evaluation_records_the_model_and_its_raw_reply(api, users, db, fake_openai):
    owner = users.create()
    raw = _verdict(suggestedOpener="Here is our crux")
    fake_openai.script(raw)
    reply = evaluate(api, owner, new_debate(), PIVOTAL)
    record = record_of(db, reply)
    assert (record["source"], record["model"], record["raw_reply"]) == ("llm", "test-model", raw.content)
    assert record["output"]["candidate"]["suggested_opener"] == "Here is our crux"


# -- replay -------------------------------------------------------------------------------------


def test_every_offline_evaluation_replays_identically(api, users, db, capfd):
    owner = users.create()
    debate = new_debate()
    for content, config in (
        (STRAW_MAN, {}),
        (STRAW_MAN, {}),
        (CHALLENGE, {}),
        (DEONTOLOGY_ERROR, {}),
        (STRAW_MAN, {"enabled": False}),
        (STRAW_MAN, {"allow_chair_interruptions": False}),
    ):
        evaluate(api, owner, debate, content, **config)
    other = new_debate()
    for content, config in (
        (CALM, {"aggressiveness": 5}),
        (PIVOTAL, {"aggressiveness": 1}),
        (PIVOTAL, {"aggressiveness": 5, "cooldown_seconds": 0}),
        (PIVOTAL, {"aggressiveness": 5, "cooldown_seconds": 0}),
        ("The core question is what we owe strangers!", {"aggressiveness": 4}),
    ):
        evaluate(api, owner, other, content, **config)
    rows = records(db, owner.id)
    assert len(rows) == 11
    assert {row["source"] for row in rows} == {"offline"}
    _assert_replays_in_process(rows)

    ids = [str(row["id"]) for row in rows]
    capfd.readouterr()
    assert rails(["replay", FUNCTION, *ids]) == 0
    out = capfd.readouterr().out
    assert out.count(": identical") == len(ids)
    assert f"replayed {len(ids)} decision(s)" in out


def test_llm_evaluations_replay_from_their_recorded_replies(api, users, db, database_url, fake_openai, capfd):
    owner = users.create()
    fake_openai.script(
        _verdict(),  # interrupt, opener from the pool
        _verdict(suggestedOpener="That is the crux"),
        _verdict(interruptingChairPosition="chair_9"),  # unknown chair
        _verdict(reason="ad_hominem"),  # unknown reason
        _verdict(urgency=7),  # clamped
        _verdict(shouldInterrupt=False),
        Completion("no JSON here"),  # malformed
        server_error(500),  # offline fallback
    )
    replies = [evaluate(api, owner, new_debate(), PIVOTAL) for _ in range(8)]
    rows = records(db, owner.id)
    assert [row["source"] for row in rows] == ["llm"] * 7 + ["offline"]
    assert [row["output"]["outcome"] for row in rows] == [
        "interrupt",
        "interrupt",
        "unknown_chair",
        "unknown_reason",
        "interrupt",
        "declined",
        "malformed_reply",
        "interrupt",
    ]
    assert all(row["raw_reply"] is not None for row in rows[:7])
    assert [reply.body is not None for reply in replies] == [
        True,
        True,
        False,
        False,
        True,
        False,
        False,
        True,
    ]
    requests_before = len(fake_openai.requests)

    _assert_replays_in_process(rows)
    ids = [str(row["id"]) for row in rows]
    capfd.readouterr()
    # The fake server is still configured in this process; the child replays with no LLM at all.
    assert replay(functions()[FUNCTION], database_url, ids) == 0
    assert capfd.readouterr().out.count(": identical") == len(ids)
    assert len(fake_openai.requests) == requests_before


@pytest.mark.parametrize(
    ("path", "value", "shown"),
    [
        ("{outcome}", '"below_threshold"', '-  "outcome": "below_threshold"'),
        ("{candidate,interrupting_chair,position}", '"chair_3"', '-      "position": "chair_3"'),
        ("{candidate,trigger_reason}", '"pivotal_point"', '-    "trigger_reason": "pivotal_point"'),
        ("{urgency}", "0.1", '-  "urgency": 0.1'),
    ],
    ids=["outcome", "chair", "reason", "urgency"],
)
def test_a_tampered_record_shows_the_diff(api, users, db, database_url, capfd, path, value, shown):
    owner = users.create()
    evaluation_id = evaluate(api, owner, new_debate(), STRAW_MAN).headers[EVALUATION_ID]
    with tampered_output(db, evaluation_id, path, value):
        record = DecisionRecord.from_row(decision_record(db, evaluation_id))
        assert diff(record.output, replay_evaluation(record)) != []
        capfd.readouterr()
        assert replay(functions()[FUNCTION], database_url, [evaluation_id]) == 1
        out = capfd.readouterr().out
        assert f"{evaluation_id}: differs" in out
        assert shown in out
    record = DecisionRecord.from_row(decision_record(db, evaluation_id))
    assert diff(record.output, replay_evaluation(record)) == []


def test_an_unknown_id_is_reported_as_not_found(database_url, capfd):
    capfd.readouterr()
    assert replay(functions()[FUNCTION], database_url, ["00000000-0000-4000-8000-00000000dead"]) == 2
    assert "no such decision record" in capfd.readouterr().out


# -- a candidate that lost its cooldown claim ---------------------------------------------------


def _wait_for_a_lock_wait(db) -> None:
    """Until some backend waits on a row lock of chair_cooldowns (a synchronisation, not a timing
    assertion: the bound only keeps a broken product from hanging the suite)."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        with db.as_owner() as probe:
            waiting = probe.one(
                "SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                " AND query LIKE '%chair_cooldowns%'"
            )["n"]
        if waiting:
            return
        time.sleep(0.01)
    raise AssertionError("the evaluation never waited on the cooldown row")


def test_a_candidate_that_lost_its_cooldown_claim_replays_as_on_cooldown(api, users, db, database_url, capfd):
    """A concurrent claim, made deterministic: another transaction has inserted chair_2's
    cooldown but not committed it. The evaluation reads no cooldown, decides to interrupt, waits
    on that row to claim it, and finds it fresh once the other commits: no interrupt."""
    owner = users.create()
    debate = new_debate()
    body = evaluate_body(STRAW_MAN, other_chairs=[VIRTUE])
    with ThreadPoolExecutor(max_workers=1) as pool:
        with db.as_owner() as rival:
            rival.execute(
                "INSERT INTO public.chair_cooldowns (user_id, debate_id, chair_position, last_interrupt_at)"
                " VALUES (CAST(:u AS uuid), CAST(:d AS uuid), 'chair_2', now())",
                u=owner.id,
                d=debate,
            )
            pending = pool.submit(post_evaluate, api, owner.token, debate, body)
            _wait_for_a_lock_wait(db)
            assert not pending.done()
        reply = pending.result(timeout=30)
    assert reply.status == 200, reply.body
    assert reply.body is None
    record = record_of(db, reply)
    assert record["inputs"]["on_cooldown"] == []
    assert record["inputs"]["cooldown_claimed"] is False
    assert record["output"]["outcome"] == "on_cooldown"
    assert record["output"]["candidate"] is None
    assert [row["chair_position"] for row in cooldown_rows(db, owner.id, debate)] == ["chair_2"]
    with db.as_owner() as tx:
        assert (
            tx.one(
                "SELECT count(*) AS n FROM public.chair_interruptions WHERE user_id = CAST(:u AS uuid)",
                u=owner.id,
            )["n"]
            == 0
        )

    loaded = DecisionRecord.from_row(record)
    assert replay_evaluation(loaded) == record["output"]
    capfd.readouterr()
    assert replay(functions()[FUNCTION], database_url, [str(record["id"])]) == 0
    assert f"{record['id']}: identical" in capfd.readouterr().out


def test_records_of_parallel_losers_replay_identically(api, users, db):
    owner = users.create()
    debate = new_debate()
    body = evaluate_body(STRAW_MAN, other_chairs=[VIRTUE])
    barrier = threading.Barrier(6)

    def call(_):
        barrier.wait()
        return post_evaluate(api, owner.token, debate, body)

    with ThreadPoolExecutor(max_workers=6) as pool:
        replies = list(pool.map(call, range(6)))
    assert sum(reply.body is not None for reply in replies) == 1
    _assert_replays_in_process(records(db, owner.id))
