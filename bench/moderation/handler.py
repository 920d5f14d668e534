"""2. Warm latency: the real ModerationCheckFunction handler, `POST /moderation/check`, retrieval on
(docs/benchmarks.md, "Moderation"; round trips per check are `bench.round_trips`'s)."""

from __future__ import annotations

import random
from typing import Any

from bench.harness.handler import BenchUser
from bench.harness.report import LATENCY_HEADERS, Report, latency_cells
from bench.harness.scenario import Client, latency_targets, serving, warm_loop
from bench.moderation.corpus import P50_TARGET_MS, P99_TARGET_MS, SEED, Settings, chinese_corpus

FUNCTION_ID = "ModerationCheckFunction"
ROUTE = "POST /moderation/check"
PERSONA = "温柔体贴的陪伴型角色"
REPEAT_SHARE = 0.2  # of the checks: a text the same user already checked, same stage and policy


def check_plan(users: list[BenchUser], count: int, seed: int) -> list[tuple[BenchUser, dict[str, Any]]]:
    """`count` (user, body) pairs rotating over the users: REPEAT_SHARE of them repeat one of that
    user's earlier checks (stage and policy included), the others are fresh texts at a random stage
    and policy (default 70 %, stage_aware 30 %): texts from `seed`, the draws from `seed + 1`."""
    texts = iter(chinese_corpus(count, seed))
    rng = random.Random(seed + 1)
    history: dict[str, list[dict[str, Any]]] = {user.id: [] for user in users}
    plan = []
    for index in range(count):
        user = users[index % len(users)]
        earlier = history[user.id]
        if earlier and rng.random() < REPEAT_SHARE:
            plan.append((user, rng.choice(earlier)))
            continue
        policy = "default" if rng.random() < 0.7 else "stage_aware"
        profile = {"persona": PERSONA, "intimacy_stage": rng.randint(1, 5)}
        context = {"profile": profile, "profile_version": "v1.0"}
        earlier.append(
            {"text": next(texts), "dimensions": ["intimacy"], "context": context, "policy": policy}
        )
        plan.append((user, earlier[-1]))
    return plan


def measure_warm(settings: Settings) -> list[int]:
    """Nanoseconds around `lambda_handler` of each measured check, on a fresh embedded database.
    `!Ref EmbeddingModel` defaults to "" (the offline embedder); no LLM key: no third party."""
    environment = {"POWERTOOLS_SERVICE_NAME": "moderation-check", "PERSONA_RAILS_EMBEDDING_MODEL": None}
    with serving(FUNCTION_ID, settings.users, environment) as served:
        client = Client(served.handler, served.function)
        plan = check_plan(served.users, settings.warmup + settings.checks, SEED + 1)

        def check(index: int) -> int:
            user, body = plan[index]
            return client.send(ROUTE, user, body=body)[1]

        return warm_loop(settings.warmup, settings.checks, check)


def warm_report(latencies: list[int], settings: Settings) -> Report:
    return Report(
        title="Moderation: warm latency, POST /moderation/check through lambda_handler (retrieval on)",
        headers=LATENCY_HEADERS,
        rows=[["checks, WARNING", *latency_cells(latencies)]],
        notes=[
            f"{settings.warmup} warm-up checks, then {settings.checks} measured; {settings.users} users in rotation, "
            f"{REPEAT_SHARE:.0%} of the checks repeating an earlier one.",
        ],
    )


def warm_targets(latencies: list[int]) -> list[list[str]]:
    return latency_targets("warm handler", latencies, P50_TARGET_MS, P99_TARGET_MS)
