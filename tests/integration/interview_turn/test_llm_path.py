"""The Generator and the Safety Overlay with a real LLM client: Lambda handler -> the `openai` SDK ->
a scripted OpenAI-compatible server over TCP, every turn read back from the embedded Postgres.

- Pre-generation: the call carries the system prompt block and the constraints of the turn's
  persona, by rule id.
- Post-generation: a reply that breaks any prohibited pattern family, the length cap or the
  question-density cap is replaced; the turn becomes a SAFETY_FALLBACK override, the violated
  rule ids go to telemetry and to a SAFETY_FALLBACK warning, and the narrator's words to no log.
- A clean reply is used as it is; a fault falls back to the offline template.
- Hard stops never ask the LLM for words: crisis guidance is never improvised.
- LLM-assisted signals (opt-in) only add caution, and a contradiction must cite a stored fact.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from persona_rails.settings import cached_settings
from tests.integration.interview_turn.helpers import (
    CONFIG_DIR,
    DISTRESS,
    SELF_HARM,
    SESSIONS,
    STOP,
    assert_turn_response,
    config,
    decision_record,
    json_lines,
    lines,
    start,
    stored_session,
    stored_turn,
    take,
)
from tests.support.fake_openai import (
    Completion,
    Delay,
    Disconnect,
    RawBody,
    json_content,
    rate_limited,
    server_error,
)
from tests.support.fixtures import FAKE_MODEL

GENERATION = "interview_turn"
SIGNALS = "interview_signals"
NARRATOR_TEXT = "We lived by the river in 1960 with my aunt Philippa Quillfeather."
NARRATOR_MARKER = "Quillfeather"
CLEAN = "Thank you. What do you remember about the river itself?"
MONOLOGUE_SENTENCES = (
    "The river sounds lovely. Rivers hold so many memories. Many families lived by rivers then. "
    "The water shaped the whole town. Boats came and went all day. What happened next?"
)
MONOLOGUE_TOKENS = (
    "Thank you for sharing that memory about the river and your aunt, because places like that often "
    "carry a great deal of meaning for the people who grew up beside them, and I can imagine the sound "
    "of the water, the boats passing in the morning, the smell of the mud in summer, the neighbours "
    "calling across the banks, the long evenings, the games you might have played, the seasons turning, "
    "and all the small routines of a household living so close to moving water for so many years "
    "together as a family"
)


def generated(text: str) -> Completion:
    return json_content({"response_text": text})


def _requests(fake, name: str) -> list[Any]:
    return [
        r
        for r in fake.requests
        if isinstance(r.body, dict)
        and r.body.get("response_format", {}).get("json_schema", {}).get("name") == name
    ]


def _attached_ids(persona: str) -> list[str]:
    nc = config("negative-constraints.json")
    return [c["id"] for c in nc["constraints"] if persona in c["applies_to"]] + [
        nc["monologue"]["id"],
        nc["question_density"]["id"],
        nc["therapy_framing"]["id"],
    ]


def _fallback_lines(rule_id: str, language: str) -> list[str]:
    """The lines of the rule's fallback: the engine says the first one this session has not said."""
    nc = config("negative-constraints.json")
    by_id = {c["id"]: c["fallback"] for c in nc["constraints"]}
    by_id.update(
        {nc[k]["id"]: nc[k]["fallback"] for k in ("monologue", "question_density", "therapy_framing")}
    )
    return [str(line) for line in nc["fallbacks"][by_id[rule_id]][language]]


def _log_output(capfd, logs) -> str:
    out, err = capfd.readouterr()
    return out + err + logs.getvalue()


