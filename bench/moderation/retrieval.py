"""4. Retrieval at scale: the measurements and their reports."""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING

from bench.harness.handler import embedded_database, make_token, release_handler_state
from bench.harness.handler import function as harness_function
from bench.harness.report import verdict
from bench.moderation.corpus import (
    FUNCTION_ID,
    LOG_LEVELS,
    SEED,
    TEXT_CHARS,
    Settings,
    chinese_corpus,
)
from bench.moderation.handler import (
    AtScaleHandler,
    check_plan,
    load_moderation_handler,
    run_checks,
)
from bench.moderation.queries import (
    INDEX_NAME,
    QUERY_KINDS,
    VARIANTS,
    KindResult,
    RetrievalResults,
    SizeResult,
    VariantResult,
)
from bench.moderation.scale_database import (
    HEAVY_SHARE,
    SEGMENT_CHARS,
    SEGMENTS,
    ScaleDatabase,
    current_version,
    previous_version,
)

if TYPE_CHECKING:
    pass


def _plan_facts(plan: str) -> tuple[bool, float]:
    uses_index = f"Index Scan using {INDEX_NAME}" in plan
    execution = next(
        (float(line.split(":")[1].split()[0]) for line in plan.splitlines() if "Execution Time" in line),
        math.nan,
    )
    return uses_index, execution


def measure_kinds(scale: ScaleDatabase, probes: list[str], exact_probes: int) -> dict[str, KindResult]:
    """Every probe through the service's SQL and the sub-select variant; the first `exact_probes` also
    exactly, for recall. Variants alternate probe by probe, so noise hits them alike."""
    from persona_rails.moderation.embedding import offline_embedding

    vectors = [offline_embedding(text).as_pgvector() for text in probes]
    results = {}
    for kind in QUERY_KINDS:
        users = [scale.heavy] if kind.heavy else scale.light
        version = current_version(kind.policy)
        measured = {variant: VariantResult() for variant in VARIANTS}
        for index, vector in enumerate(vectors[:10]):  # warm-up: the index's upper layers, the btree
            for variant in VARIANTS[:2]:
                scale.recall(users[index % len(users)], vector, kind.stage, version, variant)
        returned: dict[str, list[tuple[str, str]]] = {variant: [] for variant in VARIANTS}
        for index, vector in enumerate(vectors):
            user = users[index % len(users)]
            chosen = VARIANTS if index < exact_probes else VARIANTS[:2]
            answers = {}
            for variant in chosen:
                outcome = scale.recall(user, vector, kind.stage, version, variant)
                if outcome is None:
                    continue
                elapsed, nearest = outcome
                result = measured[variant]
                result.ns.append(elapsed)
                answers[variant] = nearest
                if nearest is not None:
                    result.found += 1
                    returned[variant].append((str(nearest["id"]), user))
            truth = answers.get("exact")
            if "exact" in answers:
                for variant, nearest in answers.items():
                    result = measured[variant]
                    result.recall_checked += 1
                    if truth is None:
                        result.recall_hits += nearest is None
                    elif nearest is not None:
                        result.recall_hits += (
                            float(nearest["similarity"]) >= float(truth["similarity"]) - 1e-9
                        )
        for variant, rows in returned.items():
            described = scale.describe([row_id for row_id, _ in rows])
            measured[variant].violations = sum(
                (
                    described[row_id]["user_id"],
                    described[row_id]["stage"],
                    described[row_id]["policy_version"],
                )
                != (user, kind.stage, version)
                for row_id, user in rows
            )
            plan = scale.explain(users[0], vectors[0], kind.stage, version, variant)
            measured[variant].plan = plan
            measured[variant].uses_index, measured[variant].server_ms = _plan_facts(plan)
        results[kind.name] = KindResult(scale.filter_rows(users, kind.stage, version), measured)
    return results


