"""A short encounter end to end over HTTP: start, three turns, read back, validate, replay."""

from __future__ import annotations

from persona_rails.decisions import DecisionRecord, load_record


def test_a_short_encounter_runs_and_validates(api, users, db):
    user = users.create()
    started = api.post("/sps/encounters", user.token, {"scenario_id": "chest-pain", "seed": 42})
    assert started.status == 201, started.body
    encounter = started.body["encounter_id"]
    texts = []
    for question in ("What brings you in today?", "When did it start?", "Do you smoke?"):
        reply = api.post(f"/sps/encounters/{encounter}/turns", user.token, {"learner_text": question})
        assert reply.status == 200, reply.body
        texts.append(reply.body["text"])
    detail = api.get(f"/sps/encounters/{encounter}", user.token)
    assert detail.status == 200, detail.body
    assert [t["role"] for t in detail.body["transcript"]] == ["learner", "patient"] * 3
    validated = api.post(
        "/sps/validate",
        user.token,
        {"scenario_id": "chest-pain", "transcript": detail.body["transcript"]},
    )
    assert validated.status == 200, validated.body
    assert validated.body["errors"] == []
    assert validated.body["summaryMetrics"]["totalPatientTurns"] == 3
    turn_id = reply.body["turn_id"]
    with db.as_owner() as tx:
        record = load_record(tx, turn_id)
    assert isinstance(record, DecisionRecord)
    from sps_encounter.replay import replay

    assert replay(record) == record.output
