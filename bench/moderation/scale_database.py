"""4. Retrieval at scale: the bulk-loaded database of stored checks and its queries."""

from __future__ import annotations

import json
import time
import uuid
from typing import TYPE_CHECKING, Any

from bench.moderation.queries import INDEX_NAME, SERVICE_USER_FILTER, SUBSELECT_USER_FILTER

if TYPE_CHECKING:
    pass


# --- 4. retrieval at scale ----------------------------------------------------------------------------

HEAVY_SHARE = 0.8  # of all stored checks: one heavy user's; the rest spread over the light users
LIGHT_USERS = 199
# Stage 1..5 and policy shares of the stored checks; a quarter were made under the previous lexicon.
STAGE_SHARES = (0.15, 0.30, 0.30, 0.15, 0.10)
STAGE_AWARE_SHARE = 0.3
PREVIOUS_VERSION_SHARE = 0.25
PREVIOUS_LEXICON_VERSION = "2026.10.1+000000000000"
SEGMENTS = 2000
SEGMENT_CHARS = 10
SEGMENTS_PER_ROW = 5
SETUP_TIMEOUT = 900


def lexicon_version() -> str:
    from persona_rails.moderation.lexicon import lexicon_artifact

    return lexicon_artifact().version


def current_version(policy: str) -> str:
    """What the service stores as policy_version (service.policy_version)."""
    return f"{policy}@{lexicon_version()}"


def previous_version(policy: str) -> str:
    return f"{policy}@{PREVIOUS_LEXICON_VERSION}"


def ngram_counts(text: str) -> str:
    """The offline embedder's vector before normalization (so that vectors of pieces add up)."""
    from persona_rails.moderation.embedding import ngram_counts as counts

    vector = counts(text)
    return "[" + ",".join(map(str, vector)) + "]"


# One statement generates `:n` stored checks: each embedding is the normalized sum of five random
# 10-character pieces of corpus texts, as embedded by the offline embedder (so the vectors live
# where real checks' do); user, stage, policy and lexicon version are drawn per row.
BULK_INSERT = """
WITH drawn AS MATERIALIZED (
  SELECT g, random() AS who, random() AS stage_draw, random() AS policy_draw, random() AS version_draw,
         random() AS score_draw, floor(random() * CAST(:light_users AS int))::int AS light,
         ARRAY(SELECT floor(random() * CAST(:segments AS int))::int + 0 * g
               FROM generate_series(1, CAST(:per_row AS int))) AS picks
  FROM generate_series(CAST(:first AS int), CAST(:last AS int)) AS g
), shaped AS (
  SELECT d.*,
         CASE WHEN stage_draw < CAST(:s1 AS float8) THEN 1 WHEN stage_draw < CAST(:s2 AS float8) THEN 2
              WHEN stage_draw < CAST(:s3 AS float8) THEN 3
              WHEN stage_draw < CAST(:s4 AS float8) THEN 4 ELSE 5 END AS stage,
         CASE WHEN policy_draw < CAST(:stage_aware AS float8) THEN 'stage_aware' ELSE 'default' END AS policy,
         round((0.2 + 0.8 * score_draw)::numeric, 4)::double precision AS score
  FROM drawn d
)
INSERT INTO public.moderation_checks
  (id, user_id, text_hash, stage, policy, policy_version, embedder, embedding,
   rule_score, score, label, final, created_at)
SELECT gen_random_uuid(),
       CASE WHEN s.who < CAST(:heavy_share AS float8) THEN CAST(:heavy AS uuid)
            ELSE (CAST(:light_ids AS uuid[]))[1 + s.light] END,
       encode(sha256(convert_to('bench-' || s.g, 'UTF8')), 'hex'),
       s.stage, s.policy,
       s.policy || '@' || CASE WHEN s.version_draw < CAST(:previous AS float8) THEN CAST(:previous_version AS text)
                 ELSE CAST(:current_version AS text) END,
       CAST(:embedder AS text), e.vector, s.score, s.score, l.label, l.label,
       now() - make_interval(secs => s.g)
FROM shaped s
CROSS JOIN LATERAL (
  SELECT extensions.l2_normalize(extensions.sum(seg.v)) AS vector
  FROM bench.segments seg WHERE seg.i = ANY (s.picks)
) e
CROSS JOIN LATERAL (
  SELECT CASE WHEN s.score >= 0.8 THEN 'reject' WHEN s.score >= 0.6 THEN 'rewrite'
              WHEN s.score >= 0.4 THEN 'warn' ELSE 'pass' END AS label
) l
"""


