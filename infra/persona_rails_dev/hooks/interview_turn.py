"""InterviewTurnFunction's part of `rails serve --demo`: a short memoir interview over HTTP, with
a vague answer, an elaboration, a refusal that changes the topic, and a stop request."""

from __future__ import annotations

import json
from typing import Any

from persona_rails_dev.demo import call
from persona_rails_dev.hooks import SmokeStep
from persona_rails_dev.local_env import DEV_USER_ID, mint_token

START = {
    "narrator": {"display_name": "Margaret"},
    "language": "en",
    "locale": "en-US",
    "topic_plan": [
        {"topic_id": "childhood", "title": "your childhood"},
        {"topic_id": "first_job", "title": "your first job"},
    ],
}
ANSWERS = (
    "I don't really remember, maybe sometime around then.",
    "We moved to Boston in 1985, when I was twelve. My father had found work at the shipyard, and I want "
    "to tell you about the first winter there, because it changed how I saw him: he walked me to school "
    "every morning in the snow before his shift.",
    "I'd rather not talk about my father any more, can we change the topic?",
    "I want to stop the interview now.",
)


# `rails smoke`'s dialog against a deployed API (persona_rails_dev.smoke).
SMOKE = (
    SmokeStep("interview-turn/start.json", (201,), keeps="session_id"),
    SmokeStep("interview-turn/turn.json", (200,)),
    SmokeStep("interview-turn/get.json", (200,)),
)


def demo(base_url: str, print_fn: Any = print) -> None:
    token = mint_token(DEV_USER_ID)
    status, started = call(base_url, "POST", "/interview/sessions", token, START)
    if status >= 400:
        raise RuntimeError(f"starting the interview failed with {status}: {started}")
    session_id = started["session_id"]
    print_fn(f"\n=== interview: POST /interview/sessions -> {status}")
    print_fn(f"interviewer: {started['opening']['response_text']}")
    turns_path = f"/interview/sessions/{session_id}/turns"
    for answer in ANSWERS:
        status, turn = call(base_url, "POST", turns_path, token, {"user_text": answer})
        if status >= 400:
            raise RuntimeError(f"the interview turn failed with {status}: {turn}")
        print_fn(f"\n=== interview: POST /interview/sessions/{{id}}/turns -> {status}")
        print_fn(f"narrator:    {answer}")
        print_fn(f"interviewer: {turn['response_text']}")
        print_fn(
            json.dumps(
                {
                    "winning_rule": turn["winning_rule"],
                    "persona_used": turn["persona_used"],
                    "depth": f"{turn['depth_level_before']} -> {turn['depth_level_after']}",
                    "tactic_used": turn["tactic_used"],
                    "loop_state": turn["loop_state"],
                    "safety_action": turn["safety_action"],
                },
                ensure_ascii=False,
            )
        )
