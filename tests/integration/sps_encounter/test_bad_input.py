"""Bad input: a 4xx JSON error naming the field or the state, never a 500, and never a half-written
row. After each refusal the learner's stored rows are counted again (as the table owner, so
nothing is hidden): nothing may have changed."""

from __future__ import annotations

import time
import uuid

import pytest

from tests.integration.sps_encounter.helpers import (
    ENCOUNTERS,
    NOTHING,
    ONSET,
    OPENING,
    SCENARIO,
    VALIDATE,
    catalog_document,
    inline_scenario,
    post_start,
    post_turn,
    row_counts,
    start,
    start_body,
    stored_encounter,
    take,
    validate,
)

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")


def _assert_error(reply, status: int, code: str | None = None, *, field=None, state=None) -> dict:
    assert reply.status == status, reply.body
    error = reply.error
    assert isinstance(error["message"], str)
    assert error["message"]
    if code is not None:
        assert error["code"] == code
    if field is not None:
        assert error["field"] == field
    if state is not None:
        assert error["state"] == state
    return error


@pytest.fixture
def opened(api, users, db):
    """A learner with an encounter of one turn, and what is stored for them."""
    learner = users.create()
    encounter = start(api, learner)["encounter_id"]
    take(api, learner, encounter, OPENING)
    return learner, encounter, row_counts(db, learner.id)


# Starting an encounter


def _with_age(age):
    scenario = inline_scenario()
    scenario["demographics"]["age"] = age
    return scenario


def _without(path: tuple[str, ...]):
    scenario = inline_scenario()
    holder = scenario
    for name in path[:-1]:
        holder = holder[name]
    del holder[path[-1]]
    return scenario


def _slot_pattern(pattern: str):
    scenario = inline_scenario()
    scenario["subjective_catalog"][0]["patterns"] = [pattern]
    return scenario