def probe_filter(scale: ScaleDatabase, text: str, planted: dict[str, str]) -> list[list[str]]:
    """Retrieval of the planted text under each filter, through the service's SQL: it must find
    the planted row that matches that filter (similarity 1), and never one that fails it."""
    from persona_rails.moderation.embedding import offline_embedding

    vector = offline_embedding(text).as_pgvector()
    names = {row_id: name for name, row_id in planted.items()}
    default, stage_aware = current_version("default"), current_version("stage_aware")
    asks = (
        ("heavy user, stage 2, default", scale.heavy, 2, default, planted["match"]),
        ("heavy user, stage 3, default", scale.heavy, 3, default, planted["other stage"]),
        ("heavy user, stage 2, stage_aware", scale.heavy, 2, stage_aware, planted["other policy"]),
        (
            "heavy user, stage 2, default, previous lexicon",
            scale.heavy,
            2,
            previous_version("default"),
            planted["other policy version"],
        ),
        ("light user 1, stage 2, default", scale.light[0], 2, default, planted["other user"]),
        ("heavy user, stage 4, default (nothing planted)", scale.heavy, 4, default, None),
    )
    rows = []
    for label, user, stage, version, expected in asks:
        outcome = scale.recall(user, vector, stage, version)
        assert outcome is not None
        nearest = outcome[1]
        if nearest is None:
            rows.append([label, "none", "", "", "", verdict(False)])
            continue
        row = scale.describe([str(nearest["id"])])[str(nearest["id"])]
        matches = (row["user_id"], row["stage"], row["policy_version"]) == (user, stage, version)
        ok = matches and (str(nearest["id"]) == expected if expected else str(nearest["id"]) not in names)
        rows.append(
            [
                label,
                names.get(str(nearest["id"]), "a loaded row"),
                "heavy" if row["user_id"] == scale.heavy else "light",
                f"{row['stage']}, {row['policy_version'].split('+')[0]}",
                f"{float(nearest['similarity']):.4f}",
                verdict(ok),
            ]
        )
    return rows


def measure_handler_at_scale(scale: ScaleDatabase, checks: int, warmup: int) -> list[AtScaleHandler]:
    """The handler on the big database: the heavy user, then light users in rotation."""
    function = harness_function(FUNCTION_ID)
    handler = load_moderation_handler(scale.url)
    measured = []
    try:
        for label, users, seed in (
            ("heavy user", [scale.heavy], SEED + 7),
            ("light users", scale.light, SEED + 9),
        ):
            tokens = [make_token(user) for user in users]
            texts = iter(chinese_corpus(2 * (warmup + checks), seed))
            plan = check_plan(tokens, texts, warmup + checks, seed + 1)
            rows = (
                scale.heavy_rows()
                if users == [scale.heavy]
                else scale.loaded * (1 - HEAVY_SHARE) / len(users)
            )
            latencies = run_checks(handler, function, plan, warmup, (LOG_LEVELS[0],))[LOG_LEVELS[0]]
            measured.append(AtScaleHandler(label, scale.total_rows(), int(rows), warmup, latencies))
    finally:
        release_handler_state()
    return measured


def measure_retrieval(settings: Settings) -> RetrievalResults:
    """Part 4 on its own embedded database: load, index, look up, probe the filter, then the
    handler at the largest size, and what the index costs each insert."""
    from persona_rails.moderation.embedding import offline_embedding

    corpus = chinese_corpus(SEGMENTS, SEED + 4)
    rng = random.Random(SEED + 5)
    segment_texts = [
        text[start : start + SEGMENT_CHARS]
        for text in corpus
        for start in [rng.randrange(TEXT_CHARS - SEGMENT_CHARS + 1)]
    ]
    probe_texts = chinese_corpus(settings.probes, SEED + 6)
    planted_text = probe_texts[0]
    insert_vectors = [
        offline_embedding(text).as_pgvector() for text in chinese_corpus(settings.inserts, SEED + 10)
    ]
    results = []
    with embedded_database() as database:
        scale = ScaleDatabase(database.url)
        try:
            definition = scale.prepare(segment_texts)
            planted: dict[str, str] = {}
            with_index_s = without_index_s = math.nan
            for position, size in enumerate(settings.sizes):
                load_s = scale.load(size)
                if not planted:
                    planted = scale.plant(planted_text)
                index_s = scale.build_index(definition)
                if not position:
                    without_index_s = load_s + index_s
                    with_index_s = scale.insert_with_index_in_place(
                        definition, min(settings.compare_rows, size)
                    )
                    compare_rows = min(settings.compare_rows, size)
                table_mb, index_mb = scale.sizes_mb()
                kinds = measure_kinds(scale, probe_texts, settings.exact_probes)
                results.append(
                    SizeResult(
                        rows=scale.total_rows(),
                        added=size - (settings.sizes[position - 1] if position else 0),
                        insert_with_index=[],
                        insert_without_index=[],
                        heavy_rows=scale.heavy_rows(),
                        load_s=load_s,
                        index_s=index_s,
                        table_mb=table_mb,
                        index_mb=index_mb,
                        kinds=kinds,
                        probes=probe_filter(scale, planted_text, planted),
                    )
                )
                if size != settings.sizes[-1]:  # the last size's index serves the handler first
                    results[-1].insert_with_index, results[-1].insert_without_index = scale.insert_costs(
                        insert_vectors, settings.inserts
                    )
            handler = (
                measure_handler_at_scale(
                    scale, settings.handler_checks, max(10, settings.handler_checks // 10)
                )
                if settings.handler_checks
                else []
            )
            results[-1].insert_with_index, results[-1].insert_without_index = scale.insert_costs(
                insert_vectors, settings.inserts
            )
        finally:
            scale.close()
    return RetrievalResults(results, compare_rows, with_index_s, without_index_s, handler)
