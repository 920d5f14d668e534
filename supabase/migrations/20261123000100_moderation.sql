-- Moderation (ModerationCheckFunction and library mode in every function): each check is a
-- decision record plus a row here that retrieval can find again by embedding, and the
-- third-party LLM's scores are cached per text, stage and policy version.
--
-- pgvector lives in the `extensions` schema, as Supabase installs it.
CREATE SCHEMA IF NOT EXISTS extensions;
CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA extensions;
GRANT USAGE ON SCHEMA extensions TO anon, authenticated, service_role;

CREATE TABLE public.moderation_checks (
  -- Also the id of its decision record (kind moderation.intimacy).
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  text_hash text NOT NULL CHECK (text_hash ~ '^[0-9a-f]{64}$'),
  stage smallint NOT NULL CHECK (stage BETWEEN 1 AND 5),
  policy text NOT NULL CHECK (policy ~ '^[a-z_]{1,40}$'),
  policy_version text NOT NULL CHECK (char_length(policy_version) BETWEEN 1 AND 200),
  -- Which embedder made the vector: vectors of different embedders are never compared.
  embedder text NOT NULL CHECK (char_length(embedder) BETWEEN 1 AND 100),
  embedding extensions.vector(256) NOT NULL,
  rule_score double precision CHECK (rule_score BETWEEN 0 AND 1),
  local_score double precision CHECK (local_score BETWEEN 0 AND 1),
  third_party_score double precision CHECK (third_party_score BETWEEN 0 AND 1),
  score double precision NOT NULL CHECK (score BETWEEN 0 AND 1),
  label text NOT NULL CHECK (label IN ('pass', 'warn', 'rewrite', 'reject')),
  final text NOT NULL CHECK (final IN ('pass', 'warn', 'rewrite', 'reject')),
  -- A check that reused an earlier decision names it and how similar the texts were.
  reused_from uuid REFERENCES public.moderation_checks (id) ON DELETE SET NULL,
  similarity double precision CHECK (similarity BETWEEN -1 AND 1),
  created_at timestamptz NOT NULL DEFAULT now()
);
-- Retrieval looks among the caller's own checks at the same stage, policy version and embedder.
CREATE INDEX moderation_checks_user_id_idx
  ON public.moderation_checks (user_id, stage, policy_version, embedder);
CREATE INDEX moderation_checks_embedding_idx
  ON public.moderation_checks USING hnsw (embedding extensions.vector_cosine_ops);

ALTER TABLE public.moderation_checks ENABLE ROW LEVEL SECURITY;
CREATE POLICY moderation_checks_select_own ON public.moderation_checks FOR SELECT TO authenticated
  USING ((SELECT auth.uid()) = user_id);
CREATE POLICY moderation_checks_insert_own ON public.moderation_checks FOR INSERT TO persona_rails_function
  WITH CHECK ((SELECT auth.uid()) = user_id);
REVOKE ALL ON public.moderation_checks FROM anon, authenticated;
GRANT SELECT ON public.moderation_checks TO authenticated;
GRANT INSERT ON public.moderation_checks TO persona_rails_function;
GRANT ALL ON public.moderation_checks TO service_role;

CREATE TABLE public.moderation_llm_scores (
  user_id uuid NOT NULL DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  text_hash text NOT NULL CHECK (text_hash ~ '^[0-9a-f]{64}$'),
  stage smallint NOT NULL CHECK (stage BETWEEN 1 AND 5),
  policy_version text NOT NULL CHECK (char_length(policy_version) BETWEEN 1 AND 200),
  score double precision NOT NULL CHECK (score BETWEEN 0 AND 1),
  model text NOT NULL,
  raw_reply text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, text_hash, stage, policy_version)
);

ALTER TABLE public.moderation_llm_scores ENABLE ROW LEVEL SECURITY;
CREATE POLICY moderation_llm_scores_select_own ON public.moderation_llm_scores FOR SELECT TO authenticated
  USING ((SELECT auth.uid()) = user_id);
CREATE POLICY moderation_llm_scores_insert_own ON public.moderation_llm_scores
  FOR INSERT TO persona_rails_function
  WITH CHECK ((SELECT auth.uid()) = user_id);
REVOKE ALL ON public.moderation_llm_scores FROM anon, authenticated;
GRANT SELECT ON public.moderation_llm_scores TO authenticated;
GRANT INSERT ON public.moderation_llm_scores TO persona_rails_function;
GRANT ALL ON public.moderation_llm_scores TO service_role;