BAD_STARTS = [
    # (id, body, status, code, field)
    ("unknown-scenario", {"scenario_id": "no-such-case"}, 404, "scenario_not_found", "scenario_id"),
    ("unknown-persona", {"scenario_id": SCENARIO, "persona_id": "no-such-persona"}, 404, "persona_not_found",
     "persona_id"),
    ("both-scenarios", {"scenario_id": SCENARIO, "scenario": inline_scenario()}, 422, "validation_error", None),
    ("no-scenario", {"seed": 42}, 422, "validation_error", None),
    ("both-personas", {"scenario_id": SCENARIO, "persona_id": "en-reserved-brief",
                       "persona": catalog_document("personas", "en-reserved-brief")}, 422, "validation_error", None),
    ("age-not-a-number", {"scenario": _with_age("fifty-eight")}, 422, "invalid_scenario",
     "scenario.demographics.age"),
    ("age-out-of-range", {"scenario": _with_age(300)}, 422, "invalid_scenario", "scenario.demographics.age"),
    ("no-demographics-name", {"scenario": _without(("demographics", "name"))}, 422, "invalid_scenario",
     "scenario.demographics.name"),
    ("no-identity-answers", {"scenario": _without(("identity_answers",))}, 422, "invalid_scenario",
     "scenario.identity_answers"),
    ("bad-regex", {"scenario": _slot_pattern("([unclosed")}, 422, "invalid_scenario",
     "scenario.subjective_catalog[0].patterns[0]"),
    ("empty-matching-regex", {"scenario": _slot_pattern(".*")}, 422, "invalid_scenario",
     "scenario.subjective_catalog[0].patterns[0]"),
    ("unknown-scenario-field", {"scenario": inline_scenario(mood="grumpy")}, 422, "invalid_scenario",
     "scenario.mood"),
    ("inline-default-persona-unknown", {"scenario": inline_scenario(default_persona="nobody")}, 404,
     "persona_not_found", "scenario.default_persona"),
    ("inline-persona-invalid", {"scenario_id": SCENARIO, "persona": {**catalog_document("personas", "en-reserved-brief"),
                                                                    "verbosity": "chatty"}}, 422, "invalid_persona",
     "persona.verbosity"),
    ("inline-persona-in-chinese", {"scenario_id": SCENARIO,
                                   "persona": catalog_document("personas", "zh-anxious-balanced")}, 422,
     "persona_does_not_fit", "persona"),
    ("catalog-persona-in-chinese", {"scenario_id": SCENARIO, "persona_id": "zh-anxious-balanced"}, 422,
     "persona_does_not_fit", "persona_id"),
    ("seed-zero", start_body(seed=0), 422, "validation_error", "seed"),
    ("seed-2**32", start_body(seed=2**32), 422, "validation_error", "seed"),
    ("seed-negative", start_body(seed=-1), 422, "validation_error", "seed"),
    ("seed-string", start_body(seed="42"), 422, "validation_error", "seed"),
    ("seed-true", start_body(seed=True), 422, "validation_error", "seed"),
    ("seed-float", start_body(seed=42.0), 422, "validation_error", "seed"),
    ("scenario-id-pattern", {"scenario_id": "Chest Pain"}, 422, "validation_error", "scenario_id"),
    ("unknown-field", start_body(mood="grumpy"), 422, "validation_error", "mood"),
    ("user-id-not-uuid", start_body(user_id="not-a-uuid"), 422, "validation_error", "user_id"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("body", "status", "code", "field"),
    [case[1:] for case in BAD_STARTS],
    ids=[case[0] for case in BAD_STARTS],
)
def test_a_bad_start_is_refused_naming_the_field_and_starts_nothing(
    api, users, db, body, status, code, field
):
    learner = users.create()
    reply = post_start(api, learner.token, body)
    error = _assert_error(reply, status, code, field=field)
    if code == "validation_error" and field is None:
        # Both or neither of a pair: the message names the two fields.
        assert "scenario_id" in error["message"] or "persona_id" in error["message"]
    assert row_counts(db, learner.id) == NOTHING


@pytest.mark.parametrize("seed", [1, 0xFFFFFFFF], ids=["1", "2**32-1"])
def test_the_seeds_at_both_ends_of_the_range_are_taken(api, users, seed):
    learner = users.create()
    started = start(api, learner, seed=seed)
    assert (started["seed"], started["state"]["rngSeed"]) == (seed, seed)
    assert take(api, learner, started["encounter_id"], OPENING)["meta"]["rng"]


@pytest.mark.parametrize(
    ("raw", "status", "code"),
    [
        ("{not json", 400, "invalid_json"),
        ('{"scenario_id": "chest-pain"', 400, "invalid_json"),
        (b'{"scenario_id": "\xff\xfe"}', 400, "invalid_json"),
        ("", 400, "missing_body"),
        ("[1, 2]", 422, "validation_error"),
        ('"chest-pain"', 422, "validation_error"),
    ],
    ids=["garbage", "truncated", "not-utf8", "empty", "array", "bare-string"],
)
def test_a_body_that_is_not_a_json_object_is_refused_on_every_post(api, db, opened, raw, status, code):
    learner, encounter, before = opened
    for path in (ENCOUNTERS, f"{ENCOUNTERS}/{encounter}/turns", VALIDATE):
        _assert_error(api.post(path, learner.token, raw_body=raw), status, code)
    assert row_counts(db, learner.id) == before


# Taking a turn


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"learner_text": ""}, "learner_text"),
        ({"learner_text": "   \n\t  "}, "learner_text"),
        ({"learner_text": "\u200b\u200b"}, "learner_text"),
        ({"learner_text": "When did\x00 it start?"}, "learner_text"),
        ({"learner_text": "When did\x07 it start?"}, "learner_text"),
        ({"learner_text": "a" * 2001}, "learner_text"),
        ({"learner_text": "痛" * 2001}, "learner_text"),
        ({"learner_text": None}, "learner_text"),
        ({"learner_text": 42}, "learner_text"),
        ({}, "learner_text"),
        ({"learner_text": ONSET, "mood": "curt"}, "mood"),
        ({"learner_text": ONSET, "seed": 7}, "seed"),
    ],
    ids=[
        "empty",
        "whitespace",
        "invisible-only",
        "nul",
        "bell",
        "2001-latin",
        "2001-cjk",
        "null",
        "number",
        "missing",
        "unknown-field",
        "seed-mid-encounter",
    ],
)
def test_a_bad_turn_is_a_422_naming_the_field_and_writes_nothing(api, db, opened, body, field):
    learner, encounter, before = opened
    reply = api.post(f"{ENCOUNTERS}/{encounter}/turns", learner.token, body)
    _assert_error(reply, 422, field=field)
    assert row_counts(db, learner.id) == before
    assert stored_encounter(db, encounter)["turn_index"] == 2


