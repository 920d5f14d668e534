"""Moderation, part 4: the retrieval tables (lookups against the number of stored checks, and the filter probes)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from bench.harness.report import Report, ms, percentile, verdict
from bench.moderation.corpus import (
    GROWTH_EXPONENT_TARGET,
)
from bench.moderation.queries import QUERY_KINDS, VARIANTS, RetrievalResults, plan_label
from bench.moderation.scale_database import (
    HEAVY_SHARE,
    LIGHT_USERS,
    PREVIOUS_VERSION_SHARE,
    SEGMENT_CHARS,
    SEGMENTS_PER_ROW,
    SERVICE_USER_FILTER,
    STAGE_AWARE_SHARE,
    STAGE_SHARES,
    SUBSELECT_USER_FILTER,
)

if TYPE_CHECKING:
    pass


VARIANT_LABELS = {
    "service": "service SQL",
    "subselect": "`(SELECT auth.uid())` filter, before b991c7d",
    "exact": "exact (index scans off)",
}


def _p50_exponent(retrieval: RetrievalResults, kind: str, variant: str) -> float:
    first, last = retrieval.sizes[0], retrieval.sizes[-1]
    small, large = first.kinds[kind].variants[variant].ns, last.kinds[kind].variants[variant].ns
    if not small or not large:
        return math.nan
    return math.log(percentile(large, 50) / percentile(small, 50)) / math.log(last.rows / first.rows)


def retrieval_report(retrieval: RetrievalResults) -> tuple[Report, bool, str]:
    first, last = retrieval.sizes[0], retrieval.sizes[-1]
    rows = []
    for size in retrieval.sizes:
        for name, kind in size.kinds.items():
            for variant, result in kind.variants.items():
                if not result.ns:
                    continue
                rows.append(
                    [
                        f"{size.rows:,}",
                        name,
                        f"{kind.filter_rows:,.0f}",
                        VARIANT_LABELS[variant],
                        ms(percentile(result.ns, 50)),
                        ms(percentile(result.ns, 99)),
                        plan_label(result.plan),
                        f"{result.server_ms:.2f}",
                        f"{result.found}/{len(result.ns)}",
                        f"{result.recall_hits}/{result.recall_checked}" if variant != "exact" else "",
                        str(result.violations),
                    ]
                )
    heavy = QUERY_KINDS[0].name
    exponents = {variant: _p50_exponent(retrieval, heavy, variant) for variant in VARIANTS}
    p50 = {
        variant: [percentile(size.kinds[heavy].variants[variant].ns, 50) for size in (first, last)]
        for variant in VARIANTS
        if first.kinds[heavy].variants[variant].ns
    }
    uses_index = all(size.kinds[heavy].variants["service"].uses_index for size in retrieval.sizes)
    honoured = all(
        result.violations == 0
        for size in retrieval.sizes
        for kind in size.kinds.values()
        for result in kind.variants.values()
    ) and all(probe[-1] == "PASS" for size in retrieval.sizes for probe in size.probes)
    passed = uses_index and honoured and exponents["service"] < GROWTH_EXPONENT_TARGET
    summary = (
        f"{heavy}, service SQL p50 {ms(p50['service'][0])} → {ms(p50['service'][1])} ms for {first.rows:,} → "
        f"{last.rows:,} rows (growth exponent {exponents['service']:.2f}); HNSW used: {'yes' if uses_index else 'no'}; "
        f"filter honoured: {'yes' if honoured else 'no'}"
    )
    if "subselect" in p50:
        before_index = all(size.kinds[heavy].variants["subselect"].uses_index for size in retrieval.sizes)
        summary += (
            f". Before b991c7d (user filter `(SELECT auth.uid())`): {ms(p50['subselect'][0])} → "
            f"{ms(p50['subselect'][1])} ms (exponent {exponents['subselect']:.2f}, HNSW used: "
            f"{'yes' if before_index else 'no'})"
        )
    loads = "; ".join(
        f"to {size.rows:,} rows: load {size.load_s:.1f} s (+{size.added:,}), HNSW build {size.index_s:.1f} s (table with its indexes "
        f"{size.table_mb:.0f} MB, HNSW {size.index_mb:.0f} MB)"
        for size in retrieval.sizes
    )
    notes = [
        f"Rows: {HEAVY_SHARE:.0%} belong to one heavy user, the rest spread evenly over {LIGHT_USERS} light users; "
        f"stages 1–5 in shares {', '.join(f'{share:.0%}' for share in STAGE_SHARES)}; policy stage_aware "
        f"{STAGE_AWARE_SHARE:.0%}, default the rest; {PREVIOUS_VERSION_SHARE:.0%} under a previous lexicon version "
        "(another policy_version); one embedder. Each embedding is the offline embedder's n-gram vector of "
        f"{SEGMENTS_PER_ROW} random {SEGMENT_CHARS}-character pieces of corpus texts, summed and normalized in SQL, so "
        "stored vectors live where real checks' do; probes are fresh 50-character corpus texts embedded by the "
        "service's embedder. `rows the filter keeps` counts the caller's rows at that stage, policy version and "
        "embedder (light users: the average).",
        f"Loading as the owner, one `INSERT ... SELECT` generating the rows in SQL, the HNSW index (the migration's "
        f"definition) dropped before and rebuilt after each load with `maintenance_work_mem` 1 GB and the default 2 "
        f"parallel workers, then ANALYZE: {loads}. For comparison, {retrieval.with_index_rows:,} rows inserted into a "
        f"table that already has the index took {retrieval.with_index_s:.1f} s, against "
        f"{retrieval.without_index_s:.1f} s to load {first.added:,} and then build the index.",
        "Timed: the service's recall transaction as `Database.run_as_user` sends it (role and JWT claims, "
        "`hnsw.iterative_scan = relaxed_order`, the nearest check, the cached LLM score, COMMIT: one round trip over "
        "the unix socket), as the user, so RLS applies. Variants alternate probe by probe. `service SQL` is the "
        f"product's statement unchanged (`{SERVICE_USER_FILTER}`, the caller's id bound); the `before b991c7d` "
        f"rows replace that filter with `{SUBSELECT_USER_FILTER}`, as the service had it; `exact` is the service SQL "
        "with `enable_indexscan = off` (every filtered row compared), run for the first probes only. `plan` and `server ms` come from "
        "EXPLAIN (ANALYZE, BUFFERS) of the first probe; `recall@1` = as similar as the exact answer; `filter "
        "violations` = returned rows of another user, stage or policy version.",
        "The write's side: a single-row insert into public.moderation_checks (own transaction, as the owner) "
        "p50 with the HNSW index / without it: "
        + "; ".join(
            f"{size.rows:,} rows: {ms(percentile(size.insert_with_index, 50))} / "
            f"{ms(percentile(size.insert_without_index, 50))} ms"
            for size in retrieval.sizes
            if size.insert_with_index
        )
        + f" ({len(first.insert_with_index)} inserts each).",
        f"Target: the heavy user's lookup through the service SQL uses the HNSW index at every size, no row breaks "
        f"the filter, and its p50 grows sub-linearly (p50 ~ rows^k, k < {GROWTH_EXPONENT_TARGET:g}): {summary}: "
        f"{verdict(passed)}.",
    ]
    report = Report(
        title="Moderation: retrieval lookup vs stored decisions (the service's recall transaction)",
        headers=[
            "rows",
            "caller and filter",
            "rows the filter keeps",
            "query",
            "p50 ms",
            "p99 ms",
            "plan",
            "server ms",
            "found",
            "recall@1",
            "filter violations",
        ],
        rows=rows,
        notes=notes,
        passed=passed,
    )
    return report, passed, summary


def probe_report(retrieval: RetrievalResults) -> Report:
    rows = [[f"{size.rows:,}", *probe] for size in retrieval.sizes for probe in size.probes]
    return Report(
        title="Moderation: the filter, proven with planted rows",
        headers=["rows", "query", "row returned", "owner", "stage, policy_version", "similarity", "verdict"],
        rows=rows,
        notes=[
            "Five rows carry exactly the probe text's embedding: one matching the heavy user's stage-2/default/current "
            "filter, and one each at another stage, another policy, the previous lexicon version and another user. "
            "Each query must return the planted row that matches its own filter (similarity 1) and, where nothing "
            "is planted, a loaded row of the right stage and policy version, never a planted one.",
        ],
        passed=all(probe[-1] == "PASS" for size in retrieval.sizes for probe in size.probes),
    )
