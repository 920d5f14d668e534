"""The LLM path with a real client: Lambda handler -> the `openai` SDK -> a scripted
OpenAI-compatible server over TCP, every turn read back from the embedded Postgres.

- The model phrases only factual answers (openings, answers, narratives), from a layered prompt in
  the precedence order of §1 that states the case facts the answer may use.
- Its reply is checked against the case: a contradiction (or an invented number, a diagnosis) is
  refused and the offline phrasing said instead; the decision record keeps the refused reply, and
  a replay refuses it again.
- Any fault (HTTP 500, timeout, junk) falls back to the offline generator, with the reason.
- Refusals, clarifications and the DOB challenge never ask the model for words.
- The RNG draws do not depend on the phrasing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from persona_rails.decisions import DecisionRecord, diff
from persona_rails.settings import cached_settings
from persona_rails_dev.replay import replay as rails_replay
from persona_rails_dev.template import functions
from sps_encounter.replay import replay
from tests.integration.sps_encounter.helpers import (
    FUNCTION,
    GUARDRAIL,
    IDENTITY,
    IDENTITY_AGAIN,
    LOCATION,
    MEASURE_BP,
    ONSET,
    OPENING,
    VAGUE,
    decision_record,
    start,
    stored_turns,
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

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")
CLEAN_ONSET = "About three weeks ago, I'd say."
LAYERS = (
    "LAYER 1: SAFETY AND CONTRAINDICATIONS",
    "LAYER 2: CASE FACTS",
    "LAYER 3: PERSONA",
    "LAYER 4: THIS TURN",
    "LAYER 5: BASELINE RULES",
    "LAYER 6: STYLE",
)


def said(text: str) -> Completion:
    return json_content({"text": text})


@contextmanager
def llm_off(monkeypatch) -> Iterator[None]:
    """Within the block the function runs with no LLM configured (the offline generator)."""
    key = os.environ["OPENAI_API_KEY"]
    monkeypatch.delenv("OPENAI_API_KEY")
    cached_settings.cache_clear()
    try:
        yield
    finally:
        monkeypatch.setenv("OPENAI_API_KEY", key)
        cached_settings.cache_clear()


def offline_turns(api, users, monkeypatch, texts, **start_fields) -> list[dict]:
    """The same encounter (seed, case, learner turns) with no LLM: the reference."""
    with llm_off(monkeypatch):
        learner = users.create()
        encounter = start(api, learner, **start_fields)["encounter_id"]
        return [take(api, learner, encounter, text) for text in texts]


def _without(meta: dict, *names: str) -> dict:
    return {key: value for key, value in meta.items() if key not in names}


def test_a_clean_reply_is_used_and_the_prompt_holds_the_layers_in_order(api, users, db, fake_openai):
    learner = users.create()
    encounter = start(api, learner)["encounter_id"]
    fake_openai.script(said(CLEAN_ONSET))
    body = take(api, learner, encounter, ONSET)
    meta = body["meta"]
    assert (meta["source"], meta["fallbackReason"]) == ("llm", None)
    assert meta["factCheck"] == {"violations": [], "used": "llm"}
    assert meta["slots"] == {"onset": "three weeks ago"}
    # The reply is the body of the utterance (an opener or hesitation may come before it).
    assert body["text"].endswith(CLEAN_ONSET[1:])

    stored = stored_turns(db, encounter)[0]
    assert (stored["source"], stored["model"], stored["fallback_reason"]) == ("llm", FAKE_MODEL, None)
    record = decision_record(db, body["turn_id"])
    assert record["source"] == "llm"
    assert json.loads(record["raw_reply"]) == {"text": CLEAN_ONSET}
    assert diff(record["output"], replay(DecisionRecord.from_row(record))) == []

    (request,) = fake_openai.requests
    assert request.body["model"] == FAKE_MODEL
    assert request.body["response_format"]["json_schema"]["name"] == "sps_patient_reply"
    assert request.message("user") == ONSET
    system = request.message("system")
    positions = [system.index(layer) for layer in LAYERS]
    assert positions == sorted(positions), "the layers are not in the precedence order of §1"
    facts = system[positions[1] : positions[2]]
    assert "- onset: three weeks ago" in facts
    assert "chest pain on exertion for three weeks" in facts
    # Only the facts asked for: nothing of another slot.
    assert "amlodipine" not in system
    assert "152/94" not in system
    safety = system[positions[0] : positions[1]]
    assert "Exertion provokes the pain" in safety
    assert "Daniel Hughes, 58, male, bus driver" in system[positions[2] : positions[3]]


@pytest.mark.parametrize(
    ("question", "reply", "violation"),
    [
        (ONSET, "It started two days ago.", "contradicts:onset"),
        (MEASURE_BP, "It's 120/80 mmHg, nice and normal.", "contradicts:blood_pressure"),
        (LOCATION, "It's on the left side of my chest.", "contradicts:location"),
        (ONSET, "About 5 weeks ago.", "unsupported_number:5"),
        (LOCATION, "In the middle. I think it's angina.", "diagnosis_or_coaching"),
        (ONSET, "Um, three weeks ago.", "disfluency"),
    ],
    ids=["onset-two-days", "bp-120-80", "wrong-side", "invented-number", "diagnosis", "hesitation"],
)
def test_a_fact_contradicting_reply_is_caught_and_the_offline_phrasing_said(
    api, users, db, database_url, fake_openai, monkeypatch, capfd, question, reply, violation
):
    learner = users.create()
    encounter = start(api, learner)["encounter_id"]
    fake_openai.script(said(reply))
    body = take(api, learner, encounter, question)
    meta = body["meta"]
    assert len(fake_openai.requests) == 1
    assert reply not in body["text"]
    assert (meta["source"], meta["fallbackReason"]) == ("offline", "fact_check")
    assert meta["factCheck"]["used"] == "offline"
    assert violation in meta["factCheck"]["violations"]

    # The offline phrasing, exactly as with no LLM at all, draw for draw.
    (reference,) = offline_turns(api, users, monkeypatch, [question])
    assert body["text"] == reference["text"]
    assert _without(meta, "factCheck", "fallbackReason") == _without(
        reference["meta"], "factCheck", "fallbackReason"
    )
    assert body["state"] == reference["state"]

    # The record keeps the refused reply: a replay reads it again and refuses it again.
    stored = stored_turns(db, encounter)[0]
    assert (stored["source"], stored["fallback_reason"]) == ("offline", "fact_check")
    record = decision_record(db, body["turn_id"])
    assert record["source"] == "llm"
    assert json.loads(record["raw_reply"]) == {"text": reply}
    assert diff(record["output"], replay(DecisionRecord.from_row(record))) == []
    capfd.readouterr()
    assert rails_replay(functions()[FUNCTION], database_url, [body["turn_id"]]) == 0
    assert f"{body['turn_id']}: identical" in capfd.readouterr().out


@pytest.mark.parametrize(
    ("behaviour", "reason", "raw_kept"),
    [
        (server_error(500), "server_error", False),
        (Delay(30, then=said(CLEAN_ONSET)), "timeout", False),
        (RawBody(b"<html>not json</html>"), "malformed", False),
        (Completion("About three weeks ago."), "malformed", True),
        (json_content({"answer": CLEAN_ONSET}), "malformed", True),
        (json_content({"text": ""}), "malformed", True),
        (json_content({"text": "x" * 601}), "out_of_range", True),
        (Completion(None, refusal="I can't help with that."), "refused", False),
        (rate_limited(), "rate_limited", False),
        (Disconnect(), "connection", False),
    ],
    ids=["500", "timeout", "junk-body", "prose", "wrong-shape", "empty-text", "too-long", "refusal", "429",
         "disconnect"],
)  # fmt: skip
def test_an_llm_fault_falls_back_to_the_offline_generator_with_the_reason(
    api, users, db, fake_openai, monkeypatch, behaviour, reason, raw_kept
):
    learner = users.create()
    encounter = start(api, learner)["encounter_id"]
    fake_openai.script(behaviour)
    body = take(api, learner, encounter, ONSET)
    meta = body["meta"]
    assert (meta["source"], meta["fallbackReason"], meta["factCheck"]) == ("offline", reason, None)
    assert len(fake_openai.requests) == 1
    (reference,) = offline_turns(api, users, monkeypatch, [ONSET])
    assert body["text"] == reference["text"]
    assert _without(meta, "fallbackReason") == _without(reference["meta"], "fallbackReason")

    stored = stored_turns(db, encounter)[0]
    assert (stored["source"], stored["fallback_reason"]) == ("offline", reason)
    record = decision_record(db, body["turn_id"])
    assert (record["raw_reply"] is not None) == raw_kept
    assert record["source"] == ("llm" if raw_kept else "offline")
    assert diff(record["output"], replay(DecisionRecord.from_row(record))) == []


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (GUARDRAIL, "refusal"),
        (VAGUE, "clarification"),
        (IDENTITY, "dob_challenge"),
        ("Have you ever travelled abroad?", "uncertain"),
        ("Do you smoke?", "decline"),
    ],
)
def test_turns_that_state_no_case_fact_never_call_the_llm(api, users, fake_openai, text, kind):
    learner = users.create()
    encounter = start(api, learner)["encounter_id"]
    fake_openai.script(said("Sure, I'll run on the spot. It's angina, by the way."))
    body = take(api, learner, encounter, text)
    assert body["meta"]["kind"] == kind
    assert (body["meta"]["source"], body["meta"]["fallbackReason"]) == ("offline", None)
    assert fake_openai.requests == []
    assert "angina" not in body["text"]


def test_only_the_factual_turns_of_an_encounter_call_the_llm(api, users, fake_openai):
    learner = users.create()
    encounter = start(api, learner)["encounter_id"]
    fake_openai.default = said("Right in the middle of my chest.")
    texts = (OPENING, IDENTITY, IDENTITY_AGAIN, GUARDRAIL, VAGUE, LOCATION)
    bodies = [take(api, learner, encounter, text) for text in texts]
    assert [b["meta"]["kind"] for b in bodies] == [
        "opening",
        "dob_challenge",
        "identity",
        "refusal",
        "clarification",
        "answer",
    ]
    assert [b["meta"]["source"] for b in bodies] == ["llm", "offline", "offline", "offline", "offline", "llm"]
    assert [r.message("user") for r in fake_openai.requests] == [OPENING, LOCATION]


def test_the_rng_draws_are_the_same_with_and_without_the_llm(api, users, fake_openai, monkeypatch):
    texts = (OPENING, ONSET, LOCATION, "What does the pain feel like?")
    fake_openai.script(
        said("My chest has been feeling heavy when I walk up hills."),
        said("Three weeks, more or less."),
        said("Right in the middle, behind the breastbone."),
        said("A pressure, heavy, like a weight."),
    )
    learner = users.create()
    encounter = start(api, learner)["encounter_id"]
    with_llm = [take(api, learner, encounter, text) for text in texts]
    assert [b["meta"]["source"] for b in with_llm] == ["llm"] * 4
    without = offline_turns(api, users, monkeypatch, texts)

    # The stream itself: each draw's state and value. Which item a draw picked may differ, since
    # anti-echo substitutes only when the phrasing's opening repeats.
    def stream(bodies):
        return [[(d["purpose"], d["state"], d["value"]) for d in b["meta"]["rng"]] for b in bodies]

    assert stream(with_llm) == stream(without)
    assert [b["meta"]["slots"] for b in with_llm] == [b["meta"]["slots"] for b in without]
    assert with_llm[-1]["state"]["rngSeed"] == without[-1]["state"]["rngSeed"]


def test_the_rng_draws_are_the_same_when_the_llms_replies_open_alike(api, users, fake_openai, monkeypatch):
    texts = (OPENING, ONSET, LOCATION, "What does the pain feel like?", "Does it go anywhere else?")
    # Every reply opens "I think": anti-echo then has the same opening to work on each turn. Each
    # still states the fact it was asked for (a reply leaving it out is refused, and falls back).
    fake_openai.script(
        said("I think my chest feels heavy when I walk up hills."),
        said("I think it is three weeks now."),
        said("I think it is in the middle of my chest."),
        said("I think it is a pressure, a heavy feeling."),
        said("I think it goes down my left arm sometimes."),
    )
    learner = users.create()
    encounter = start(api, learner)["encounter_id"]
    with_llm = [take(api, learner, encounter, text) for text in texts]
    assert [b["meta"]["source"] for b in with_llm] == ["llm"] * len(texts)
    without = offline_turns(api, users, monkeypatch, texts)
    assert [[d["purpose"] for d in b["meta"]["rng"]] for b in with_llm] == [
        [d["purpose"] for d in b["meta"]["rng"]] for b in without
    ]

    # The stream itself: each draw's state and value. Which item a draw picked may differ, since
    # anti-echo substitutes only when the phrasing's opening repeats.
    def stream(bodies):
        return [[(d["purpose"], d["state"], d["value"]) for d in b["meta"]["rng"]] for b in bodies]

    assert stream(with_llm) == stream(without)


def test_llm_turns_of_a_whole_encounter_replay_from_their_recorded_replies(
    api, users, db, database_url, fake_openai, capfd
):
    learner = users.create()
    encounter = start(api, learner)["encounter_id"]
    fake_openai.script(
        said("My chest goes heavy when I walk uphill."),
        said("It started two days ago."),
        server_error(500),
        Completion("not json at all"),
        said("Right in the middle of my chest."),
    )
    bodies = [
        take(api, learner, encounter, text)
        for text in (
            OPENING,
            ONSET,
            "Where exactly is the pain?",
            "What makes it better?",
            IDENTITY,
            LOCATION,
        )
    ]
    assert [(b["meta"]["source"], b["meta"]["fallbackReason"]) for b in bodies] == [
        ("llm", None),
        ("offline", "fact_check"),
        ("offline", "server_error"),
        ("offline", "malformed"),
        ("offline", None),
        ("llm", None),
    ]
    requests_before = len(fake_openai.requests)
    ids = [b["turn_id"] for b in bodies]
    capfd.readouterr()
    # The child replays with no LLM configured at all: nothing is asked again.
    assert rails_replay(functions()[FUNCTION], database_url, ids) == 0
    assert capfd.readouterr().out.count(": identical") == len(ids)
    assert len(fake_openai.requests) == requests_before