def test_a_learner_text_of_exactly_2000_characters_is_taken(api, db, opened):
    learner, encounter, before = opened
    body = take(api, learner, encounter, ("When did it start? " * 200)[:2000])
    assert body["learner_turn_index"] == 2
    assert row_counts(db, learner.id)["turns"] == before["turns"] + 1


def test_an_unknown_encounter_is_404_for_a_turn_and_a_read(api, db, opened):
    learner, _, before = opened
    unknown = str(uuid.uuid4())
    _assert_error(
        post_turn(api, learner.token, unknown, ONSET), 404, "encounter_not_found", field="encounter_id"
    )
    _assert_error(post_turn(api, learner.token, unknown, ONSET, key="k-1"), 404, "encounter_not_found")
    _assert_error(
        api.get(f"{ENCOUNTERS}/{unknown}", learner.token), 404, "encounter_not_found", field="encounter_id"
    )
    assert row_counts(db, learner.id) == before


def test_another_learners_encounter_reads_exactly_like_an_unknown_one(api, users, db, opened):
    owner, encounter, before = opened
    intruder = users.create()
    unknown = str(uuid.uuid4())

    def anonymized(reply, encounter_id):
        assert reply.status == 404, reply.body
        return {k: str(v).replace(encounter_id, "<id>") for k, v in reply.error.items()}

    assert anonymized(post_turn(api, intruder.token, encounter, ONSET), encounter) == anonymized(
        post_turn(api, intruder.token, unknown, ONSET), unknown
    )
    assert anonymized(api.get(f"{ENCOUNTERS}/{encounter}", intruder.token), encounter) == anonymized(
        api.get(f"{ENCOUNTERS}/{unknown}", intruder.token), unknown
    )
    assert row_counts(db, owner.id) == before
    assert row_counts(db, intruder.id) == NOTHING


@pytest.mark.parametrize("key", ["", "k" * 201])
def test_an_idempotency_key_out_of_bounds_names_the_header(api, db, opened, key):
    learner, encounter, before = opened
    headers = {"Idempotency-Key": key}
    turn = api.post(
        f"{ENCOUNTERS}/{encounter}/turns", learner.token, {"learner_text": ONSET}, headers=headers
    )
    _assert_error(turn, 422, field="Idempotency-Key")
    _assert_error(
        api.post(ENCOUNTERS, learner.token, start_body(), headers=headers), 422, field="Idempotency-Key"
    )
    assert row_counts(db, learner.id) == before


# Validating a transcript


def _transcript(*texts: str) -> list[dict]:
    return [
        {"turnIndex": index, "role": "learner" if index % 2 == 0 else "patient", "text": text}
        for index, text in enumerate(texts)
    ]


GOOD = _transcript(OPENING, "My chest gets tight when I walk uphill.", ONSET, "About three weeks ago.")


def _changed(index: int, **fields) -> list[dict]:
    transcript = [dict(turn) for turn in GOOD]
    transcript[index].update(fields)
    return transcript


