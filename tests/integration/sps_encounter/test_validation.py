"""POST /sps/validate: any transcript (this runtime's, with meta, or one produced elsewhere, without)
against a catalog or an inline case, into §11's ValidationResult. Nothing is stored unless asked
(`store: true`: one sps_validations row for the caller, its id returned)."""

from __future__ import annotations

import pytest

from persona_rails.config import content_hash
from tests.integration.sps_encounter.helpers import (
    NOTHING,
    OPENING,
    VALIDATE,
    VARIED,
    assert_schema,
    catalog_document,
    get_encounter,
    inline_scenario,
    row_counts,
    start,
    take,
    validate,
)

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")


def _transcript(*texts: str) -> list[dict]:
    return [
        {"turnIndex": index, "role": "learner" if index % 2 == 0 else "patient", "text": text}
        for index, text in enumerate(texts)
    ]


# Produced elsewhere (no meta): every ERROR rule of §10, and the WARN and INFO rules they bring.
FLAWED = _transcript(
    OPENING, "My chest gets tight when I walk uphill.",
    "When did it start?", "My chest, it started two days ago.",
    "Anything else?", "Sorry, what do you mean?",
    "What else?", "Sorry, what do you mean?",
    "Could you run on the spot for me?", "I'd rather not do that.",
    "Could you climb the stairs for me now?", "I'd rather not do that.",
    "Can you tell me your date of birth?", "Why do you need that? I gave it at the front desk.",
    "What is your date of birth?", "Didn't I already tell the receptionist?",
    "How have you been sleeping?", "It's 152/94 mmHg.",
    "What medications do you take?", "Amlodipine. I'll be honest, I stopped the cholesterol tablets a while ago.",
    "Any other tablets?", "I'll be honest, I stopped the cholesterol tablets a while ago.",
    "Tell me about the pain.", "Um, it's probably angina, uh.",
    "Tell me everything.",
    "It started at work. I walked up the hill. My chest went tight. I sat down on the wall. It eased off after "
    "a bit. I went on up. It came back at the top.",
)  # fmt: skip
FLAWED_ISSUES = [
    ("ERROR", "FACT_CONTRADICTION", 3),
    ("ERROR", "CLARIFICATION_REPEATED", 7),
    ("ERROR", "DOB_CHALLENGE_REPEATED", 15),
    ("ERROR", "NUMERIC_LEAKAGE", 17),
    ("ERROR", "AGENDA_REVEALED_TWICE", 21),
    ("ERROR", "DIAGNOSIS_OR_COACHING", 23),
    ("WARN", "OPENER_ECHO", 3),
    ("WARN", "OPENER_ECHO", 7),
    ("WARN", "OPENER_ECHO", 11),
    ("WARN", "REFUSAL_REPEATED", 11),
    ("WARN", "DISFLUENCY_EXCESS", 23),
    ("INFO", "NARRATIVE_TOO_LONG", 25),
]
# Six vague prompts and no clarification; every open question answered with one of the case's
# stored elaborations (the runtime's micro-elaboration, recognised without meta).
EVASIVE = _transcript(
    "Anything else?", "It's in my chest.",
    "What else?", "It's heavy.",
    "Go on?", "It comes on with the stairs.",
    "So?", "I stop and it goes.",
    "Okay?", "That's it.",
    "Anything else?", "Nothing more, really.",
    "How does the pain feel?", "Heavy. It's not sharp, it's more like a weight sitting there.",
    "What do you do for work?", "I drive buses. The depot's up a steep hill, that's where I notice it most.",
)  # fmt: skip


def _issues(body: dict) -> list[tuple[str, str, int]]:
    return [
        (i["severity"], i["code"], i["turnIndex"])
        for key in ("errors", "warnings", "info")
        for i in body[key]
    ]


def _global_counts(db) -> dict:
    with db.as_owner() as tx:
        return tx.one(
            """
            SELECT (SELECT count(*) FROM public.sps_validations) AS validations,
                   (SELECT count(*) FROM public.sps_encounters) AS encounters,
                   (SELECT count(*) FROM public.sps_turns) AS turns,
                   (SELECT count(*) FROM public.decision_records) AS records
            """
        )


def test_a_transcript_from_elsewhere_gets_every_error_rule(api, users, db):
    learner = users.create()
    before = _global_counts(db)
    reply = validate(api, learner.token, FLAWED)
    assert reply.status == 200, reply.body
    assert_schema("validation-result.schema.json", reply.body)
    assert _issues(reply.body) == FLAWED_ISSUES
    details = {i["code"]: i.get("details") for i in reply.body["errors"]}
    assert details["FACT_CONTRADICTION"] == {"slot": "onset", "match": "started two days ago"}
    assert details["AGENDA_REVEALED_TWICE"] == {"id": "stopped_statin"}
    metrics = reply.body["summaryMetrics"]
    assert metrics["totalPatientTurns"] == 13
    assert (metrics["refusalCount"], metrics["unsafeRequests"], metrics["agendaRevealCount"]) == (2, 2, 2)
    assert metrics["duplicationScores"] == {"openers": 0.25, "clarifications": 0.5}
    assert reply.body["validation_id"] is None
    # Not asked to store: nothing anywhere.
    assert _global_counts(db) == before
    assert row_counts(db, learner.id) == NOTHING


def test_the_warn_and_info_rules_of_a_whole_transcript(api, users):
    learner = users.create()
    reply = validate(api, learner.token, EVASIVE)
    assert reply.status == 200, reply.body
    codes = {(i["code"], i["severity"]) for key in ("warnings", "info") for i in reply.body[key]}
    assert ("ELABORATION_RATE_HIGH", "WARN") in codes
    assert ("NO_CLARIFICATION_FOR_VAGUE_PROMPTS", "INFO") in codes
    assert reply.body["errors"] == []
    assert reply.body["summaryMetrics"]["elaborationRate"] > 0.45
    assert reply.body["summaryMetrics"]["clarificationRate"] == 0.0


