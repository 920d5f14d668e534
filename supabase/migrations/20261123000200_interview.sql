-- The memoir interviewer (InterviewTurnFunction): sessions and their turns.
--
-- A session row holds the engine's state between turns (per-topic depth, escalations and facts,
-- the running loop, consent): bounded JSON, read and written once per turn. Each turn is written
-- together with the session's advance by one conditional UPDATE on `turn_count`, so concurrent
-- turns on one session are serialized by the database, never by process memory.
-- Narrators read their own rows; only the function writes them (see 20261122000300).

CREATE TABLE public.interview_sessions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  narrator_name text NOT NULL CHECK (char_length(narrator_name) BETWEEN 1 AND 60),
  language text NOT NULL CHECK (language IN ('en', 'zh')),
  locale text CHECK (locale ~ '^[a-z]{2}(-[A-Z]{2})?$'),
  topic_plan jsonb NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(topic_plan) = 'array'),
  sensitive_consent boolean NOT NULL DEFAULT false,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
  closed_reason text CHECK (closed_reason IN ('stop_request', 'acute_distress', 'self_harm')),
  -- Narrator turns taken so far; the opening turn is turn 0.
  turn_count integer NOT NULL DEFAULT 0 CHECK (turn_count >= 0),
  topic_id text NOT NULL CHECK (topic_id ~ '^[a-z0-9][a-z0-9_-]{0,63}$'),
  depth_level smallint NOT NULL DEFAULT 0 CHECK (depth_level BETWEEN 0 AND 3),
  engine_state jsonb NOT NULL,
  -- The interviewer's last line: the LLM's only context besides the narrator's answer.
  last_response_text text NOT NULL,
  config_version text NOT NULL CHECK (char_length(config_version) BETWEEN 1 AND 200),
  idempotency_key text CHECK (char_length(idempotency_key) BETWEEN 1 AND 200),
  start_fingerprint text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  closed_at timestamptz,
  CONSTRAINT interview_sessions_closed_has_reason
    CHECK ((status = 'closed') = (closed_reason IS NOT NULL AND closed_at IS NOT NULL)),
  CONSTRAINT interview_sessions_one_per_key UNIQUE (user_id, idempotency_key)
);
CREATE INDEX interview_sessions_user_created_idx ON public.interview_sessions (user_id, created_at);
CREATE INDEX interview_sessions_user_fingerprint_idx
  ON public.interview_sessions (user_id, start_fingerprint, created_at);