BAD_TRANSCRIPTS = [
    # (id, transcript, code, field)
    ("bad-role", _changed(1, role="doctor"), "validation_error", "transcript[1].role"),
    ("role-missing", [{k: v for k, v in t.items() if k != "role"} for t in GOOD], "validation_error",
     "transcript[0].role"),
    ("repeated-index", _changed(2, turnIndex=1), "invalid_transcript", "transcript[2].turnIndex"),
    ("decreasing-index", _changed(3, turnIndex=0), "invalid_transcript", "transcript[3].turnIndex"),
    ("negative-index", _changed(0, turnIndex=-1), "validation_error", "transcript[0].turnIndex"),
    ("string-index", _changed(1, turnIndex="1"), "validation_error", "transcript[1].turnIndex"),
    ("bool-index", _changed(1, turnIndex=True), "validation_error", "transcript[1].turnIndex"),
    ("nul-in-meta", _changed(1, meta={"kind": "answer\u0000"}), "validation_error", "transcript[1].meta"),
    ("nul-in-meta-key", _changed(1, meta={"ki\u0000nd": "answer"}), "validation_error", "transcript[1].meta"),
    ("nul-deep-in-meta", _changed(1, meta={"layers": [{"rule": ["x\u0000"]}]}), "validation_error",
     "transcript[1].meta"),
    ("nul-in-list-meta", _changed(1, meta=["answer\u0000"]), "validation_error", "transcript[1].meta"),
    ("index-over-2**53-1", _changed(3, turnIndex=2**53), "validation_error", "transcript[3].turnIndex"),
    ("nul-in-text", _changed(1, text="About\u0000 three weeks."), "validation_error", "transcript[1].text"),
    ("text-too-long", _changed(1, text="a" * 4001), "validation_error", "transcript[1].text"),
    ("index-huge", _changed(3, turnIndex=10**30), "validation_error", "transcript[3].turnIndex"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("transcript", "code", "field"), [c[1:] for c in BAD_TRANSCRIPTS], ids=[c[0] for c in BAD_TRANSCRIPTS]
)
@pytest.mark.parametrize("store", [False, True], ids=["not-stored", "stored"])
def test_a_bad_transcript_is_a_422_naming_the_turn_and_stores_nothing(
    api, users, db, transcript, code, field, store
):
    learner = users.create()
    reply = validate(api, learner.token, transcript, store=store)
    _assert_error(reply, 422, code, field=field)
    assert row_counts(db, learner.id) == NOTHING


@pytest.mark.parametrize(
    ("body", "status", "code", "field"),
    [
        ({"scenario_id": "no-such-case", "transcript": GOOD}, 404, "scenario_not_found", "scenario_id"),
        ({"scenario_id": SCENARIO, "persona_id": "nobody", "transcript": GOOD}, 404, "persona_not_found", "persona_id"),
        ({"scenario_id": SCENARIO, "persona_id": "zh-anxious-balanced", "transcript": GOOD}, 422,
         "persona_does_not_fit", "persona_id"),
        ({"scenario": _with_age(-1), "transcript": GOOD}, 422, "invalid_scenario", "scenario.demographics.age"),
        ({"transcript": GOOD}, 422, "validation_error", None),
        ({"scenario_id": SCENARIO}, 422, "validation_error", "transcript"),
        ({"scenario_id": SCENARIO, "transcript": GOOD, "store": "yes"}, 422, "validation_error", "store"),
        ({"scenario_id": SCENARIO, "transcript": GOOD, "store": 1}, 422, "validation_error", "store"),
        ({"scenario_id": SCENARIO, "transcript": GOOD, "strict": True}, 422, "validation_error", "strict"),
        ({"scenario_id": SCENARIO, "transcript": {"turns": GOOD}}, 422, "validation_error", "transcript"),
    ],
    ids=["unknown-scenario", "unknown-persona", "persona-misfit", "inline-invalid", "no-scenario",
         "no-transcript", "store-string", "store-int", "unknown-field", "transcript-object"],
)  # fmt: skip
def test_a_bad_validate_request_is_refused_naming_the_field(api, users, db, body, status, code, field):
    learner = users.create()
    # Asked to store, so a request wrongly taken would leave a row behind.
    _assert_error(api.post(VALIDATE, learner.token, {"store": True, **body}), status, code, field=field)
    assert row_counts(db, learner.id) == NOTHING


@pytest.mark.parametrize(
    "transcript",
    [
        _changed(1, meta=["answer"]),
        _changed(1, meta="answer"),
        _changed(1, meta=42),
        _changed(1, meta={"slots": {"onset": "two days ago"}}),
        _changed(1, speaker="patient", timestamp="2026-11-23T10:00:00Z"),
        _changed(3, turnIndex=2**53 - 1),
    ],
    ids=[
        "meta-list",
        "meta-string",
        "meta-number",
        "meta-of-another-system",
        "extra-turn-keys",
        "index-2**53-1",
    ],
)
def test_a_transcript_from_another_system_is_read_not_refused(api, users, transcript):
    """§11 types meta `any`; keys a turn carries beyond §11's are ignored; a meta that is not
    this runtime's is read as absent (no FACT_CONTRADICTION from another system's `slots`)."""
    reply = validate(api, users.create().token, transcript)
    assert reply.status == 200, reply.body
    assert (reply.body["errors"], reply.body["warnings"], reply.body["info"]) == ([], [], [])
    assert reply.body["summaryMetrics"]["totalPatientTurns"] == 2


def test_an_empty_transcript_validates_to_nothing(api, users):
    learner = users.create()
    reply = validate(api, learner.token, [])
    assert reply.status == 200, reply.body
    assert (reply.body["errors"], reply.body["warnings"], reply.body["info"]) == ([], [], [])
    assert reply.body["summaryMetrics"]["totalPatientTurns"] == 0


def test_no_token_is_401_and_a_bad_token_is_401(api, db, opened):
    learner, encounter, before = opened
    for token in (None, "not-a-jwt", learner.token[:-4] + "AAAA"):
        assert post_turn(api, token, encounter, ONSET).status == 401
        assert api.get(f"{ENCOUNTERS}/{encounter}", token).status == 401
        assert post_start(api, token).status == 401
        assert validate(api, token, GOOD).status == 401
        assert api.get("/sps/scenarios", token).status == 401
    assert row_counts(db, learner.id) == before


def test_a_transcript_over_20000_turns_is_a_422(api, users, db):
    learner = users.create()
    turns = [{"turnIndex": index, "role": "learner", "text": "x"} for index in range(20_001)]
    reply = validate(api, learner.token, turns, store=True)
    _assert_error(reply, 422, "validation_error", field="transcript")
    assert row_counts(db, learner.id) == NOTHING


@pytest.mark.parametrize("depth", [900, 5000])
def test_a_deeply_nested_meta_is_refused_or_read_never_a_500(api, users, db, depth):
    learner = users.create()
    meta = '{"a": ' * depth + "1" + "}" * depth
    raw = (
        '{"scenario_id": "chest-pain", "store": true, "transcript": '
        f'[{{"turnIndex": 0, "role": "patient", "text": "Three weeks.", "meta": {meta}}}]}}'
    )
    reply = api.post(VALIDATE, learner.token, raw_body=raw)
    assert reply.status in (200, 400), reply.body
    if reply.status == 400:
        assert reply.error["code"] == "invalid_json"
        assert row_counts(db, learner.id) == NOTHING
    else:
        assert reply.body["summaryMetrics"]["totalPatientTurns"] == 1


def test_an_inline_pattern_that_backtracks_catastrophically_is_refused_or_harmless(api, users, db):
    learner = users.create()
    scenario = inline_scenario()
    scenario["subjective_catalog"][0]["patterns"] = ["\\b(x+x+)+y"]
    started = post_start(api, learner.token, {"scenario": scenario, "seed": 3})
    if started.status == 422:
        assert started.error["field"] == "scenario.subjective_catalog[0].patterns[0]"
        return
    assert started.status == 201, started.body
    elapsed_before = time.perf_counter()
    try:
        reply = post_turn(api, learner.token, started.body["encounter_id"], "x" * 26 + "?")
        elapsed = time.perf_counter() - elapsed_before
        assert reply.status == 200, reply.body
        assert elapsed < 0.5, f"one turn took {elapsed:.2f} s"
    finally:
        # Its record would take as long to replay again, in every replay of all stored turns.
        with db.as_owner() as tx:
            tx.execute("DELETE FROM public.decision_records WHERE user_id = CAST(:u AS uuid)", u=learner.id)


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
@pytest.mark.parametrize("store", [True, False])
def test_a_meta_holding_nan_or_infinity_is_a_422_never_a_500(api, users, db, constant, store):
    # Python's JSON parser takes these; JSON, and so jsonb, has no such number: stored, they
    # failed in Postgres (22P02) as a 500.
    learner = users.create()
    raw = (
        f'{{"scenario_id": "chest-pain", "store": {str(store).lower()}, "transcript": '
        f'[{{"turnIndex": 0, "role": "patient", "text": "a", "meta": {{"slots": {{"onset": {constant}}}}}}}]}}'
    )
    reply = api.post(VALIDATE, learner.token, raw_body=raw)
    _assert_error(reply, 422, "validation_error", field="transcript[0].meta")
    assert "not a JSON number" in reply.body["error"]["message"] or any(
        "not a JSON number" in f.get("message", "") for f in reply.body["error"].get("fields", [])
    )
    assert row_counts(db, learner.id) == NOTHING


def test_a_validation_over_its_time_budget_is_a_422_that_stores_nothing(api, users, db, monkeypatch):
    # The budget guards against an inline scenario's slow patterns on long texts; a budget already
    # spent shows the answer without timing anything.
    from sps_encounter import service

    monkeypatch.setattr(service, "VALIDATION_BUDGET_SECONDS", -1.0)
    learner = users.create()
    reply = validate(api, learner.token, GOOD, store=True)
    _assert_error(reply, 422, "transcript_too_costly", field="transcript")
    assert "send it in parts" in reply.error["message"]
    assert row_counts(db, learner.id) == NOTHING
