"""2. Warm latency: the real ModerationCheckFunction handler, `POST /moderation/check`, retrieval on.

Round trips per check are not measured here: `bench.round_trips` plays this route behind the
1 ms delay proxy with the other functions' routes, and
tests/integration/moderation_check/test_round_trips.py asserts 2 for a fresh and a reused text.
"""

from __future__ import annotations

import gc
import random
from typing import Any

from bench.harness.handler import (
    call,
    create_accounts,
    embedded_database,
    event,
    expect_status,
    function,
    load_function_handler,
    release_handler_state,
    stdout_to_devnull,
)
from bench.harness.report import LATENCY_HEADERS, Report, against_targets, latency_cells
from bench.moderation.corpus import P50_TARGET_MS, P99_TARGET_MS, SEED, Settings, chinese_corpus

FUNCTION_ID = "ModerationCheckFunction"
PERSONA = "温柔体贴的陪伴型角色"
REPEAT_SHARE = 0.2  # of the checks: a text the same user already checked, same stage and policy


def check_plan(tokens: list[str], count: int, seed: int) -> list[tuple[str, dict[str, Any]]]:
    """`count` (token, body) pairs rotating over the users: REPEAT_SHARE of them repeat one of that
    user's earlier checks (stage and policy included), the others are fresh texts at a random stage
    and policy (default 70 %, stage_aware 30 %): texts from `seed`, the draws from `seed + 1`."""
    texts = iter(chinese_corpus(count, seed))
    rng = random.Random(seed + 1)
    history: dict[str, list[dict[str, Any]]] = {token: [] for token in tokens}
    plan = []
    for index in range(count):
        token = tokens[index % len(tokens)]
        earlier = history[token]
        if earlier and rng.random() < REPEAT_SHARE:
            plan.append((token, rng.choice(earlier)))
            continue
        policy = "default" if rng.random() < 0.7 else "stage_aware"
        profile = {"persona": PERSONA, "intimacy_stage": rng.randint(1, 5)}
        context = {"profile": profile, "profile_version": "v1.0"}
        earlier.append(
            {"text": next(texts), "dimensions": ["intimacy"], "context": context, "policy": policy}
        )
        plan.append((token, earlier[-1]))
    return plan


def measure_warm(settings: Settings) -> list[int]:
    """Nanoseconds around `lambda_handler` of each measured check, on a fresh embedded database.
    `!Ref EmbeddingModel` defaults to "" (the offline embedder); no LLM key: no third party."""
    declared = function(FUNCTION_ID)
    route = "POST /moderation/check"
    with embedded_database() as database:
        tokens = [user.token for user in create_accounts(database.owner, settings.users)]
        handler = load_function_handler(
            declared,
            database.url,
            {"POWERTOOLS_SERVICE_NAME": "moderation-check"},
            unset=("PERSONA_RAILS_EMBEDDING_MODEL",),
        )
        measured = []
        try:
            with stdout_to_devnull():
                plan = check_plan(tokens, settings.warmup + settings.checks, SEED + 1)
                for index, (token, body) in enumerate(plan):
                    if index == settings.warmup:
                        gc.collect()  # measure from a clean heap, as a warm container would be
                    result, elapsed = call(handler, event(declared, route, token, body=body), FUNCTION_ID)
                    expect_status(result, 200, "moderation check")
                    if index >= settings.warmup:
                        measured.append(elapsed)
        finally:
            release_handler_state()
    return measured


def warm_report(latencies: list[int], settings: Settings) -> Report:
    judged, passed = against_targets(latencies, P50_TARGET_MS, P99_TARGET_MS, "all checks")
    return Report(
        title="Moderation: warm latency, POST /moderation/check through lambda_handler (retrieval on)",
        headers=LATENCY_HEADERS,
        rows=[["checks, WARNING", *latency_cells(latencies)]],
        notes=[
            f"{settings.warmup} warm-up checks, then {settings.checks} measured; {settings.users} users in "
            f"rotation, each starting with no stored checks; {REPEAT_SHARE:.0%} of the checks repeat a text the "
            "same user checked before at the same stage and policy (retrieval reuses it unless "
            "`intimacy.may_reuse` refuses a word forbidden at that stage), the rest are fresh 50-character "
            "texts at stages 1–5, policy default 70 % / stage_aware 30 %. Offline embedder, no LLM, the "
            "template's threshold 0.95.",
            "Timed around `lambda_handler(event, context)` only; embedded Postgres over its unix socket; "
            "metrics on; stdout to /dev/null. Round trips per check: `python -m bench.round_trips`.",
            *judged,
        ],
        passed=passed,
    )
