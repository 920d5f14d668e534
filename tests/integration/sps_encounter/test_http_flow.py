"""A whole encounter over HTTP: start, ten turns, the §11 transcript back, validated clean; each
turn's meta records its decisions and RNG draws (xorshift32 from the seed, draw after draw); the
same seed, case and learner turns give the same encounter, text and meta (the issue's
determinism requirement); no seed gets a random one, returned."""

from __future__ import annotations

import re

import pytest

from tests.integration.sps_encounter.helpers import (
    ENCOUNTERS,
    IDENTITY,
    IDENTITY_AGAIN,
    MEASURE_BP,
    MEDICATIONS,
    ONSET,
    OPENING,
    SCENARIO,
    TEN_TURNS,
    VARIED,
    assert_schema,
    catalog_document,
    get_encounter,
    post_turn,
    start,
    stored_encounter,
    stored_turns,
    take,
    validate,
    without_ids,
    xorshift32,
)

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")


def _run(api, user, texts, **start_fields):
    started = start(api, user, **start_fields)
    encounter = started["encounter_id"]
    return started, [take(api, user, encounter, text) for text in texts]


def test_ten_turns_give_a_transcript_that_validates_with_no_error(api, users, db):
    learner = users.create()
    started, turns = _run(api, learner, TEN_TURNS)
    encounter = started["encounter_id"]

    # Each learner utterance and each patient answer takes one index: +2 per turn.
    for number, body in enumerate(turns):
        assert (body["learner_turn_index"], body["patient_turn_index"]) == (2 * number, 2 * number + 1)
        assert body["state"]["turnIndex"] == 2 * (number + 1)
    kinds = [body["meta"]["kind"] for body in turns]
    assert kinds == [
        "opening",
        "answer",
        "dob_challenge",
        "identity",
        "answer",
        "answer",
        "clarification",
        "refusal",
        "answer",
        "answer",
    ]
    by_text = dict(zip(TEN_TURNS, turns, strict=True))
    # §8: the DOB challenge once, then full compliance on a clear re-ask.
    assert by_text[IDENTITY]["meta"]["dobChallenge"] is True
    complied = by_text[IDENTITY_AGAIN]
    assert "Daniel Hughes" in complied["text"]
    assert "1968" in complied["text"]
    assert complied["meta"]["identityVerified"] is True
    assert complied["meta"]["layers"] == [{"layer": 2, "rule": "identity", "after_challenge": True}]
    # Layer 2: the fact asked for, as the case states it.
    assert by_text[ONSET]["meta"]["slots"] == {"onset": "three weeks ago"}
    assert by_text[OPENING]["meta"]["slots"]["chief_complaint"] == "chest pain on exertion for three weeks"
    # §7: the hidden agenda rides on the medications answer, once.
    assert by_text[MEDICATIONS]["meta"]["agendaRevealed"] == ["stopped_statin"]
    assert by_text[MEDICATIONS]["state"]["agendaRevealed"] == ["stopped_statin"]
    # A measurement gives the number; nothing else does.
    assert "152/94" in by_text[MEASURE_BP]["text"]
    assert all("152/94" not in body["text"] for body in turns if body is not by_text[MEASURE_BP])

    detail = get_encounter(api, learner.token, encounter)
    assert detail.status == 200, detail.body
    assert (detail.body["turn_index"], detail.body["expired"], detail.body["seed"]) == (20, False, 42)
    assert detail.body["state"] == turns[-1]["state"]
    transcript = detail.body["transcript"]
    assert_schema("transcript.schema.json", {"transcript": transcript})
    assert [t["turnIndex"] for t in transcript] == list(range(20))
    assert [t["role"] for t in transcript] == ["learner", "patient"] * 10
    assert [t["text"] for t in transcript[0::2]] == list(TEN_TURNS)
    assert [t["text"] for t in transcript[1::2]] == [body["text"] for body in turns]
    assert [t["meta"] for t in transcript[1::2]] == [body["meta"] for body in turns]
    assert all(t.get("meta") is None for t in transcript[0::2])

    # The transcript goes to /sps/validate as it is.
    result = validate(api, learner.token, transcript)
    assert result.status == 200, result.body
    assert_schema("validation-result.schema.json", result.body)
    assert result.body["errors"] == []
    metrics = result.body["summaryMetrics"]
    assert metrics["totalPatientTurns"] == 10
    assert (metrics["refusalCount"], metrics["unsafeRequests"], metrics["agendaRevealCount"]) == (1, 1, 1)
    assert metrics["clarificationRate"] == 0.1
    assert 0 <= metrics["elaborationRate"] <= 0.4
    # Stored: one row per turn, the encounter advanced to the last one.
    assert [t["learner_index"] for t in stored_turns(db, encounter)] == list(range(0, 20, 2))
    assert stored_encounter(db, encounter)["state"] == turns[-1]["state"]


