"""Logging & Observability: every turn logs its routing, signal scores, depth decision and safety
action, and stores the spec's minimum telemetry; the narrator's words never reach a log line, at
any level, whatever the turn does (LLM replies and faults, overrides, refusals, hard stops)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from persona_rails.observability import logger
from tests.integration.interview_turn.helpers import (
    SESSIONS,
    json_lines,
    post_turn,
    start,
    stored_turns,
    take,
)
from tests.support.fake_openai import Delay, RawBody, json_content, server_error

# Each narrator answer carries a word no template, log field or id could contain.
MARKERS = (
    "XYZZY",
    "PLUGH",
    "Quillfeather",
    "FROTZ",
    "GRUE",
    "Zorkmid",
    "秘密词",
    "Wumpus",
    "Snarfle",
    "KLAATU",
)
ANSWERS = {
    "concrete": "We moved to Boston in 1985, when I was twelve, with my aunt XYZZY.",
    "vague": "I don't really remember PLUGH, maybe sometime around then.",
    "emotional": "I cried so much when my mother Quillfeather passed away, I still miss her every day.",
    "contradiction": "We moved to Boston in 1987, FROTZ says.",
    "refusal": "I'd rather not talk about GRUE, can we change the topic?",
    "bad": "Zorkmid\x07 was the name of our dog.",
    "unknown-topic": "Let me tell you about Wumpus and the army.",
    "self-harm": "Some days I want to kill myself, Snarfle.",
    "zh-distress": "秘密词，我喘不过气，我快崩溃了。",
    "after-close": "KLAATU, one more thing about the harbour.",
}
NARRATOR_NAME = "Margaret Pennywhistle"


@pytest.fixture
def debug_logs(logs) -> Iterator:
    """The `logs` buffer with the logger at DEBUG: nothing is filtered out before it is checked."""
    level = logger.log_level
    logger.setLevel("DEBUG")
    yield logs
    logger.setLevel(level)


def test_the_narrators_words_never_reach_the_logs(api, users, db, fake_openai, debug_logs, capfd):
    narrator = users.create()
    sid = start(api, narrator, narrator={"display_name": NARRATOR_NAME})["session_id"]
    fake_openai.script(
        json_content({"response_text": "Thank you. What do you remember about Boston?"}),
        server_error(500),
        Delay(30, then=json_content({"response_text": "Too late."})),
        json_content({"response_text": "You said 1985 but now you say 1987. Which one is true?"}),
        RawBody(b"junk"),
    )
    routed = {name: take(api, narrator, sid, ANSWERS[name]) for name in (
        "concrete", "vague", "emotional", "contradiction", "refusal")}  # fmt: skip
    assert routed["contradiction"]["safety_action"] == "override"
    assert post_turn(api, narrator.token, sid, ANSWERS["bad"]).status == 422
    assert post_turn(api, narrator.token, sid, ANSWERS["unknown-topic"], topic_id="army").status == 422
    assert take(api, narrator, sid, ANSWERS["self-harm"])["signals"]["hard_stop"] == "self_harm"
    assert post_turn(api, narrator.token, sid, ANSWERS["after-close"]).status == 409
    assert api.get(f"{SESSIONS}/{sid}", narrator.token).status == 200

    other = start(api, narrator, language="zh", locale="zh-CN")["session_id"]
    assert take(api, narrator, other, ANSWERS["zh-distress"])["signals"]["hard_stop"] == "acute_distress"

    out, err = capfd.readouterr()
    output = out + err + debug_logs.getvalue()
    assert output.strip(), "nothing was logged at all"
    for marker in (*MARKERS, "Pennywhistle"):
        assert marker not in output, marker
    for answer in ANSWERS.values():
        assert answer not in output

    # What is logged instead: ids, scores and decisions.
    turns = [line for line in json_lines(debug_logs.getvalue()) if line.get("message") == "interview turn"]
    assert len(turns) == 7
    for line in turns:
        assert line["function_name"] == "InterviewTurnFunction"
        assert line["correlation_id"]
        assert {"session_id", "turn_no", "winning_rule", "persona_used", "depth", "depth_reason",
                "safety_action", "signals", "source"} <= line.keys()  # fmt: skip
        assert {"vagueness_score", "emotion_score", "contradiction_score", "refusal_or_discomfort"} <= line[
            "signals"
        ].keys()
    overrides = [
        line for line in json_lines(debug_logs.getvalue()) if line["message"].startswith("SAFETY_FALLBACK")
    ]
    assert [line["violated_rule_ids"] for line in overrides] == [["NC-ACCUSE-01"]]


def test_every_stored_turn_carries_the_specs_minimum_telemetry(api, users, db):
    narrator = users.create()
    sid = start(api, narrator)["session_id"]
    for name in ("concrete", "vague", "emotional", "contradiction", "refusal", "self-harm"):
        take(api, narrator, sid, ANSWERS[name])
    for turn in stored_turns(db, sid)[1:]:
        telemetry = turn["telemetry"]
        # Routing decision and winning rule.
        assert telemetry["routing"]["winning_rule"] == turn["winning_rule"]
        # Signal scores.
        assert {"vagueness_score", "emotion_score", "contradiction_score", "refusal_or_discomfort"} <= set(
            turn["signals"]
        )
        # Depth decision and reason.
        assert telemetry["depth"]["decision"] == turn["depth_decision"]
        assert telemetry["depth"]["reason"] == turn["depth_reason"]
        assert (telemetry["depth"]["before"], telemetry["depth"]["after"]) == (
            turn["depth_level_before"],
            turn["depth_level_after"],
        )
        # Safety overrides and violated rule ids.
        assert telemetry["safety"]["action"] == turn["safety_action"]
        assert telemetry["safety"]["violated_rule_ids"] == turn["violated_rule_ids"]
        # Verbosity metrics: tokens and question density.
        assert {"response_tokens", "question_count", "question_density"} <= set(telemetry["verbosity"])
        assert telemetry["verbosity"]["response_tokens"] == turn["metrics"]["response_tokens"]
        # Loop steps executed.
        assert "steps_executed" in telemetry["loop"]
        assert telemetry["loop"]["state"] == turn["loop_state"]
    loops = [turn["telemetry"]["loop"]["steps_executed"] for turn in stored_turns(db, sid)[1:]]
    # The vague answer entered precision narrowing, whose two questions (when, where) the answer
    # before had both answered: both steps passed over.
    assert loops[1] == 2
