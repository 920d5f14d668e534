-- Standardized-patient encounters (SpsEncounterFunction): runtime state, turns, validations.
--
-- The runtime state (spec §2: SPSRuntimeState) is ephemeral: it lives in its encounter's row
-- until `expires_at` (sliding, renewed by every turn), and a turn on an expired encounter is
-- refused. Each turn advances the encounter by one conditional UPDATE on `turn_index`, so two
-- concurrent turns are serialized by the database. The state of expired encounters is erased
-- (set to NULL) by the next encounter its owner starts; the transcript and the decision
-- records stay, owner-readable, for QA and replay.
-- Learners read their own rows; only the function writes them (see 20261122000300).

CREATE TABLE public.sps_encounters (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  -- The catalog id, or the inline scenario's own id; the snapshot is what the encounter runs.
  scenario_id text NOT NULL CHECK (scenario_id ~ '^[a-z][a-z0-9_-]{0,63}$'),
  scenario_source text NOT NULL CHECK (scenario_source IN ('catalog', 'inline')),
  scenario_hash text NOT NULL CHECK (scenario_hash ~ '^[0-9a-f]{64}$'),
  scenario jsonb NOT NULL CHECK (jsonb_typeof(scenario) = 'object'),
  persona_id text NOT NULL CHECK (persona_id ~ '^[a-z][a-z0-9_-]{0,63}$'),
  persona_source text NOT NULL CHECK (persona_source IN ('catalog', 'inline')),
  persona_hash text NOT NULL CHECK (persona_hash ~ '^[0-9a-f]{64}$'),
  persona jsonb NOT NULL CHECK (jsonb_typeof(persona) = 'object'),
  seed bigint NOT NULL CHECK (seed BETWEEN 1 AND 4294967295),
  -- NULL once the encounter has expired and its state was erased.
  state jsonb CHECK (jsonb_typeof(state) = 'object'),
  -- The next utterance's index (learner and patient utterances each take one).
  turn_index integer NOT NULL DEFAULT 0 CHECK (turn_index >= 0 AND turn_index % 2 = 0),
  expires_at timestamptz NOT NULL,
  config_version text NOT NULL CHECK (char_length(config_version) BETWEEN 1 AND 300),
  idempotency_key text CHECK (char_length(idempotency_key) BETWEEN 1 AND 200),
  start_fingerprint text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT sps_encounters_one_per_key UNIQUE (user_id, idempotency_key)
);
CREATE INDEX sps_encounters_user_created_idx ON public.sps_encounters (user_id, created_at);
CREATE INDEX sps_encounters_user_fingerprint_idx ON public.sps_encounters (user_id, start_fingerprint, created_at);
-- Finds the owner's expired encounters that still hold state.
CREATE INDEX sps_encounters_user_expiry_idx ON public.sps_encounters (user_id, expires_at)
  WHERE state IS NOT NULL;

CREATE TABLE public.sps_turns (
  -- Also the id of the turn's decision record (kind sps.patient_turn).
  id uuid PRIMARY KEY,
  encounter_id uuid NOT NULL REFERENCES public.sps_encounters (id) ON DELETE CASCADE,
  user_id uuid NOT NULL DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  learner_index integer NOT NULL CHECK (learner_index >= 0 AND learner_index % 2 = 0),
  patient_index integer NOT NULL,
  learner_text text NOT NULL CHECK (char_length(learner_text) BETWEEN 1 AND 2000),
  patient_text text NOT NULL CHECK (char_length(patient_text) BETWEEN 1 AND 4000),
  kind text NOT NULL CHECK (kind IN ('refusal', 'dob_challenge', 'identity', 'misreading', 'resolved',
    'answer', 'decline', 'opening', 'narrative', 'clarification', 'acknowledgement', 'uncertain')),
  meta jsonb NOT NULL CHECK (jsonb_typeof(meta) = 'object'),
  -- The runtime state right after this turn: what a retry of it answers with.
  state_after jsonb NOT NULL CHECK (jsonb_typeof(state_after) = 'object'),
  source text NOT NULL CHECK (source IN ('llm', 'offline')),
  fallback_reason text,
  model text,
  latency_ms integer NOT NULL CHECK (latency_ms >= 0),
  request_fingerprint text NOT NULL,
  idempotency_key text CHECK (char_length(idempotency_key) BETWEEN 1 AND 200),
  config_version text NOT NULL CHECK (char_length(config_version) BETWEEN 1 AND 300),
  engine_version text NOT NULL CHECK (char_length(engine_version) BETWEEN 1 AND 100),
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT sps_turns_patient_follows_learner CHECK (patient_index = learner_index + 1),
  CONSTRAINT sps_turns_one_per_slot UNIQUE (encounter_id, learner_index),
  CONSTRAINT sps_turns_one_per_key UNIQUE (encounter_id, idempotency_key)
);
CREATE INDEX sps_turns_user_id_idx ON public.sps_turns (user_id, created_at);

