"""SpsEncounterFunction's part of `rails serve --demo`: a short history-taking encounter over HTTP
(the DOB challenge and its re-ask, the presenting problem, a fact, a guarded request refused),
then its transcript read back and validated."""

from __future__ import annotations

import json
from typing import Any

from persona_rails_dev.demo import call
from persona_rails_dev.hooks import SmokeStep
from persona_rails_dev.local_env import DEV_USER_ID, mint_token

LEARNER_TURNS = (
    "Hello, I'm one of the student doctors. Could you confirm your name and date of birth?",
    "Sorry, I do need your date of birth to make sure I have the right notes.",
    "What brings you in today?",
    "When did it start?",
    "Could you run on the spot for me for a minute?",
)


# `rails smoke`'s dialog against a deployed API (persona_rails_dev.smoke).
SMOKE = (
    SmokeStep("sps-encounter/scenarios.json", (200,)),
    SmokeStep("sps-encounter/start.json", (201,), keeps="encounter_id"),
    SmokeStep("sps-encounter/turn.json", (200,)),
    SmokeStep("sps-encounter/validate.json", (200,)),
)


def demo(base_url: str, print_fn: Any = print) -> None:
    token = mint_token(DEV_USER_ID)
    status, started = call(
        base_url, "POST", "/sps/encounters", token, {"scenario_id": "chest-pain", "seed": 42}
    )
    if status != 201:
        raise RuntimeError(f"starting the encounter failed with {status}: {started}")
    encounter = started["encounter_id"]
    print_fn(f"\n=== sps: POST /sps/encounters -> {status}")
    print_fn(f"{started['scenario']['title']} ({started['persona']['id']}, seed {started['seed']})")
    for text in LEARNER_TURNS:
        status, turn = call(
            base_url, "POST", f"/sps/encounters/{encounter}/turns", token, {"learner_text": text}
        )
        if status != 200:
            raise RuntimeError(f"the turn failed with {status}: {turn}")
        print_fn(f"learner: {text}")
        print_fn(f"patient: {turn['text']}   [{turn['meta']['kind']}, rapport {turn['meta']['rapport']}]")
    status, detail = call(base_url, "GET", f"/sps/encounters/{encounter}", token)
    status, result = call(
        base_url,
        "POST",
        "/sps/validate",
        token,
        {"scenario_id": "chest-pain", "transcript": detail["transcript"]},
    )
    print_fn(f"\n=== sps: POST /sps/validate -> {status}")
    print_fn(
        json.dumps(
            {"errors": result["errors"], "summaryMetrics": result["summaryMetrics"]}, ensure_ascii=False
        )
    )