# Post-generation: every prohibited pattern family, the length cap and the question-density cap.
SETUP_CONTRADICTION = "We moved to Boston in 1985."
VIOLATIONS = [
    # (family, language, setup answer, narrator answer, candidate reply, violated rule, planned persona)
    ("diagnostic", "en", None, NARRATOR_TEXT, "It sounds like you have depression. What happened next?",
     "NC-DIAG-01", "EMPATHY_BASE"),
    ("diagnostic-zh", "zh", None, "我们1960年住在河边，和姑姑Quillfeather一起。", "你可能有抑郁症。后来发生了什么？",
     "NC-DIAG-01", "EMPATHY_BASE"),
    ("coercive", "en", None, NARRATOR_TEXT, "You need to tell me everything that happened there.",
     "NC-COERCE-01", "EMPATHY_BASE"),
    ("leading-trauma", "en", None, NARRATOR_TEXT, "That must have been so traumatic. What happened next?",
     "NC-LEAD-01", "EMPATHY_BASE"),
    ("accusatory-contradiction", "en", SETUP_CONTRADICTION, "We moved to Boston in 1987, Quillfeather said.",
     "You said 1985 but now you say 1987. Which one is true?", "NC-ACCUSE-01", "LOGIC_CLARIFY"),
    ("therapy-framing", "en", None, NARRATOR_TEXT,
     "As your therapist, I would like to hear more. What happened next?", "PG-THERAPY-01", "EMPATHY_BASE"),
    ("monologue-sentences", "en", None, NARRATOR_TEXT, MONOLOGUE_SENTENCES, "NC-MONO-01", "EMPATHY_BASE"),
    ("monologue-tokens", "en", None, NARRATOR_TEXT, MONOLOGUE_TOKENS, "NC-MONO-01", "EMPATHY_BASE"),
    ("too-many-questions", "en", None, NARRATOR_TEXT,
     "Where was the house? Who lived there with you? What did you do all day?", "PG-QDENSITY-01",
     "EMPATHY_BASE"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("language", "setup", "answer", "candidate", "rule_id", "persona"),
    [case[1:] for case in VIOLATIONS],
    ids=[case[0] for case in VIOLATIONS],
)
def test_a_reply_breaking_a_constraint_becomes_a_safety_fallback_override(
    api, users, db, fake_openai, logs, capfd, language, setup, answer, candidate, rule_id, persona
):
    narrator = users.create()
    sid = start(api, narrator, language=language, locale=None)["session_id"]
    if setup is not None:
        fake_openai.script(generated(CLEAN))
        take(api, narrator, sid, setup)
    fake_openai.script(generated(candidate))
    body = take(api, narrator, sid, answer)

    assert body["winning_rule"] != "safety_override"
    assert (body["persona_used"], body["safety_action"]) == ("SAFETY_FALLBACK", "override")
    assert body["response_text"] in _fallback_lines(rule_id, language)
    assert candidate not in body["response_text"]
    assert body["depth_level_after"] <= body["depth_level_before"] + 1

    stored = stored_turn(db, body["turn"]["turn_id"])
    assert (stored["persona_used"], stored["safety_action"]) == ("SAFETY_FALLBACK", "override")
    assert stored["violated_rule_ids"] == [rule_id]
    assert stored["telemetry"]["safety"]["violated_rule_ids"] == [rule_id]
    assert stored["telemetry"]["routing"]["planned_persona"] == persona
    history = api.get(f"{SESSIONS}/{sid}", narrator.token).body["turns"]
    assert history[-1]["violated_rule_ids"] == [rule_id]

    # Pre-generation: the call carried the planned persona's constraints, by rule id.
    system = _requests(fake_openai, GENERATION)[-1].message("system")
    for attached in _attached_ids(persona):
        assert f"[{attached}]" in system
    assert f"[{rule_id}]" in system

    output = _log_output(capfd, logs)
    warnings = [
        line for line in json_lines(output) if str(line.get("message", "")).startswith("SAFETY_FALLBACK")
    ]
    assert len(warnings) == 1, warnings
    assert warnings[0]["level"] == "WARNING"
    assert warnings[0]["violated_rule_ids"] == [rule_id]
    assert warnings[0]["session_id"] == sid
    assert answer not in output
    assert NARRATOR_MARKER not in output


def test_a_clean_reply_is_used_as_it_is_and_the_call_carries_the_prompt_and_constraints(
    api, users, db, fake_openai
):
    narrator = users.create()
    started = start(api, narrator)
    sid = started["session_id"]
    fake_openai.script(generated(CLEAN))
    body = take(api, narrator, sid, NARRATOR_TEXT)
    assert (body["response_text"], body["persona_used"], body["safety_action"]) == (
        CLEAN,
        "EMPATHY_BASE",
        "none",
    )
    assert body["turn"]["source"] == "llm"
    assert body["metrics"]["question_count"] == 1

    stored = stored_turn(db, body["turn"]["turn_id"])
    assert (stored["source"], stored["model"], stored["fallback_reason"]) == ("llm", FAKE_MODEL, None)
    assert stored["violated_rule_ids"] == []
    record = decision_record(db, body["turn"]["turn_id"])
    assert record["source"] == "llm"
    assert json.loads(json.loads(record["raw_reply"])["generation"]) == {"response_text": CLEAN}

    (request,) = fake_openai.requests
    assert request.body["model"] == FAKE_MODEL
    assert request.body["response_format"]["json_schema"]["name"] == GENERATION
    system, user = request.message("system"), request.message("user")
    block = (CONFIG_DIR / "system-prompt-block.txt").read_text(encoding="utf-8").strip()
    assert len(block.split()) <= 300
    assert block in system
    attached = _attached_ids("EMPATHY_BASE")
    for rule_id in attached:
        assert f"[{rule_id}]" in system
    assert "[NC-ACCUSE-01]" not in system  # only LOGIC_CLARIFY turns resolve contradictions
    assert stored["telemetry"]["safety"]["constraints_attached"] == attached
    assert NARRATOR_TEXT in user
    assert started["opening"]["response_text"] in user


def test_a_clean_reply_on_a_contradiction_turn_carries_the_no_accusation_constraint(api, users, fake_openai):
    narrator = users.create()
    sid = start(api, narrator)["session_id"]
    fake_openai.script(
        generated(CLEAN), generated("Thank you. I have both years in my notes; whichever is right.")
    )
    take(api, narrator, sid, SETUP_CONTRADICTION)
    body = take(api, narrator, sid, "We moved to Boston in 1987.")
    assert (body["persona_used"], body["turn"]["source"]) == ("LOGIC_CLARIFY", "llm")
    assert body["response_text"] == "Thank you. I have both years in my notes; whichever is right."
    system = _requests(fake_openai, GENERATION)[-1].message("system")
    for rule_id in _attached_ids("LOGIC_CLARIFY"):
        assert f"[{rule_id}]" in system
    assert "[NC-ACCUSE-01]" in system


@pytest.mark.parametrize(
    ("behaviour", "reason"),
    [
        (server_error(500), "server_error"),
        (Delay(30, then=generated(CLEAN)), "timeout"),
        (RawBody(b"<html>not json</html>"), "malformed"),
        (Completion("Sure! Here is my reply without any JSON."), "malformed"),
        (json_content({"text": CLEAN}), "malformed"),
        (rate_limited(), "rate_limited"),
        (Disconnect(), "connection"),
    ],
    ids=["500", "timeout", "junk-body", "junk-json", "wrong-shape", "429", "disconnect"],
)
def test_an_llm_fault_falls_back_to_the_offline_template(
    api, users, db, fake_openai, logs, capfd, behaviour, reason
):
    narrator = users.create()
    sid = start(api, narrator)["session_id"]
    fake_openai.script(behaviour)
    body = take(api, narrator, sid, NARRATOR_TEXT)
    assert body["turn"]["source"] == "offline"
    assert (body["persona_used"], body["tactic_used"], body["safety_action"]) == (
        "EMPATHY_BASE",
        "narrative_facilitation",
        "none",
    )
    offline = config("persona-profiles.json")["personas"]["EMPATHY_BASE"]["tactics"]["narrative_facilitation"]
    assert body["response_text"] in lines(offline)
    stored = stored_turn(db, body["turn"]["turn_id"])
    assert (stored["source"], stored["fallback_reason"]) == ("offline", reason)
    record = decision_record(db, body["turn"]["turn_id"])
    assert (record["source"], record["raw_reply"]) == ("offline", None)
    assert len(_requests(fake_openai, GENERATION)) == 1
    output = _log_output(capfd, logs)
    assert NARRATOR_MARKER not in output


@pytest.mark.parametrize(
    ("answer", "hard_stop", "tactic"),
    [
        (STOP, "stop_request", "close_gracefully"),
        (DISTRESS, "acute_distress", "pause_and_ground"),
        (SELF_HARM, "self_harm", "crisis_support"),
    ],
)
def test_a_hard_stop_never_calls_the_llm(api, users, db, fake_openai, answer, hard_stop, tactic):
    narrator = users.create()
    sid = start(api, narrator)["session_id"]
    fake_openai.script(generated("Let's keep going! What happened next?"))
    body = take(api, narrator, sid, answer)
    assert fake_openai.requests == []
    assert (body["persona_used"], body["safety_action"], body["tactic_used"]) == (
        "SAFETY_FALLBACK",
        "stop",
        tactic,
    )
    assert body["signals"]["hard_stop"] == hard_stop
    assert body["turn"]["source"] == "offline"
    assert stored_session(db, sid)["closed_reason"] == hard_stop


# LLM-assisted signals (PERSONA_RAILS_INTERVIEW_LLM_SIGNALS=true): one scoring call, then generation.


@pytest.fixture
def llm_signals(fake_openai, monkeypatch) -> Iterator[Any]:
    monkeypatch.setenv("PERSONA_RAILS_INTERVIEW_LLM_SIGNALS", "true")
    cached_settings.cache_clear()
    yield fake_openai
    cached_settings.cache_clear()


def scored(**overrides: Any) -> Completion:
    scores = {
        "vagueness_score": 0.0,
        "emotion_score": 0.0,
        "contradiction_score": 0.0,
        "contradiction": None,
        "refusal_or_discomfort": False,
        "user_initiated_elaboration": False,
        "hard_stop": "none",
    }
    scores.update(overrides)
    return json_content(scores)


def test_assisted_signals_can_raise_the_emotion_score(api, users, db, llm_signals):
    narrator = users.create()
    sid = start(api, narrator)["session_id"]
    llm_signals.script(scored(emotion_score=0.75), generated(CLEAN))
    body = take(api, narrator, sid, "We lived on a farm near the river.")
    assert body["signals"]["emotion_score"] == 0.75
    assert (body["winning_rule"], body["persona_used"]) == ("high_emotion", "EMPATHY_EXPAND")
    assert body["response_text"].startswith(CLEAN)
    assert [r.body["response_format"]["json_schema"]["name"] for r in llm_signals.requests] == [
        SIGNALS,
        GENERATION,
    ]
    assert "We lived on a farm near the river." in llm_signals.requests[0].message("user")
    replies = json.loads(decision_record(db, body["turn"]["turn_id"])["raw_reply"])
    assert set(replies) == {"signals", "generation"}
    assert json.loads(replies["signals"])["emotion_score"] == 0.75


def test_assisted_signals_never_lower_what_the_heuristics_found(api, users, llm_signals):
    narrator = users.create()
    sid = start(api, narrator)["session_id"]
    llm_signals.script(scored(emotion_score=0.0), generated(CLEAN))
    body = take(api, narrator, sid, "I cried so much when my mother passed away, I still miss her every day.")
    assert body["signals"]["emotion_score"] >= config("router-policy.json")["thresholds"]["emotion"]
    assert body["winning_rule"] == "high_emotion"


def test_an_assisted_contradiction_citing_a_stored_fact_routes_to_clarification(api, users, llm_signals):
    narrator = users.create()
    sid = start(api, narrator)["session_id"]
    llm_signals.script(scored(), generated(CLEAN))
    take(api, narrator, sid, SETUP_CONTRADICTION)
    # The heuristics hear no year here; the model cites fact 0 (the year of the move to Boston: 1985).
    llm_signals.script(
        scored(contradiction_score=0.8, contradiction={"fact_index": 0, "current_value": "1987"}),
        server_error(500),
    )
    body = take(api, narrator, sid, "That was the autumn we came to the city, two years after we said.")
    assert "0. year of 'moved>boston@self': 1985" in _requests(llm_signals, SIGNALS)[-1].message("system")
    assert body["signals"]["contradiction_score"] == 0.8
    assert body["signals"]["contradiction"] == {
        "kind": "year",
        "anchor": "moved>boston@self",
        "earlier": "1985",
        "current": "1987",
        "earlier_turn": 1,
    }
    assert (body["winning_rule"], body["persona_used"]) == ("contradiction_resolution", "LOGIC_CLARIFY")
    # The generator failed: the offline clarifying line names both versions.
    assert "1985" in body["response_text"]
    assert "1987" in body["response_text"]


@pytest.mark.parametrize(
    "cited",
    [None, {"fact_index": 7, "current_value": "1987"}, {"fact_index": 0, "current_value": "1985"}],
    ids=["uncited", "no-such-fact", "same-value"],
)
def test_an_assisted_contradiction_without_a_valid_citation_is_ignored(api, users, llm_signals, cited):
    narrator = users.create()
    sid = start(api, narrator)["session_id"]
    llm_signals.script(scored(), generated(CLEAN))
    take(api, narrator, sid, SETUP_CONTRADICTION)
    llm_signals.script(scored(contradiction_score=0.95, contradiction=cited), generated(CLEAN))
    body = take(api, narrator, sid, "That was the autumn we came to the city.")
    assert body["signals"]["contradiction_score"] == 0.0
    assert body["signals"]["contradiction"] is None
    assert body["winning_rule"] != "contradiction_resolution"
    assert body["persona_used"] != "LOGIC_CLARIFY"


def test_an_assisted_hard_stop_closes_the_session_without_a_generation_call(api, users, db, llm_signals):
    narrator = users.create()
    sid = start(api, narrator)["session_id"]
    llm_signals.script(scored(hard_stop="acute_distress", emotion_score=0.9), generated(CLEAN))
    body = take(api, narrator, sid, "Everything is spinning and I do not know where I am.")
    assert body["signals"]["hard_stop"] == "acute_distress"
    assert (body["persona_used"], body["safety_action"]) == ("SAFETY_FALLBACK", "stop")
    assert body["turn"]["session_status"] == "closed"
    assert _requests(llm_signals, GENERATION) == []
    assert stored_session(db, sid)["closed_reason"] == "acute_distress"


def test_in_assisted_mode_a_heuristic_hard_stop_still_never_generates(api, users, llm_signals):
    narrator = users.create()
    sid = start(api, narrator)["session_id"]
    llm_signals.script(scored(), generated("Let's keep going! What happened next?"))
    body = assert_turn_response(take(api, narrator, sid, SELF_HARM))
    assert body["signals"]["hard_stop"] == "self_harm"
    assert "988" in body["response_text"]
    assert _requests(llm_signals, GENERATION) == []
