"""The retrieval queries the scale benchmark runs (the service's SQL, the old subselect filter, an exact scan) and what each measurement keeps."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bench.moderation.handler import AtScaleHandler

if TYPE_CHECKING:
    pass

INDEX_NAME = "moderation_checks_embedding_idx"


@dataclass(frozen=True)
class QueryKind:
    name: str
    stage: int
    policy: str
    heavy: bool  # the heavy user, or light users in turn


QUERY_KINDS = (
    QueryKind("heavy user, stage 2, default", 2, "default", heavy=True),
    QueryKind("heavy user, stage 5, stage_aware", 5, "stage_aware", heavy=True),
    QueryKind("light users, stage 2, default", 2, "default", heavy=False),
)


# How the nearest-check statement is run. `service` is exactly what the service sends; `exact`
# the same with index scans off (every filtered row compared: the reference answer); `subselect`
# the statement as it was before b991c7d, the user filter read from `(SELECT auth.uid())`, whose
# value the planner cannot see (so it cannot tell a heavy user from a light one). RLS applies to all.
VARIANTS = ("service", "subselect", "exact")


SERVICE_USER_FILTER = "user_id = CAST(:user_id AS uuid)"


SUBSELECT_USER_FILTER = "user_id = (SELECT auth.uid())"


@dataclass
class VariantResult:
    ns: list[int] = field(default_factory=list)
    found: int = 0
    recall_hits: int = 0  # as similar as the exact answer
    recall_checked: int = 0
    violations: int = 0
    plan: str = ""
    uses_index: bool = False
    server_ms: float = math.nan


@dataclass
class KindResult:
    filter_rows: float  # rows that pass this caller's filter (light users: the average)
    variants: dict[str, VariantResult]


@dataclass
class SizeResult:
    rows: int
    added: int
    insert_with_index: list[int]
    insert_without_index: list[int]
    heavy_rows: int
    load_s: float
    index_s: float
    table_mb: float
    index_mb: float
    kinds: dict[str, KindResult]
    probes: list[list[str]]


@dataclass
class RetrievalResults:
    sizes: list[SizeResult]
    with_index_rows: int
    with_index_s: float
    without_index_s: float
    handler: list[AtScaleHandler]


def plan_label(plan: str) -> str:
    if f"Index Scan using {INDEX_NAME}" in plan:
        return "HNSW"
    if "Bitmap Heap Scan" in plan:
        return "bitmap + sort"
    return "btree + sort" if "Index Scan using" in plan else "other"