def test_store_true_keeps_one_row_for_the_caller_and_returns_its_id(api, users, db):
    learner = users.create()
    reply = validate(api, learner.token, FLAWED, store=True)
    assert reply.status == 200, reply.body
    validation_id = reply.body["validation_id"]
    assert validation_id
    assert row_counts(db, learner.id) == {**NOTHING, "validations": 1}
    with db.as_owner() as tx:
        row = tx.one("SELECT * FROM public.sps_validations WHERE id = CAST(:v AS uuid)", v=validation_id)
    assert str(row["user_id"]) == learner.id
    assert (row["scenario_id"], row["persona_id"], row["turns"]) == (
        "chest-pain",
        "en-reserved-brief",
        len(FLAWED),
    )
    assert (row["errors"], row["warnings"], row["info"]) == (6, 5, 1)
    # What was answered, as stored (an issue without details stores none).
    answered = {
        key: [{k: v for k, v in issue.items() if v is not None} for issue in reply.body[key]]
        for key in ("errors", "warnings", "info")
    }
    assert row["result"] == {**answered, "summaryMetrics": reply.body["summaryMetrics"]}
    assert row["scenario_hash"] == content_hash(catalog_document("scenarios", "chest-pain"))
    assert row["persona_hash"] == content_hash(catalog_document("personas", "en-reserved-brief"))
    # The learner reads it back through the app's role.
    with db.transaction("authenticated", learner.claims) as tx:
        assert tx.one("SELECT count(*) AS n FROM public.sps_validations")["n"] == 1
    # Each stored validation is its own row, even of the same transcript.
    again = validate(api, learner.token, FLAWED, store=True)
    assert again.body["validation_id"] != validation_id
    assert row_counts(db, learner.id)["validations"] == 2
    # `store: false` said out loud stores nothing either.
    assert validate(api, learner.token, FLAWED, store=False).body["validation_id"] is None
    assert row_counts(db, learner.id)["validations"] == 2


def test_an_inline_scenario_is_validated_against_its_own_facts(api, users, db):
    learner = users.create()
    scenario = inline_scenario()
    scenario["diagnosis_terms"] = [*scenario["diagnosis_terms"], "\\bpericarditis\\b"]
    scenario["subjective_catalog"][0]["conflicts"] = ["\\bsince yesterday\\b"]
    transcript = _transcript(
        "When did it start?",
        "Since yesterday, I think.",
        "What do you think it is?",
        "Pericarditis, probably.",
    )
    catalog = api.post(VALIDATE, learner.token, {"scenario_id": "chest-pain", "transcript": transcript})
    assert catalog.status == 200, catalog.body
    assert catalog.body["errors"] == []
    inline = api.post(
        VALIDATE, learner.token, {"scenario": scenario, "transcript": transcript, "store": True}
    )
    assert inline.status == 200, inline.body
    assert [(i["code"], i["turnIndex"]) for i in inline.body["errors"]] == [
        ("FACT_CONTRADICTION", 1),
        ("DIAGNOSIS_OR_COACHING", 3),
    ]
    with db.as_owner() as tx:
        row = tx.one(
            "SELECT scenario_id, scenario_hash FROM public.sps_validations WHERE id = CAST(:v AS uuid)",
            v=inline.body["validation_id"],
        )
    assert (row["scenario_id"], row["scenario_hash"]) == ("chest-pain-inline", content_hash(scenario))


def test_a_runtime_transcript_reads_the_same_with_and_without_its_meta(api, users):
    """The validator's rules on the text alone agree with what the runtime's meta records."""
    for persona, seed in (("en-reserved-brief", 42), ("en-anxious-talkative", 31337)):
        learner = users.create()
        encounter = start(api, learner, persona_id=persona, seed=seed)["encounter_id"]
        for text in VARIED:
            take(api, learner, encounter, text)
        transcript = get_encounter(api, learner.token, encounter).body["transcript"]
        with_meta = validate(api, learner.token, transcript, persona_id=persona)
        bare = [{key: value for key, value in turn.items() if key != "meta"} for turn in transcript]
        without_meta = validate(api, learner.token, bare, persona_id=persona)
        assert with_meta.status == without_meta.status == 200
        assert with_meta.body["errors"] == []
        assert with_meta.body == without_meta.body
        assert with_meta.body["summaryMetrics"]["totalPatientTurns"] == len(VARIED)


def test_a_chinese_transcript_validates_against_a_chinese_scenario(api, users):
    scenarios = {s["id"]: s for s in api.get("/sps/scenarios", users.create().token).body["scenarios"]}
    chinese = [s for s in scenarios.values() if s["language"] == "zh"]
    if not chinese:
        pytest.skip("no Chinese scenario in the catalog")
    learner = users.create()
    scenario = chinese[0]
    started = start(api, learner, scenario_id=scenario["id"], persona_id=None, seed=11)
    encounter = started["encounter_id"]
    for text in ("你今天哪里不舒服？", "什么时候开始的？", "请告诉我你的全名和出生日期。", "还有别的吗？"):
        body = take(api, learner, encounter, text)
        assert any("\u4e00" <= ch <= "\u9fff" for ch in body["text"]), body["text"]
    transcript = get_encounter(api, learner.token, encounter).body["transcript"]
    result = api.post(
        VALIDATE,
        learner.token,
        {"scenario_id": scenario["id"], "persona_id": started["persona"]["id"], "transcript": transcript},
    )
    assert result.status == 200, result.body
    assert result.body["errors"] == []
    assert result.body["summaryMetrics"]["totalPatientTurns"] == 4
