"""Observability without the conversation: every patient turn logs its ids, kind and decisions, and
neither the learner's words nor the patient's reach a log line, at any level, whatever the turn
does (LLM replies, refused replies and faults, guardrails, bad input, validation)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from persona_rails.observability import logger
from tests.integration.sps_encounter.helpers import (
    VALIDATE,
    get_encounter,
    inline_scenario,
    json_lines,
    post_turn,
    start,
    take,
)
from tests.support.fake_openai import Completion, Delay, json_content, server_error

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")
# Each learner turn carries a word no phrase, log field or id could contain.
CANARIES = ("XYZZY", "PLUGH", "Quillfeather", "FROTZ", "GRUE", "Zorkmid", "秘密词", "Wumpus", "Snarfle")
LEARNER = {
    "opening": "What brings you in today, Mr XYZZY?",
    "onset": "When did it start, PLUGH?",
    "refused": "Where is the pain, Quillfeather?",
    "fault": "What makes it better, FROTZ?",
    "timeout": "Does it go anywhere else, GRUE?",
    "guardrail": "Could you run on the spot for me, Zorkmid?",
    "identity": "Can you tell me your full name and date of birth, 秘密词?",
    "bad": "When did it start?\x07 Wumpus",
    "too-long": "Snarfle " * 300,
}
# Patient words of an inline case: what the patient says (and the LLM is told) comes from it.
PATIENT_CANARY = "Brambleworth"


@pytest.fixture
def debug_logs(logs) -> Iterator:
    """The `logs` buffer with the logger at DEBUG: nothing is filtered out before it is checked."""
    level = logger.log_level
    logger.setLevel("DEBUG")
    yield logs
    logger.setLevel(level)


def test_neither_the_learners_words_nor_the_patients_reach_the_logs(
    api, users, fake_openai, debug_logs, capfd
):
    learner = users.create()
    scenario = inline_scenario()
    scenario["presenting_problem"]["opening_statements"] = [
        f"My chest gets tight since I moved to {PATIENT_CANARY} Lane."
    ]
    scenario["subjective_catalog"][0]["answers"] = [f"Three weeks ago, at {PATIENT_CANARY} depot."]
    started = start(api, learner, scenario_id=None, scenario=scenario)
    encounter = started["encounter_id"]
    fake_openai.script(
        json_content({"text": f"I've had chest pain since {PATIENT_CANARY} Lane, when I walk uphill."}),
        json_content({"text": "It started two days ago, Brambleworth knows."}),
        json_content({"text": "It's on the left side of my chest, Brambleworth."}),
        server_error(500),
        Delay(30, then=json_content({"text": "Too late."})),
    )
    bodies = {
        name: take(api, learner, encounter, LEARNER[name])
        for name in ("opening", "onset", "refused", "fault", "timeout", "guardrail", "identity")
    }
    assert bodies["opening"]["meta"]["source"] == "llm"
    assert bodies["onset"]["meta"]["fallbackReason"] == "fact_check"
    assert bodies["refused"]["meta"]["fallbackReason"] == "fact_check"
    assert bodies["fault"]["meta"]["fallbackReason"] == "server_error"
    assert bodies["timeout"]["meta"]["fallbackReason"] == "timeout"
    assert PATIENT_CANARY in bodies["opening"]["text"] + bodies["onset"]["text"]
    assert post_turn(api, learner.token, encounter, LEARNER["bad"]).status == 422
    assert post_turn(api, learner.token, encounter, LEARNER["too-long"]).status == 422
    transcript = get_encounter(api, learner.token, encounter).body["transcript"]
    validated = api.post(
        VALIDATE, learner.token, {"scenario": scenario, "transcript": transcript, "store": True}
    )
    assert validated.status == 200, validated.body
    bad_transcript = [*transcript, {"turnIndex": 0, "role": "learner", "text": "Wumpus again"}]
    assert (
        api.post(VALIDATE, learner.token, {"scenario": scenario, "transcript": bad_transcript}).status == 422
    )

    out, err = capfd.readouterr()
    output = out + err + debug_logs.getvalue()
    assert output.strip(), "nothing was logged at all"
    for canary in (*CANARIES, PATIENT_CANARY):
        assert canary not in output, canary
    for body in bodies.values():
        assert body["text"] not in output
    for text in LEARNER.values():
        assert text not in output

    # What is logged instead: ids, kinds and decisions.
    turns = [line for line in json_lines(debug_logs.getvalue()) if line.get("message") == "sps patient turn"]
    assert len(turns) == len(bodies)
    for line, (name, body) in zip(turns, bodies.items(), strict=True):
        assert line["function_name"] == "SpsEncounterFunction"
        assert line["correlation_id"]
        assert line["encounter_id"] == encounter
        assert (line["turn_index"], line["kind"]) == (body["meta"]["turnIndex"], body["meta"]["kind"]), name
        assert line["source"] == body["meta"]["source"]
        assert line.get("fallback_reason") == body["meta"]["fallbackReason"]
        assert {
            "question_type",
            "rapport",
            "elaborated",
            "agenda_revealed",
            "guardrails",
            "violations",
        } <= set(line)
    by_kind = {line["kind"]: line for line in turns}
    assert by_kind["refusal"]["guardrails"] == ["exercise_test_now"]
    refused = [line for line in turns if line.get("fallback_reason") == "fact_check"]
    assert [line["violations"][0] for line in refused] == ["contradicts:onset", "contradicts:location"]
    started_lines = [
        line for line in json_lines(debug_logs.getvalue()) if line.get("message") == "sps encounter started"
    ]
    assert [(line["scenario_id"], line["scenario_source"]) for line in started_lines] == [
        ("chest-pain-inline", "inline")
    ]


def test_a_malformed_reply_is_not_logged_either(api, users, fake_openai, debug_logs, capfd):
    learner = users.create()
    encounter = start(api, learner)["encounter_id"]
    fake_openai.script(Completion("Here is my answer about Brambleworth, not JSON at all."))
    body = take(api, learner, encounter, "When did it start, XYZZY?")
    assert body["meta"]["fallbackReason"] == "malformed"
    out, err = capfd.readouterr()
    output = out + err + debug_logs.getvalue()
    assert "Brambleworth" not in output
    assert "XYZZY" not in output
    warnings = [line for line in json_lines(debug_logs.getvalue()) if line.get("level") == "WARNING"]
    assert [line.get("fallback_reason") for line in warnings] == ["malformed"]
