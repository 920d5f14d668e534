"""ChairInterruptFunction's part of `rails serve --demo`: a short debate over HTTP in which a
straw man gets interrupted, the cooldown then holds, and the stats count the interrupt.

The debate is at aggressiveness 1, the most conservative setting, where offline only a rule
trigger interrupts. At 3 the local scorer also reads the first, plain line as a moment for strong
agreement (docs/judges.md, known misses), and the virtue ethicist's cooldown would then swallow
the straw man."""

from __future__ import annotations

import json
import uuid
from typing import Any

from persona_rails_dev.demo import call
from persona_rails_dev.hooks import SmokeStep
from persona_rails_dev.local_env import DEV_USER_ID, mint_token

# `rails smoke`'s dialog against a deployed API (persona_rails_dev.smoke).
SMOKE = (
    SmokeStep("chair-interrupt/evaluate.json", (200,)),
    SmokeStep("chair-interrupt/stats.json", (200,)),
)


def _chair(position: str, framework: str, name: str) -> dict[str, str]:
    return {"position": position, "framework": framework, "model_id": name, "model_display_name": name}


CHAIRS = [_chair("chair_2", "virtue_ethics", "GPT"), _chair("chair_3", "deontology", "Gemini")]
SPEAKER = _chair("chair_1", "utilitarianism", "Claude")
CHUNKS = (
    "We should weigh the outcomes for everyone affected, and count each person equally.",
    "Virtue ethics people just want to feel good about themselves!",
    "And frankly, virtue ethics people just want a clean conscience, nothing more!",
)


def demo(base_url: str, print_fn: Any = print) -> None:
    token = mint_token(DEV_USER_ID)
    base = f"/debates/{uuid.uuid4()}/interrupts"
    so_far = ""
    for chunk in CHUNKS:
        body = {
            "current_speaker": SPEAKER,
            "other_chairs": CHAIRS,
            "recent_content": chunk,
            "debate_so_far": so_far,
            "topic": "AI Ethics",
            "interruptions": {
                "enabled": True,
                "allow_chair_interruptions": True,
                "aggressiveness": 1,
                "cooldown_seconds": 60,
            },
        }
        status, candidate = call(base_url, "POST", f"{base}/evaluate", token, body)
        if status >= 400:
            raise RuntimeError(f"the interrupt evaluation failed with {status}: {candidate}")
        print_fn(f"\n=== debate: POST /debates/{{id}}/interrupts/evaluate -> {status}")
        print_fn(f"chair_1 (utilitarianism): {chunk}")
        if candidate:
            print_fn(
                f"{candidate['interrupting_chair']['position']} interrupts ({candidate['trigger_reason']}, "
                f"urgency {candidate['urgency']}): {candidate['suggested_opener']}"
            )
        else:
            print_fn("no interrupt")
        so_far += f"\nchair_1: {chunk}"
    status, stats = call(base_url, "GET", f"{base}/stats", token)
    print_fn(f"\n=== debate: GET /debates/{{id}}/interrupts/stats -> {status}")
    print_fn(json.dumps(stats, ensure_ascii=False))
