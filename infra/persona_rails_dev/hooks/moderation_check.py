"""ModerationCheckFunction's part of `rails serve --demo`: three candidate replies checked over HTTP."""

from __future__ import annotations

import json
from typing import Any

from persona_rails_dev.demo import call
from persona_rails_dev.hooks import SmokeStep
from persona_rails_dev.local_env import DEV_USER_ID, mint_token

# The spec's examples (intimacy-check.md §16), at stage 2 (acquaintance).
REPLIES = ("谢谢你的帮助", "我很关心你，希望你一切都好", "亲爱的，我好想你")


# `rails smoke`'s dialog against a deployed API (persona_rails_dev.smoke).
SMOKE = (SmokeStep("moderation-check/check.json", (200,)),)


def demo(base_url: str, print_fn: Any = print) -> None:
    token = mint_token(DEV_USER_ID)
    for text in REPLIES:
        body = {
            "text": text,
            "dimensions": ["intimacy"],
            "context": {
                "profile": {"persona": "温柔体贴的陪伴型角色", "intimacy_stage": 2},
                "profile_version": "v1.0",
            },
            "policy": "default",
        }
        status, reply = call(base_url, "POST", "/moderation/check", token, body)
        if status >= 400:
            raise RuntimeError(f"moderation check failed with {status}: {reply}")
        intimacy = reply["results"]["intimacy"]
        print_fn(f"\n=== moderation: POST /moderation/check -> {status}")
        print_fn(
            json.dumps(
                {
                    "text": text,
                    "final": reply["decision"]["final"],
                    "score": intimacy["score"],
                    "reason": intimacy["reason"],
                    "reused": intimacy["reused"],
                },
                ensure_ascii=False,
                indent=2,
            )
        )
