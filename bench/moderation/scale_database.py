"""4. Retrieval at scale: the bulk-loaded database of stored checks, and the service's own recall
transaction run against it as a user."""

from __future__ import annotations

import json
import random
import time
import uuid
from typing import Any

from bench.moderation.corpus import SEED, TEXT_CHARS, chinese_corpus

INDEX_NAME = "moderation_checks_embedding_idx"
LIGHT_USERS = 199
PREVIOUS_LEXICON_VERSION = "2026.10.1+000000000000"
SEGMENTS = 2000
SEGMENT_CHARS = 10
SETUP_TIMEOUT = 900


def lexicon_version() -> str:
    from persona_rails.moderation.lexicon import lexicon_artifact

    return lexicon_artifact().version


def current_version(policy: str) -> str:
    """What the service stores as policy_version (service.policy_version)."""
    return f"{policy}@{lexicon_version()}"


def previous_version(policy: str) -> str:
    return f"{policy}@{PREVIOUS_LEXICON_VERSION}"


# One statement generates stored checks :first..:last. 80 % are one heavy user's (so the index
# matters), the rest spread over the light users; stages 1-5 in shares 15/30/30/15/10 %; policy
# stage_aware 30 %; a quarter under the previous lexicon version. Each embedding is the normalized
# sum of five random 10-character pieces of corpus texts as the offline embedder counts them, so
# the stored vectors live where real checks' do.
BULK_INSERT = """
WITH drawn AS MATERIALIZED (
  SELECT g, random() AS who, random() AS stage_draw, random() AS policy_draw, random() AS version_draw,
         random() AS score_draw, floor(random() * CAST(:light_users AS int))::int AS light,
         ARRAY(SELECT floor(random() * CAST(:segments AS int))::int + 0 * g
               FROM generate_series(1, 5)) AS picks
  FROM generate_series(CAST(:first AS int), CAST(:last AS int)) AS g
), shaped AS (
  SELECT d.*,
         CASE WHEN stage_draw < 0.15 THEN 1 WHEN stage_draw < 0.45 THEN 2 WHEN stage_draw < 0.75 THEN 3
              WHEN stage_draw < 0.9 THEN 4 ELSE 5 END AS stage,
         CASE WHEN policy_draw < 0.3 THEN 'stage_aware' ELSE 'default' END AS policy,
         round((0.2 + 0.8 * score_draw)::numeric, 4)::double precision AS score
  FROM drawn d
)
INSERT INTO public.moderation_checks
  (id, user_id, text_hash, stage, policy, policy_version, embedder, embedding,
   rule_score, score, label, final, created_at)
SELECT gen_random_uuid(),
       CASE WHEN s.who < 0.8 THEN CAST(:heavy AS uuid) ELSE (CAST(:light_ids AS uuid[]))[1 + s.light] END,
       encode(sha256(convert_to('bench-' || s.g, 'UTF8')), 'hex'),
       s.stage, s.policy,
       s.policy || '@' || CASE WHEN s.version_draw < 0.25 THEN CAST(:previous_version AS text)
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

        self.loader = Database(url, timeout=SETUP_TIMEOUT)
        self.reader = Database(url)
        self.heavy = str(uuid.uuid4())
        self.light = [str(uuid.uuid4()) for _ in range(LIGHT_USERS)]
        self.loaded = 0

    def close(self) -> None:
        self.loader.close()
        self.reader.close()

    def prepare(self) -> str:
        """The users, the segment vectors (pieces of corpus texts, before normalization so that
        they add up), and the HNSW index dropped (rebuilt after each load); its definition."""
        from persona_rails.moderation.embedding import ngram_counts

        rng = random.Random(SEED + 5)
        segments = [
            "[" + ",".join(map(str, ngram_counts(text[start : start + SEGMENT_CHARS]))) + "]"
            for text in chinese_corpus(SEGMENTS, SEED + 4)
            for start in [rng.randrange(TEXT_CHARS - SEGMENT_CHARS + 1)]
        ]
        with self.loader.as_owner() as tx:
            tx.execute(
                """
                INSERT INTO auth.users (id, email)
                SELECT CAST(u AS uuid), u || '@bench.test' FROM json_array_elements_text(CAST(:ids AS json)) u
                """,
                ids=json.dumps([self.heavy, *self.light]),
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
            definition = tx.one("SELECT pg_get_indexdef(CAST(:name AS regclass)) AS d", name=INDEX_NAME)
            assert definition is not None
            tx.execute(f"DROP INDEX public.{INDEX_NAME}")
        return str(definition["d"])

    def load(self, target: int) -> None:
        """Generate rows up to `target` in one INSERT ... SELECT as the owner, without the HNSW
        index (building it afterwards is faster than inserting into it)."""
        from persona_rails.moderation.embedding import OFFLINE_EMBEDDER

        with self.loader.as_owner() as tx:
            tx.execute(f"DROP INDEX IF EXISTS public.{INDEX_NAME}")
            tx.execute("SELECT setseed(CAST(:seed AS float8))", seed=(self.loaded % 1000) / 1000 + 0.0001)
            tx.execute(
                BULK_INSERT,
                first=self.loaded + 1,
                last=target,
                light_users=LIGHT_USERS,
                segments=SEGMENTS,
                heavy=self.heavy,
                light_ids="{" + ",".join(self.light) + "}",
                previous_version=PREVIOUS_LEXICON_VERSION,
                current_version=lexicon_version(),
                embedder=OFFLINE_EMBEDDER,
            )
        self.loaded = target

    def build_index(self, definition: str) -> None:
        """The migration's HNSW index, built over the loaded rows; then ANALYZE."""
        with self.loader.as_owner() as tx:
            tx.execute("SET LOCAL maintenance_work_mem = '1GB'")
            tx.execute(definition)
        with self.loader.as_owner() as tx:
            tx.execute("ANALYZE public.moderation_checks")

    def plant(self, text: str) -> dict[str, str]:
        """Rows with exactly `text`'s embedding, each failing one part of the heavy user's
        stage-2/default filter but one; their ids by what they fail."""
        from persona_rails.moderation.embedding import OFFLINE_EMBEDDER, offline_embedding

        planted = {
            "match": (self.heavy, 2, current_version("default")),
            "other stage": (self.heavy, 3, current_version("default")),
            "other policy version": (self.heavy, 2, previous_version("default")),
            "other policy": (self.heavy, 2, current_version("stage_aware")),
            "other user": (self.light[0], 2, current_version("default")),
        }
        ids = {name: str(uuid.uuid4()) for name in planted}
        with self.loader.as_owner() as tx:
            for name, (user, stage, version) in planted.items():
                tx.execute(
                    """
                    INSERT INTO public.moderation_checks
                      (id, user_id, text_hash, stage, policy, policy_version, embedder, embedding,
                       rule_score, score, label, final)
                    VALUES (CAST(:id AS uuid), CAST(:user AS uuid), encode(sha256(convert_to(CAST(:id AS uuid)::text, 'UTF8')), 'hex'),
                            :stage, split_part(:version, '@', 1), :version, :embedder,
                            CAST(:vector AS extensions.vector), 0.5, 0.5, 'warn', 'warn')
                    """,
                    id=ids[name],
                    user=user,
                    stage=stage,
                    version=version,
                    embedder=OFFLINE_EMBEDDER,
                    vector=offline_embedding(text).as_pgvector(),
                )
        return ids

    def recall(
        self, user: str, vector: str, stage: int, version: str, *, explain: bool = False
    ) -> tuple[int, list[dict[str, Any]]]:
        """The service's recall transaction (repository.nearest_check, then the cached LLM score:
        one round trip) as the user, so RLS applies: nanoseconds around `run_as_user`, and the
        nearest check's rows; with `explain`, the lines of its EXPLAIN (ANALYZE, BUFFERS) instead."""
        from persona_rails.moderation import repository
        from persona_rails.moderation.embedding import OFFLINE_EMBEDDER

        *setup, (sql, params) = repository.nearest_check(
            vector, user_id=user, stage=stage, policy_version=version, embedder=OFFLINE_EMBEDDER
        )
        nearest = ("EXPLAIN (ANALYZE, BUFFERS) " if explain else "") + sql, params
        cached = repository.cached_llm_score("0" * 64, stage=stage, policy_version=version)
        claims = {"sub": user, "role": "authenticated", "aud": "authenticated"}
        started = time.perf_counter_ns()
        *_, rows, _cached = self.reader.run_as_user(claims, *setup, nearest, cached)
        return time.perf_counter_ns() - started, rows

    def filter_rows(self, stage: int, version: str) -> int:
        """How many of the heavy user's rows its filter keeps at `stage` and `version`."""
        with self.loader.as_owner() as tx:
            row = tx.one(
                """
                SELECT count(*) AS n FROM public.moderation_checks
                WHERE user_id = CAST(:user AS uuid) AND stage = :stage AND policy_version = :version
                """,
                user=self.heavy,
                stage=stage,
                version=version,
            )
        assert row is not None
        return int(row["n"])

    def describe(self, ids: list[str]) -> dict[str, tuple[str, int, str]]:
        """Each row's (user_id, stage, policy_version), by id, read as the owner."""
        with self.loader.as_owner() as tx:
            found = tx.rows(
                """
                SELECT id::text AS id, user_id::text AS user_id, stage, policy_version
                FROM public.moderation_checks WHERE id = ANY (CAST(:ids AS uuid[]))
                """,
                ids="{" + ",".join(ids) + "}",
            )
        return {row["id"]: (row["user_id"], row["stage"], row["policy_version"]) for row in found}
