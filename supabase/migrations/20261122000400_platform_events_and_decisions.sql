-- The platform's two cross-function tables: analytics events about any subject, and the
-- decision records that let every stored decision be recomputed (`rails replay`).

-- 1. analytics_events stops referencing intercept_sessions: an event is about a subject
--    (type, id) of any function, and is recorded at most once per (subject, name).
ALTER TABLE public.analytics_events
  ADD COLUMN subject_type text,
  ADD COLUMN subject_id uuid;
UPDATE public.analytics_events
SET subject_type = 'intercept_session', subject_id = session_id
WHERE session_id IS NOT NULL;
-- Events that were about no session are about themselves: still unique, still kept.
UPDATE public.analytics_events
SET subject_type = 'event', subject_id = md5('analytics_event:' || id::text)::uuid
WHERE session_id IS NULL;
ALTER TABLE public.analytics_events
  ALTER COLUMN subject_type SET NOT NULL,
  ALTER COLUMN subject_id SET NOT NULL,
  ADD CONSTRAINT analytics_events_subject_type_format CHECK (subject_type ~ '^[a-z][a-z_]{0,62}$'),
  ADD CONSTRAINT analytics_events_once_per_subject UNIQUE (subject_type, subject_id, name);
DROP POLICY analytics_events_insert_own ON public.analytics_events;
ALTER TABLE public.analytics_events
  DROP CONSTRAINT analytics_events_once_per_session,
  DROP COLUMN session_id;
CREATE POLICY analytics_events_insert_own ON public.analytics_events FOR INSERT TO persona_rails_function
  WITH CHECK ((SELECT auth.uid()) = user_id);

-- 2. Decision records: what each decision was computed from, so it can be recomputed offline.
--    Inputs may hold the user's private text: like every row here, readable by its owner only.
CREATE TABLE public.decision_records (
  -- The id of the decided thing when it has one (an intercept turn's id), so one id finds both.
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  function_name text NOT NULL CHECK (function_name ~ '^[A-Z][A-Za-z0-9]*Function$'),
  kind text NOT NULL CHECK (kind ~ '^[a-z_]+\.[a-z_]+$'),
  subject_type text NOT NULL CHECK (subject_type ~ '^[a-z][a-z_]{0,62}$'),
  subject_id uuid NOT NULL,
  engine_version text NOT NULL CHECK (char_length(engine_version) BETWEEN 1 AND 100),
  config_version text NOT NULL CHECK (char_length(config_version) BETWEEN 1 AND 200),
  inputs jsonb NOT NULL,
  output jsonb NOT NULL,
  source text NOT NULL CHECK (source ~ '^[a-z_]+$'),
  model text,
  -- The LLM's reply exactly as received, when the decision used one.
  raw_reply text,
  -- The random seed, when the decision drew one.
  seed bigint,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT decision_records_llm_has_reply CHECK ((source = 'llm') = (raw_reply IS NOT NULL)),
  CONSTRAINT decision_records_once_per_subject UNIQUE (subject_type, subject_id, kind)
);
CREATE INDEX decision_records_user_id_idx ON public.decision_records (user_id, created_at);

ALTER TABLE public.decision_records ENABLE ROW LEVEL SECURITY;
CREATE POLICY decision_records_select_own ON public.decision_records FOR SELECT TO authenticated
  USING ((SELECT auth.uid()) = user_id);
CREATE POLICY decision_records_insert_own ON public.decision_records FOR INSERT TO persona_rails_function
  WITH CHECK ((SELECT auth.uid()) = user_id);
REVOKE ALL ON public.decision_records FROM anon, authenticated;
GRANT SELECT ON public.decision_records TO authenticated;
GRANT INSERT ON public.decision_records TO persona_rails_function;
GRANT ALL ON public.decision_records TO service_role;

-- 3. Which tables the mobile app may write through PostgREST. Every other table is written by
--    the functions only; tests/infra's schema lints hold every future table to this.
COMMENT ON TABLE public.rules IS 'app-writes: the user''s own rules, written by the mobile app through PostgREST';
