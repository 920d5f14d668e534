"""Every stored patient turn (decision kind `sps.patient_turn`) replays identically with no
network, `rails replay SpsEncounterFunction ID`: from its recorded state and seed, on the case it
ran (a catalog document found by id and hash, an inline one recorded whole); a tampered record
shows a diff."""

from __future__ import annotations

import copy
import json

import pytest

from persona_rails.config import content_hash
from persona_rails.decisions import DecisionRecord, diff
from persona_rails_dev.cli import main as rails
from persona_rails_dev.replay import replay as rails_replay
from persona_rails_dev.template import functions
from sps_encounter.replay import replay
from tests.integration.sps_encounter.helpers import (
    DECISION_KIND,
    FUNCTION,
    IDENTITY,
    IDENTITY_AGAIN,
    ONSET,
    OPENING,
    VARIED,
    decision_record,
    inline_scenario,
    records_of,
    start,
    stored_encounter,
    take,
)
from tests.support.decisions import tampered_output

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")


def _assert_replays_in_process(rows: list[dict]) -> None:
    for row in rows:
        assert (row["function_name"], row["kind"], row["subject_type"]) == (
            FUNCTION,
            DECISION_KIND,
            "sps_turn",
        )
        record = DecisionRecord.from_row(row)
        assert diff(record.output, replay(record)) == [], row["id"]


def test_every_turn_of_a_varied_encounter_replays_identically(api, users, db, capfd):
    learner = users.create()
    encounter = start(api, learner, persona_id="en-anxious-talkative", seed=31337)["encounter_id"]
    bodies = [take(api, learner, encounter, text) for text in VARIED]
    kinds = {b["meta"]["kind"] for b in bodies}
    assert {
        "opening",
        "answer",
        "dob_challenge",
        "identity",
        "clarification",
        "refusal",
        "uncertain",
    } <= kinds
    assert any(b["meta"]["rapportShift"] for b in bodies)
    rows = records_of(db, learner.id)
    assert len(rows) == len(VARIED)
    assert {row["source"] for row in rows} == {"offline"}
    # Each record: the state the turn started from, its seed, its output as the learner got it.
    by_id = {str(row["id"]): row for row in rows}
    previous_state = None
    for text, body in zip(VARIED, bodies, strict=True):
        row = by_id[body["turn_id"]]
        assert row["output"] == {"text": body["text"], "meta": body["meta"]}
        assert (row["inputs"]["learner_text"], row["inputs"]["encounter_id"]) == (text, encounter)
        assert row["seed"] == row["inputs"]["state"]["rngSeed"]
        if previous_state is not None:
            assert row["inputs"]["state"] == previous_state
        previous_state = body["state"]
    _assert_replays_in_process(rows)

    ids = [str(row["id"]) for row in rows]
    capfd.readouterr()
    assert rails(["replay", FUNCTION, *ids]) == 0
    out = capfd.readouterr().out
    assert out.count(": identical") == len(ids)
    assert f"replayed {len(ids)} decision(s)" in out


def test_an_inline_scenario_encounter_replays_from_its_recorded_documents(
    api, users, db, database_url, capfd
):
    learner = users.create()
    scenario = inline_scenario(title="A chest pain written for this test only")
    scenario["subjective_catalog"][0]["answers"] = ["Three weeks, it's been."]
    started = start(api, learner, scenario_id=None, scenario=scenario)
    assert started["scenario"]["source"] == "inline"
    bodies = [
        take(api, learner, started["encounter_id"], text)
        for text in (OPENING, ONSET, IDENTITY, IDENTITY_AGAIN)
    ]
    assert bodies[1]["text"].endswith("hree weeks, it's been.")
    rows = records_of(db, learner.id)
    for row in rows:
        recorded = row["inputs"]["scenario"]
        assert (recorded["source"], recorded["id"], recorded["document"]) == (
            "inline",
            "chest-pain-inline",
            scenario,
        )
        assert recorded["hash"] == content_hash(scenario)
        assert row["inputs"]["persona"]["source"] == "catalog"
        assert "document" not in row["inputs"]["persona"]
    _assert_replays_in_process(rows)
    capfd.readouterr()
    assert rails_replay(functions()[FUNCTION], database_url, [str(row["id"]) for row in rows]) == 0
    assert capfd.readouterr().out.count(": identical") == len(rows)