class ScaleDatabase:
    """The benchmark's side of the retrieval database: the owner for loading (long timeout) and
    a connection that runs the service's own statements as a user."""

    def __init__(self, url: str) -> None:
        from persona_rails.db import Database

        self.url = url
        self.loader = Database(url, timeout=SETUP_TIMEOUT)
        self.reader = Database(url)
        self.heavy = str(uuid.uuid4())
        self.light = [str(uuid.uuid4()) for _ in range(LIGHT_USERS)]
        self.loaded = 0

    def close(self) -> None:
        self.loader.close()
        self.reader.close()

    def claims(self, user_id: str) -> dict[str, Any]:
        return {"sub": user_id, "role": "authenticated", "aud": "authenticated"}

    def prepare(self, segment_texts: list[str]) -> str:
        """Users, the segment vectors, and the HNSW index dropped (rebuilt after each load)."""
        ids = [self.heavy, *self.light]
        segments = [ngram_counts(text) for text in segment_texts]
        with self.loader.as_owner() as tx:
            tx.execute(
                """
                INSERT INTO auth.users (id, email)
                SELECT CAST(u AS uuid), u || '@bench.test' FROM json_array_elements_text(CAST(:ids AS json)) u
                """,
                ids=json.dumps(ids),
            )
            tx.execute("CREATE SCHEMA bench")
            tx.execute("CREATE TABLE bench.segments (i int PRIMARY KEY, v extensions.vector(256) NOT NULL)")
            tx.execute(
                """
                INSERT INTO bench.segments
                SELECT (o - 1)::int, CAST(v AS extensions.vector)
                FROM json_array_elements_text(CAST(:vectors AS json)) WITH ORDINALITY AS t(v, o)
                """,
                vectors=json.dumps(segments),
            )
            definition = tx.one(
                "SELECT pg_get_indexdef(CAST(:name AS regclass)) AS d", name=f"public.{INDEX_NAME}"
            )
            assert definition is not None
            tx.execute(f"DROP INDEX public.{INDEX_NAME}")
        return str(definition["d"])

    def load(self, target: int) -> float:
        """Generate rows up to `target` in one INSERT ... SELECT as the owner; seconds taken."""
        from persona_rails.moderation.embedding import OFFLINE_EMBEDDER

        cumulative = [sum(STAGE_SHARES[: i + 1]) for i in range(4)]
        with self.loader.as_owner() as tx:
            tx.execute(f"DROP INDEX IF EXISTS public.{INDEX_NAME}")
        started = time.perf_counter()
        with self.loader.as_owner() as tx:
            tx.execute("SELECT setseed(CAST(:seed AS float8))", seed=(self.loaded % 1000) / 1000 + 0.0001)
            tx.execute(
                BULK_INSERT,
                first=self.loaded + 1,
                last=target,
                light_users=LIGHT_USERS,
                segments=SEGMENTS,
                per_row=SEGMENTS_PER_ROW,
                s1=cumulative[0],
                s2=cumulative[1],
                s3=cumulative[2],
                s4=cumulative[3],
                stage_aware=STAGE_AWARE_SHARE,
                heavy_share=HEAVY_SHARE,
                heavy=self.heavy,
                light_ids="{" + ",".join(self.light) + "}",
                previous=PREVIOUS_VERSION_SHARE,
                previous_version=PREVIOUS_LEXICON_VERSION,
                current_version=lexicon_version(),
                embedder=OFFLINE_EMBEDDER,
            )
        self.loaded = target
        return time.perf_counter() - started

    def build_index(self, definition: str) -> float:
        """The migration's HNSW index, built over the loaded rows; then ANALYZE."""
        started = time.perf_counter()
        with self.loader.as_owner() as tx:
            tx.execute(f"DROP INDEX IF EXISTS public.{INDEX_NAME}")
            tx.execute("SET LOCAL maintenance_work_mem = '1GB'")
            tx.execute(definition)
        elapsed = time.perf_counter() - started
        with self.loader.as_owner() as tx:
            tx.execute("ANALYZE public.moderation_checks")
        return elapsed

    def insert_with_index_in_place(self, definition: str, rows: int) -> float:
        """For comparison: copy `rows` loaded rows into a fresh table that already has the index."""
        index = definition.replace(INDEX_NAME, "with_index_embedding_idx").replace(
            "public.moderation_checks", "bench.with_index"
        )
        with self.loader.as_owner() as tx:
            tx.execute("CREATE TABLE bench.with_index (LIKE public.moderation_checks)")
            tx.execute(index)
        started = time.perf_counter()
        with self.loader.as_owner() as tx:
            tx.execute(
                "INSERT INTO bench.with_index SELECT * FROM public.moderation_checks ORDER BY id LIMIT :n",
                n=rows,
            )
        elapsed = time.perf_counter() - started
        with self.loader.as_owner() as tx:
            tx.execute("DROP TABLE bench.with_index")
        return elapsed

    def plant(self, text: str) -> dict[str, str]:
        """Rows with exactly `text`'s embedding, each failing one part of the heavy user's
        stage-2/default filter but one: retrieval must return the one that matches."""
        from persona_rails.moderation.embedding import OFFLINE_EMBEDDER, offline_embedding

        vector = offline_embedding(text).as_pgvector()
        planted = {
            "match": (self.heavy, 2, current_version("default")),
            "other stage": (self.heavy, 3, current_version("default")),
            "other policy version": (self.heavy, 2, previous_version("default")),
            "other policy": (self.heavy, 2, current_version("stage_aware")),
            "other user": (self.light[0], 2, current_version("default")),
        }
        ids = {}
        with self.loader.as_owner() as tx:
            for name, (user, stage, version) in planted.items():
                ids[name] = str(uuid.uuid4())
                tx.execute(
                    """
                    INSERT INTO public.moderation_checks
                      (id, user_id, text_hash, stage, policy, policy_version, embedder, embedding,
                       rule_score, score, label, final)
                    VALUES (CAST(:id AS uuid), CAST(:user AS uuid), :hash, :stage, :policy, :version,
                            :embedder, CAST(:vector AS extensions.vector), 0.5, 0.5, 'warn', 'warn')
                    """,
                    id=ids[name],
                    user=user,
                    hash=uuid.uuid4().hex * 2,
                    stage=stage,
                    policy=version.split("@", 1)[0],
                    version=version,
                    embedder=OFFLINE_EMBEDDER,
                    vector=vector,
                )
        return ids

    def statements(
        self, user: str, vector: str, stage: int, version: str, variant: str, *, explain: bool = False
    ) -> list[tuple[str, dict[str, Any]]] | None:
        """The service's recall transaction (repository.nearest_check + cached_llm_score) in one
        variant; None when the variant does not apply (the service's SQL no longer has that filter)."""
        from persona_rails.moderation import repository
        from persona_rails.moderation.embedding import OFFLINE_EMBEDDER

        *setup, (sql, params) = repository.nearest_check(
            vector, user_id=user, stage=stage, policy_version=version, embedder=OFFLINE_EMBEDDER
        )
        if variant == "subselect":
            if SERVICE_USER_FILTER not in sql:
                return None
            sql = sql.replace(SERVICE_USER_FILTER, SUBSELECT_USER_FILTER)
            params = {name: value for name, value in params.items() if name != "user_id"}
        if explain:
            sql = "EXPLAIN (ANALYZE, BUFFERS) " + sql
        statements = [*setup, (sql, params)]
        if variant == "exact":
            statements.insert(0, ("SELECT set_config('enable_indexscan', 'off', true)", {}))
        if not explain:
            statements.append(repository.cached_llm_score("0" * 64, stage=stage, policy_version=version))
        return statements

    def recall(
        self, user: str, vector: str, stage: int, version: str, variant: str = "service"
    ) -> tuple[int, dict[str, Any] | None] | None:
        """One recall transaction as the user (RLS applies), timed around `run_as_user`."""
        statements = self.statements(user, vector, stage, version, variant)
        if statements is None:
            return None
        started = time.perf_counter_ns()
        *_, nearest, _cached = self.reader.run_as_user(self.claims(user), *statements)
        elapsed = time.perf_counter_ns() - started
        return elapsed, (nearest[0] if nearest else None)

    def explain(self, user: str, vector: str, stage: int, version: str, variant: str) -> str:
        statements = self.statements(user, vector, stage, version, variant, explain=True)
        if statements is None:
            return ""
        *_, plan = self.reader.run_as_user(self.claims(user), *statements)
        return "\n".join(str(next(iter(row.values()))) for row in plan)

    def filter_rows(self, users: list[str], stage: int, version: str) -> float:
        """How many rows pass the filter, per user (the average over `users`)."""
        from persona_rails.moderation.embedding import OFFLINE_EMBEDDER

        with self.loader.as_owner() as tx:
            row = tx.one(
                """
                SELECT count(*) AS n FROM public.moderation_checks
                WHERE user_id = ANY (CAST(:users AS uuid[])) AND stage = :stage
                  AND policy_version = :version AND embedder = :embedder
                """,
                users="{" + ",".join(users) + "}",
                stage=stage,
                version=version,
                embedder=OFFLINE_EMBEDDER,
            )
        assert row is not None
        return int(row["n"]) / len(users)

    def describe(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        with self.loader.as_owner() as tx:
            found = tx.rows(
                """
                SELECT id::text AS id, user_id::text AS user_id, stage, policy_version, embedder
                FROM public.moderation_checks WHERE id = ANY (CAST(:ids AS uuid[]))
                """,
                ids="{" + ",".join(ids) + "}",
            )
        return {row["id"]: row for row in found}

    def sizes_mb(self) -> tuple[float, float]:
        with self.loader.as_owner() as tx:
            row = tx.one(
                """
                SELECT pg_total_relation_size('public.moderation_checks') AS total,
                       pg_relation_size(CAST(:index AS regclass)) AS index
                """,
                index=f"public.{INDEX_NAME}",
            )
        assert row is not None
        return int(row["total"]) / 2**20, int(row["index"]) / 2**20

    def total_rows(self) -> int:
        with self.loader.as_owner() as tx:
            row = tx.one("SELECT count(*) AS n FROM public.moderation_checks")
        assert row is not None
        return int(row["n"])

    def insert_costs(self, vectors: list[str], count: int) -> tuple[list[int], list[int]]:
        """Single-row inserts of the heavy user's checks (one transaction each, as the owner), timed
        with the HNSW index and again after dropping it: what the index adds to a check's write.
        Leaves the index dropped (the next load rebuilds it)."""
        from persona_rails.moderation.embedding import OFFLINE_EMBEDDER

        def insert_all() -> list[int]:
            samples = []
            for index in range(count):
                started = time.perf_counter_ns()
                with self.reader.as_owner() as tx:
                    tx.execute(
                        """
                        INSERT INTO public.moderation_checks
                          (id, user_id, text_hash, stage, policy, policy_version, embedder, embedding,
                           rule_score, score, label, final)
                        VALUES (gen_random_uuid(), CAST(:user AS uuid),
                                encode(sha256(convert_to(gen_random_uuid()::text, 'UTF8')), 'hex'), 2,
                                'default', :version, :embedder, CAST(:vector AS extensions.vector),
                                0.5, 0.5, 'warn', 'warn')
                        """,
                        user=self.heavy,
                        version=current_version("default"),
                        embedder=OFFLINE_EMBEDDER,
                        vector=vectors[index % len(vectors)],
                    )
                samples.append(time.perf_counter_ns() - started)
            return samples

        with_index = insert_all()
        with self.loader.as_owner() as tx:
            tx.execute(f"DROP INDEX IF EXISTS public.{INDEX_NAME}")
        return with_index, insert_all()

    def heavy_rows(self) -> int:
        with self.loader.as_owner() as tx:
            row = tx.one(
                "SELECT count(*) AS n FROM public.moderation_checks WHERE user_id = CAST(:u AS uuid)",
                u=self.heavy,
            )
        assert row is not None
        return int(row["n"])