-- A transcript validation, kept only when the caller asks (`store: true`).
CREATE TABLE public.sps_validations (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  scenario_id text NOT NULL CHECK (scenario_id ~ '^[a-z][a-z0-9_-]{0,63}$'),
  scenario_hash text NOT NULL CHECK (scenario_hash ~ '^[0-9a-f]{64}$'),
  persona_id text NOT NULL CHECK (persona_id ~ '^[a-z][a-z0-9_-]{0,63}$'),
  persona_hash text NOT NULL CHECK (persona_hash ~ '^[0-9a-f]{64}$'),
  transcript_hash text NOT NULL CHECK (transcript_hash ~ '^[0-9a-f]{64}$'),
  turns integer NOT NULL CHECK (turns >= 0),
  errors integer NOT NULL CHECK (errors >= 0),
  warnings integer NOT NULL CHECK (warnings >= 0),
  info integer NOT NULL CHECK (info >= 0),
  result jsonb NOT NULL CHECK (jsonb_typeof(result) = 'object'),
  config_version text NOT NULL CHECK (char_length(config_version) BETWEEN 1 AND 300),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sps_validations_user_created_idx ON public.sps_validations (user_id, created_at);

ALTER TABLE public.sps_encounters ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.sps_turns ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.sps_validations ENABLE ROW LEVEL SECURITY;

CREATE POLICY sps_encounters_select_own ON public.sps_encounters FOR SELECT TO authenticated
  USING ((SELECT auth.uid()) = user_id);
CREATE POLICY sps_encounters_insert_own ON public.sps_encounters FOR INSERT TO persona_rails_function
  WITH CHECK ((SELECT auth.uid()) = user_id);
CREATE POLICY sps_encounters_update_own ON public.sps_encounters FOR UPDATE TO persona_rails_function
  USING ((SELECT auth.uid()) = user_id) WITH CHECK ((SELECT auth.uid()) = user_id);

CREATE POLICY sps_turns_select_own ON public.sps_turns FOR SELECT TO authenticated
  USING ((SELECT auth.uid()) = user_id);
-- Foreign keys bypass RLS, so the encounter's ownership is checked explicitly.
CREATE POLICY sps_turns_insert_own ON public.sps_turns FOR INSERT TO persona_rails_function
  WITH CHECK (
    (SELECT auth.uid()) = user_id
    AND EXISTS (
      SELECT 1 FROM public.sps_encounters e
      WHERE e.id = encounter_id AND e.user_id = (SELECT auth.uid())
    )
  );

CREATE POLICY sps_validations_select_own ON public.sps_validations FOR SELECT TO authenticated
  USING ((SELECT auth.uid()) = user_id);
CREATE POLICY sps_validations_insert_own ON public.sps_validations FOR INSERT TO persona_rails_function
  WITH CHECK ((SELECT auth.uid()) = user_id);

REVOKE ALL ON public.sps_encounters, public.sps_turns, public.sps_validations FROM anon, authenticated;
-- A learner reads their encounters and transcripts, but not the case's answer key: the scenario
-- and persona snapshots (every fact, the hidden agenda), the runtime state and each turn's meta
-- (which agenda item a question triggered) stay with the function and the platform's backend.
GRANT SELECT (id, user_id, scenario_id, scenario_source, scenario_hash, persona_id, persona_source,
  persona_hash, seed, turn_index, expires_at, config_version, created_at, updated_at)
  ON public.sps_encounters TO authenticated;
GRANT SELECT (id, encounter_id, user_id, learner_index, patient_index, learner_text, patient_text, kind,
  source, fallback_reason, model, latency_ms, config_version, engine_version, created_at)
  ON public.sps_turns TO authenticated;
GRANT SELECT ON public.sps_validations TO authenticated;
GRANT SELECT ON public.sps_encounters, public.sps_turns TO persona_rails_function;
GRANT INSERT, UPDATE ON public.sps_encounters TO persona_rails_function;
GRANT INSERT ON public.sps_turns, public.sps_validations TO persona_rails_function;
GRANT ALL ON public.sps_encounters, public.sps_turns, public.sps_validations TO service_role;