CREATE TABLE public.interview_turns (
  -- Also the id of the turn's decision record (kind interview.turn).
  id uuid PRIMARY KEY,
  session_id uuid NOT NULL REFERENCES public.interview_sessions (id) ON DELETE CASCADE,
  user_id uuid NOT NULL DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  turn_no integer NOT NULL CHECK (turn_no >= 0),
  user_text text CHECK (char_length(user_text) BETWEEN 1 AND 4000),
  request_fingerprint text,
  idempotency_key text CHECK (char_length(idempotency_key) BETWEEN 1 AND 200),
  -- The turn contract (spec: Turn Output Contract).
  topic_id text NOT NULL CHECK (topic_id ~ '^[a-z0-9][a-z0-9_-]{0,63}$'),
  persona_used text NOT NULL CHECK (persona_used IN
    ('EMPATHY_BASE', 'EMPATHY_EXPAND', 'PRECISION_NARROW', 'LOGIC_CLARIFY', 'SAFETY_FALLBACK')),
  conversation_phase text NOT NULL
    CHECK (conversation_phase IN ('warmup', 'narrative', 'depth', 'reflection', 'close')),
  depth_level_before smallint NOT NULL CHECK (depth_level_before BETWEEN 0 AND 3),
  depth_level_after smallint NOT NULL CHECK (depth_level_after BETWEEN 0 AND 3),
  tactic_used text NOT NULL CHECK (tactic_used ~ '^[a-z][a-z0-9_]{0,40}$'),
  loop_state text,
  safety_action text NOT NULL CHECK (safety_action IN ('none', 'deescalate', 'stop', 'redirect', 'override')),
  metrics jsonb NOT NULL,
  response_text text NOT NULL CHECK (char_length(response_text) BETWEEN 1 AND 2000),
  -- Telemetry (spec: Logging & Observability).
  signals jsonb,
  winning_rule text NOT NULL CHECK (winning_rule IN
    ('opening', 'safety_override', 'contradiction_resolution', 'high_emotion', 'vagueness', 'default')),
  depth_decision text NOT NULL CHECK (depth_decision IN ('increase', 'hold', 'decrease')),
  depth_reason text NOT NULL,
  violated_rule_ids text[] NOT NULL DEFAULT '{}',
  telemetry jsonb NOT NULL,
  source text NOT NULL CHECK (source IN ('llm', 'offline')),
  fallback_reason text,
  model text,
  latency_ms integer NOT NULL CHECK (latency_ms >= 0),
  config_version text NOT NULL CHECK (char_length(config_version) BETWEEN 1 AND 200),
  engine_version text NOT NULL CHECK (char_length(engine_version) BETWEEN 1 AND 100),
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT interview_turns_one_per_slot UNIQUE (session_id, turn_no),
  CONSTRAINT interview_turns_one_per_key UNIQUE (session_id, idempotency_key),
  CONSTRAINT interview_turns_opening_has_no_answer CHECK ((turn_no = 0) = (user_text IS NULL)),
  -- The depth governor's binding rules, held by the database as well as by the engine.
  CONSTRAINT interview_turns_depth_steps_by_one CHECK (depth_level_after <= depth_level_before + 1),
  CONSTRAINT interview_turns_no_increase_on_refusal CHECK (
    depth_level_after <= depth_level_before
    OR NOT coalesce((signals ->> 'refusal_or_discomfort')::boolean, false)
  ),
  CONSTRAINT interview_turns_decision_matches_levels CHECK (
    depth_decision = CASE
      WHEN depth_level_after > depth_level_before THEN 'increase'
      WHEN depth_level_after < depth_level_before THEN 'decrease'
      ELSE 'hold' END
  )
);
CREATE INDEX interview_turns_user_id_idx ON public.interview_turns (user_id, created_at);

ALTER TABLE public.interview_sessions ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.interview_turns ENABLE ROW LEVEL SECURITY;

CREATE POLICY interview_sessions_select_own ON public.interview_sessions FOR SELECT TO authenticated
  USING ((SELECT auth.uid()) = user_id);
CREATE POLICY interview_sessions_insert_own ON public.interview_sessions FOR INSERT TO persona_rails_function
  WITH CHECK ((SELECT auth.uid()) = user_id);
CREATE POLICY interview_sessions_update_own ON public.interview_sessions FOR UPDATE TO persona_rails_function
  USING ((SELECT auth.uid()) = user_id) WITH CHECK ((SELECT auth.uid()) = user_id);

CREATE POLICY interview_turns_select_own ON public.interview_turns FOR SELECT TO authenticated
  USING ((SELECT auth.uid()) = user_id);
-- Foreign keys bypass RLS, so the session's ownership is checked explicitly.
CREATE POLICY interview_turns_insert_own ON public.interview_turns FOR INSERT TO persona_rails_function
  WITH CHECK (
    (SELECT auth.uid()) = user_id
    AND EXISTS (
      SELECT 1 FROM public.interview_sessions s
      WHERE s.id = session_id AND s.user_id = (SELECT auth.uid())
    )
  );

REVOKE ALL ON public.interview_sessions, public.interview_turns FROM anon, authenticated;
GRANT SELECT ON public.interview_sessions, public.interview_turns TO authenticated;
GRANT INSERT, UPDATE ON public.interview_sessions TO persona_rails_function;
GRANT INSERT ON public.interview_turns TO persona_rails_function;
GRANT ALL ON public.interview_sessions, public.interview_turns TO service_role;
