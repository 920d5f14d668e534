"""4. Retrieval at scale: the heavy user's lookups at each size, the filter proven by planted rows,
and the report (growth exponent, HNSW in the plan, no row outside the filter)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from bench.harness.handler import embedded_database
from bench.harness.report import Report, ms, percentile, target
from bench.moderation.corpus import GROWTH_EXPONENT_TARGET, SEED, Settings, chinese_corpus
from bench.moderation.scale_database import INDEX_NAME, ScaleDatabase, current_version, previous_version

# The lookup the target is judged on: the heavy user (80 % of the rows), stage 2, policy default.
STAGE, POLICY = 2, "default"


@dataclass
class SizeResult:
    rows: int
    filter_rows: int  # the heavy user's rows that pass its stage/policy-version filter
    ns: list[int]
    violations: int  # returned rows of another user, stage or policy version
    probes_failed: list[str]
    plan: str

    @property
    def uses_index(self) -> bool:
        return f"Index Scan using {INDEX_NAME}" in self.plan


def lookups(scale: ScaleDatabase, vectors: list[str]) -> tuple[list[int], int]:
    """Each probe through the service's recall transaction after ten untimed ones (the index's
    upper layers, the btree): nanoseconds, and how many returned rows break the filter."""
    version = current_version(POLICY)
    for vector in vectors[:10]:
        scale.recall(scale.heavy, vector, STAGE, version)
    ns, returned = [], []
    for vector in vectors:
        elapsed, nearest = scale.recall(scale.heavy, vector, STAGE, version)
        ns.append(elapsed)
        returned += [str(row["id"]) for row in nearest]
    described = scale.describe(returned)
    return ns, sum(described[i] != (scale.heavy, STAGE, version) for i in returned)


def probe_filter(scale: ScaleDatabase, vector: str, planted: dict[str, str]) -> list[str]:
    """The planted text asked for under each filter: the answer must be the planted row that
    matches that filter (or, where none was planted, a loaded row, never a planted one), and must
    match the filter. The asks that failed."""
    default = current_version("default")
    asks = (
        ("heavy user, stage 2, default", scale.heavy, 2, default, "match"),
        ("heavy user, stage 3", scale.heavy, 3, default, "other stage"),
        ("heavy user, stage_aware", scale.heavy, 2, current_version("stage_aware"), "other policy"),
        ("heavy user, previous lexicon", scale.heavy, 2, previous_version("default"), "other policy version"),
        ("light user 1", scale.light[0], 2, default, "other user"),
        ("heavy user, stage 4 (nothing planted)", scale.heavy, 4, default, None),
    )
    failed = []
    for label, user, stage, version, expected in asks:
        nearest = scale.recall(user, vector, stage, version)[1]
        found = str(nearest[0]["id"]) if nearest else ""
        honoured = bool(found) and scale.describe([found]).get(found) == (user, stage, version)
        if not honoured or (found != planted[expected] if expected else found in planted.values()):
            failed.append(label)
    return failed


def measure_retrieval(settings: Settings) -> list[SizeResult]:
    """On its own embedded database: load to each size, plant the rows (once), build the index,
    then time the lookups and probe the filter."""
    from persona_rails.moderation.embedding import offline_embedding

    texts = chinese_corpus(settings.probes, SEED + 6)
    vectors = [offline_embedding(text).as_pgvector() for text in texts]
    results = []
    with embedded_database() as database:
        scale = ScaleDatabase(database.url)
        try:
            definition = scale.prepare()
            planted: dict[str, str] = {}
            for size in settings.sizes:
                scale.load(size)
                planted = planted or scale.plant(texts[0])
                scale.build_index(definition)
                ns, violations = lookups(scale, vectors)
                plan = scale.recall(scale.heavy, vectors[0], STAGE, current_version(POLICY), explain=True)[1]
                results.append(
                    SizeResult(
                        rows=size + len(planted),
                        filter_rows=scale.filter_rows(STAGE, current_version(POLICY)),
                        ns=ns,
                        violations=violations,
                        probes_failed=probe_filter(scale, vectors[0], planted),
                        plan="\n".join(str(next(iter(line.values()))) for line in plan),
                    )
                )
        finally:
            scale.close()
    return results


def retrieval_target(results: list[SizeResult]) -> list[str]:
    """HNSW at every size, the filter honoured, and p50 ~ rows^k with k below the target."""
    first, last = results[0], results[-1]
    k = math.log(percentile(last.ns, 50) / percentile(first.ns, 50)) / math.log(last.rows / first.rows)
    honoured = all(not size.violations and not size.probes_failed for size in results)
    hnsw = all(size.uses_index for size in results)
    summary = (
        f"heavy user p50 {ms(percentile(first.ns, 50))} → {ms(percentile(last.ns, 50))} ms for {first.rows:,} → "
        f"{last.rows:,} rows (growth exponent {k:.2f}); HNSW used: {'yes' if hnsw else 'no'}; "
        f"filter honoured: {'yes' if honoured else 'no'}"
    )
    passed = honoured and hnsw and k < GROWTH_EXPONENT_TARGET
    return target("retrieval sub-linear with HNSW, filter honoured", summary, passed)


def retrieval_report(results: list[SizeResult]) -> Report:
    rows = []
    for size in results:
        latency = [ms(percentile(size.ns, q)) for q in (50, 99)]
        plan = "HNSW" if size.uses_index else "not HNSW"
        failed = "".join(f"; FAIL: {ask}" for ask in size.probes_failed)
        planted = f"{6 - len(size.probes_failed)}/6 pass{failed}"
        counts = [f"{size.rows:,}", f"{size.filter_rows:,}"]
        rows.append([*counts, *latency, plan, str(size.violations), planted])
    return Report(
        title="Moderation: retrieval lookup vs stored checks (the service's recall transaction)",
        headers=["rows", "rows the filter keeps", "p50 ms", "p99 ms", "plan", "violations", "planted"],
        rows=rows,
        notes=[
            "The heavy user (80 % of the rows), stage 2, policy default, the current lexicon version; "
            '`violations`: returned rows outside that filter. Method: docs/benchmarks.md, "Moderation".',
        ],
    )


@dataclass
class Plan(Report):
    """An EXPLAIN output as a fenced block after its title (the vector literal elided)."""

    text: str = ""

    def markdown(self) -> str:
        shown = re.sub(r"'\[[-0-9.,e]+\]'", "'[256 numbers]'", self.text)
        return f"#### {self.title}\n\n```text\n{shown}\n```\n"


def plan_section(results: list[SizeResult]) -> Plan:
    last = results[-1]
    title = f"EXPLAIN (ANALYZE, BUFFERS): {last.rows:,} rows, heavy user, stage 2, default, the first probe"
    return Plan(title=title, headers=[], rows=[], text=last.plan)