def test_each_turns_meta_records_every_rng_draw_of_the_seeds_xorshift32_stream(api, users):
    learner = users.create()
    started, turns = _run(api, learner, TEN_TURNS, seed=42)
    state = started["state"]["rngSeed"]
    assert state == 42
    for body in turns:
        draws = body["meta"]["rng"]
        for draw in draws:
            # Draw after draw, across turns: nothing is drawn that the meta does not record.
            state = xorshift32(state)
            assert draw["state"] == state
            assert draw["value"] == state / 0xFFFFFFFF
            assert draw["domain"] in {"clar", "bound", "decl", "other"}
        assert body["state"]["rngSeed"] == state
        meta = body["meta"]
        purposes = [draw["purpose"] for draw in draws]
        # The decisions a draw made are recorded with it.
        elaboration = meta["elaboration"]
        if meta["questionType"] in ("open", "narrative"):
            assert elaboration["eligible"] is True
            drawn = [d["value"] for d in draws if d["purpose"] == "elaboration"]
            assert drawn == [elaboration["draw"]]
            assert elaboration["wanted"] == (elaboration["draw"] < elaboration["probability"])
            told = elaboration["wanted"] and not elaboration["throttled"] and elaboration["unsaid"] is None
            assert meta["elaborated"] == told
        else:
            assert (elaboration["eligible"], meta["elaborated"]) == (False, False)
            assert "elaboration" not in purposes
        if meta["opening"]["opener"] is not None:
            assert {"opener_text", "anti_echo"} & set(purposes)
        assert meta["opening"]["bigram"]
        assert meta["opening"]["bigram"] == body["state"]["lastOpeners"][-1]
        if meta["disfluencies"]:
            assert "disfluency_token" in purposes
    # The first three states of seed 42 (the vectors) open the stream.
    first = [draw["state"] for body in turns for draw in body["meta"]["rng"]][:3]
    assert first == [11355432, 2836018348, 476557059]


def test_the_same_seed_case_and_turns_give_the_same_encounter(api, users):
    """Two learners, each their own encounter of the same seed and case, ask the same questions."""
    first, second = users.create(), users.create()
    texts = (*TEN_TURNS, "Do you smoke?", "Tell me more about your work.", "Thank you, that sounds hard.")
    started_a, turns_a = _run(api, first, texts, seed=2024, persona_id="en-anxious-talkative")
    started_b, turns_b = _run(api, second, texts, seed=2024, persona_id="en-anxious-talkative")
    assert started_a["encounter_id"] != started_b["encounter_id"]
    assert started_a["state"] == started_b["state"]
    assert [without_ids(b) for b in turns_a] == [without_ids(b) for b in turns_b]
    transcript_a = get_encounter(api, first.token, started_a["encounter_id"]).body["transcript"]
    transcript_b = get_encounter(api, second.token, started_b["encounter_id"]).body["transcript"]
    assert transcript_a == transcript_b

    # Another seed varies the phrasing (the same facts, other words or draws).
    third = users.create()
    _, turns_c = _run(api, third, texts, seed=2025, persona_id="en-anxious-talkative")
    assert [b["meta"]["rng"] for b in turns_c] != [b["meta"]["rng"] for b in turns_a]
    assert [b["meta"]["slots"] for b in turns_c] == [b["meta"]["slots"] for b in turns_a]


def test_an_inline_scenario_and_persona_run_like_the_catalogs(api, users):
    learner, other = users.create(), users.create()
    scenario = catalog_document("scenarios", SCENARIO)
    persona = catalog_document("personas", "en-reserved-brief")
    scenario["id"], persona["id"] = "chest-pain-copy", "reserved-copy"
    started, inline = _run(
        api, learner, TEN_TURNS[:5], scenario=scenario, persona=persona, scenario_id=None, persona_id=None
    )
    assert (started["scenario"]["source"], started["persona"]["source"]) == ("inline", "inline")
    assert started["scenario"]["id"] == "chest-pain-copy"
    _, catalog = _run(api, other, TEN_TURNS[:5])
    assert [without_ids(b) for b in inline] == [without_ids(b) for b in catalog]


def test_without_a_seed_a_random_nonzero_one_is_drawn_and_returned(api, users, db):
    learner = users.create()
    seeds = set()
    for number in range(3):
        started = start(api, learner, seed=None, persona_id=None)
        seed = started["seed"]
        assert isinstance(seed, int)
        assert 1 <= seed <= 0xFFFFFFFF
        assert started["state"]["rngSeed"] == seed
        assert stored_encounter(db, started["encounter_id"])["seed"] == seed
        assert started["persona"]["id"] == "en-reserved-brief"  # the scenario's default persona
        body = take(api, learner, started["encounter_id"], f"{OPENING} ({number})")
        assert body["meta"]["rng"][0]["state"] == xorshift32(seed)
        seeds.add(seed)
    assert len(seeds) == 3


def test_a_start_answers_the_case_it_will_run(api, users):
    learner = users.create()
    reply = api.post(ENCOUNTERS, learner.token, {"scenario_id": SCENARIO, "seed": 9})
    assert reply.status == 201, reply.body
    body = reply.body
    assert body["scenario"]["id"] == SCENARIO
    assert body["scenario"]["learner_brief"].startswith("Mr. Daniel Hughes")
    assert (body["persona"]["id"], body["persona"]["verbosity"]) == ("en-reserved-brief", "brief")
    assert body["state"]["personaVerbosity"] == "brief"
    assert body["state"]["rapport"] == "guarded"
    assert body["expires_at"] > body["created_at"]


_LOWERCASE_AFTER_STOP = re.compile(r"[.!?] +[a-z]")


@pytest.mark.parametrize(("persona", "seed"), [("en-reserved-brief", 42), ("en-anxious-talkative", 5)])
def test_a_sentence_after_an_opener_starts_with_a_capital(api, users, persona, seed):
    """'Let me think. Didn't I already tell the receptionist?', not '… didn't I …'."""
    learner = users.create()
    _, turns = _run(api, learner, VARIED, seed=seed, persona_id=persona)
    assert any(body["meta"]["opening"]["opener"] for body in turns)
    for body in turns:
        assert not _LOWERCASE_AFTER_STOP.search(body["text"]), body["text"]


def test_a_turn_on_an_encounter_id_that_is_not_a_uuid_names_the_field(api, users):
    learner = users.create()
    reply = post_turn(api, learner.token, "not-an-encounter", OPENING)
    assert reply.status == 422, reply.body
    assert reply.error["field"] == "encounter_id"
    assert get_encounter(api, learner.token, "not-an-encounter").error["field"] == "encounter_id"