@pytest.mark.parametrize(
    ("path", "value", "shown"),
    [
        ("{text}", '"I feel perfectly fine."', '-  "text": "I feel perfectly fine."'),
        ("{meta,kind}", '"refusal"', '-    "kind": "refusal",'),
        ("{meta,rng,0,state}", "12345", '-        "state": 12345,'),
        ("{meta,slots,onset}", '"two days ago"', '-      "onset": "two days ago"'),
    ],
    ids=["text", "kind", "rng-draw", "fact"],
)
def test_a_tampered_record_shows_the_diff(api, users, db, database_url, capfd, path, value, shown):
    learner = users.create()
    encounter = start(api, learner)["encounter_id"]
    take(api, learner, encounter, OPENING)
    turn_id = take(api, learner, encounter, ONSET)["turn_id"]
    with tampered_output(db, turn_id, path, value):
        record = DecisionRecord.from_row(decision_record(db, turn_id))
        assert diff(record.output, replay(record)) != []
        capfd.readouterr()
        assert rails_replay(functions()[FUNCTION], database_url, [turn_id]) == 1
        out = capfd.readouterr().out
        assert f"{turn_id}: differs" in out
        assert shown in out
    record = DecisionRecord.from_row(decision_record(db, turn_id))
    assert diff(record.output, replay(record)) == []


def test_an_unknown_id_is_reported_as_not_found(database_url, capfd):
    capfd.readouterr()
    assert rails_replay(functions()[FUNCTION], database_url, ["00000000-0000-4000-8000-00000000dead"]) == 2
    out = capfd.readouterr().out
    assert "no such decision record" in out
    assert "replayed 0 decision(s), 1 not replayed" in out


def test_a_turn_run_on_an_older_catalog_snapshot_replays(api, users, db, database_url, capfd):
    learner = users.create()
    encounter = start(api, learner)["encounter_id"]
    # The encounter started under an earlier version of the catalog's chest-pain.
    older = copy.deepcopy(stored_encounter(db, encounter)["scenario"])
    older["version"] = "2026.10.0"
    older["subjective_catalog"][0]["answers"] = ["Three weeks ago, near enough."]
    with db.as_owner() as tx:
        tx.execute(
            "UPDATE public.sps_encounters SET scenario = CAST(:s AS jsonb), scenario_hash = :h WHERE id = CAST(:e AS uuid)",
            s=json.dumps(older),
            h=content_hash(older),
            e=encounter,
        )
    body = take(api, learner, encounter, ONSET)
    try:
        # The encounter runs the document it started with.
        assert "near enough" in body["text"]
        capfd.readouterr()
        status = rails_replay(functions()[FUNCTION], database_url, [body["turn_id"]])
        out = capfd.readouterr().out
        assert status == 0, out
        assert f"{body['turn_id']}: identical" in out
    finally:
        # Leave no unreplayable record behind for the replay of every stored turn.
        with db.as_owner() as tx:
            tx.execute("DELETE FROM public.decision_records WHERE id = CAST(:i AS uuid)", i=body["turn_id"])


def test_every_stored_turn_of_the_function_replays_identically(api, users, capfd):
    """`rails replay SpsEncounterFunction --all`: every turn the tests before this one stored
    (offline, LLM-phrased, fact-checked, faulted; catalog and inline cases), and one of its own."""
    learner = users.create()
    take(api, learner, start(api, learner)["encounter_id"], OPENING)
    capfd.readouterr()
    status = rails(["replay", FUNCTION, "--all"])
    out = capfd.readouterr().out
    assert status == 0, "\n".join(line for line in out.splitlines() if not line.endswith(": identical"))
    replayed = out.count(": identical")
    assert replayed > 0
    assert f"replayed {replayed} decision(s)" in out
