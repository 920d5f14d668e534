-- Interception dialog: rules, sessions, per-turn records and analytics events.
-- Every table has row-level security; every policy is scoped to `(select auth.uid())`,
-- and every column a policy filters on is indexed (Supabase splinter lints).
-- Enumerations are text with CHECK constraints so they can grow without a type migration.

-- Rules are the user's own rows, written by the mobile app through Supabase.
CREATE TABLE public.rules (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  app_identifier text NOT NULL CHECK (char_length(app_identifier) BETWEEN 1 AND 255),
  app_display_name text NOT NULL CHECK (char_length(app_display_name) BETWEEN 1 AND 40),
  summary text NOT NULL CHECK (char_length(summary) BETWEEN 1 AND 200),
  daily_quota_minutes integer CHECK (daily_quota_minutes BETWEEN 0 AND 1440),
  -- Fill the persona templates' {{next_action}}, {{remaining_minutes}} and {{delay_minutes}}.
  -- next_action is a short verb phrase: it reads as "先完成…" and as "不如先…".
  next_action text NOT NULL DEFAULT '处理手头的任务' CHECK (char_length(next_action) BETWEEN 1 AND 20),
  remaining_minutes integer NOT NULL DEFAULT 30 CHECK (remaining_minutes BETWEEN 0 AND 1440),
  delay_minutes integer NOT NULL DEFAULT 10 CHECK (delay_minutes BETWEEN 1 AND 120),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX rules_user_id_idx ON public.rules (user_id);

CREATE TABLE public.intercept_sessions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  -- Sessions are analytics history: deleting a rule must not delete them.
  rule_id uuid REFERENCES public.rules (id) ON DELETE SET NULL,
  app_identifier text NOT NULL CHECK (char_length(app_identifier) BETWEEN 1 AND 255),
  app_display_name text NOT NULL CHECK (char_length(app_display_name) BETWEEN 1 AND 100),
  trigger text NOT NULL CHECK (trigger IN ('quota_exceeded', 'blocked_window', 'cooldown_active')),
  persona_key text NOT NULL CHECK (persona_key IN ('strict-father', 'rational-mentor', 'humor-coach')),
  persona_version integer NOT NULL CHECK (persona_version > 0),
  client_timestamp timestamptz NOT NULL,
  utc_offset_minutes smallint NOT NULL CHECK (utc_offset_minutes BETWEEN -720 AND 840),
  -- The user's local calendar day, from the server clock at the client's UTC offset.
  local_date date NOT NULL,
  client_streak integer CHECK (client_streak >= 0),
  client_override_count_today integer CHECK (client_override_count_today >= 0),
  state text NOT NULL DEFAULT 'awaiting_reason'
    CHECK (state IN ('awaiting_reason', 'awaiting_decision', 'closed')),
  evaluation_turns smallint NOT NULL DEFAULT 0 CHECK (evaluation_turns BETWEEN 0 AND 2),
  final_verdict text CHECK (final_verdict IN ('deny', 'delay', 'allow')),
  emergency boolean NOT NULL DEFAULT false,
  user_decision text CHECK (user_decision IN ('comply', 'override', 'emergency')),
  accepted_delay boolean,
  auto_dismissed boolean,
  emergency_reason text CHECK (char_length(emergency_reason) <= 500),
  start_fingerprint text NOT NULL,
  decision_fingerprint text,
  created_at timestamptz NOT NULL DEFAULT now(),
  closed_at timestamptz,
  CONSTRAINT intercept_sessions_closed_has_decision
    CHECK ((state = 'closed') = (user_decision IS NOT NULL AND closed_at IS NOT NULL)),
  CONSTRAINT intercept_sessions_verdict_after_turn
    CHECK ((evaluation_turns = 0) = (final_verdict IS NULL))
);
CREATE INDEX intercept_sessions_user_day_idx ON public.intercept_sessions (user_id, local_date);
CREATE INDEX intercept_sessions_user_created_idx ON public.intercept_sessions (user_id, created_at);
CREATE INDEX intercept_sessions_user_override_times_idx ON public.intercept_sessions (user_id, closed_at)
  WHERE user_decision = 'override';
CREATE INDEX intercept_sessions_rule_id_idx ON public.intercept_sessions (rule_id);

-- One row per evaluation turn: turn 1 is the reason, turn 2 the single appeal.
-- The unique (session_id, turn_no) and the turn_no CHECK are the appeal cap.
CREATE TABLE public.intercept_turns (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  session_id uuid NOT NULL REFERENCES public.intercept_sessions (id) ON DELETE CASCADE,
  user_id uuid NOT NULL DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  turn_no smallint NOT NULL CHECK (turn_no IN (1, 2)),
  reason_text text NOT NULL CHECK (char_length(reason_text) BETWEEN 10 AND 500),
  reason_category text NOT NULL
    CHECK (reason_category IN ('work', 'study', 'mental_break', 'emergency', 'other')),
  ai_verdict text NOT NULL CHECK (ai_verdict IN ('deny', 'delay', 'allow')),
  confidence numeric(4, 3) NOT NULL CHECK (confidence BETWEEN 0 AND 1),
  persona_response text NOT NULL CHECK (char_length(persona_response) BETWEEN 1 AND 60),
  user_decision text CHECK (user_decision IN ('comply', 'override', 'emergency')),
  appeal_used boolean NOT NULL,
  emergency boolean NOT NULL DEFAULT false,
  recommended_action text NOT NULL CHECK (recommended_action IN ('comply', 'accept_delay', 'unlock')),
  delay_minutes integer CHECK (delay_minutes BETWEEN 1 AND 120),
  justification text NOT NULL CHECK (char_length(justification) <= 600),
  source text NOT NULL CHECK (source IN ('llm', 'offline')),
  fallback_reason text,
  model text,
  latency_ms integer NOT NULL CHECK (latency_ms >= 0),
  override_count_today integer NOT NULL CHECK (override_count_today >= 0),
  streak integer NOT NULL CHECK (streak >= 0),
  text_fingerprint text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT intercept_turns_one_per_slot UNIQUE (session_id, turn_no),
  CONSTRAINT intercept_turns_appeal_is_second CHECK (appeal_used = (turn_no = 2)),
  CONSTRAINT intercept_turns_delay_has_minutes CHECK ((ai_verdict = 'delay') = (delay_minutes IS NOT NULL))
);
CREATE INDEX intercept_turns_user_id_idx ON public.intercept_turns (user_id);

CREATE TABLE public.analytics_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id uuid NOT NULL DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  session_id uuid REFERENCES public.intercept_sessions (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (name ~ '^[a-z_]+\.[a-z_]+$'),
  properties jsonb NOT NULL DEFAULT '{}'::jsonb,
  occurred_at timestamptz NOT NULL DEFAULT now(),
  -- A retried decision must not emit its event twice.
  CONSTRAINT analytics_events_once_per_session UNIQUE (session_id, name)
);
CREATE INDEX analytics_events_user_id_idx ON public.analytics_events (user_id, occurred_at);

-- Row-level security: each user sees and writes only their own rows.
ALTER TABLE public.rules ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.intercept_sessions ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.intercept_turns ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.analytics_events ENABLE ROW LEVEL SECURITY;

CREATE POLICY rules_select_own ON public.rules FOR SELECT TO authenticated
  USING ((SELECT auth.uid()) = user_id);
CREATE POLICY rules_insert_own ON public.rules FOR INSERT TO authenticated
  WITH CHECK ((SELECT auth.uid()) = user_id);
CREATE POLICY rules_update_own ON public.rules FOR UPDATE TO authenticated
  USING ((SELECT auth.uid()) = user_id) WITH CHECK ((SELECT auth.uid()) = user_id);
CREATE POLICY rules_delete_own ON public.rules FOR DELETE TO authenticated
  USING ((SELECT auth.uid()) = user_id);

CREATE POLICY intercept_sessions_select_own ON public.intercept_sessions FOR SELECT TO authenticated
  USING ((SELECT auth.uid()) = user_id);
CREATE POLICY intercept_sessions_insert_own ON public.intercept_sessions FOR INSERT TO authenticated
  WITH CHECK ((SELECT auth.uid()) = user_id);
CREATE POLICY intercept_sessions_update_own ON public.intercept_sessions FOR UPDATE TO authenticated
  USING ((SELECT auth.uid()) = user_id) WITH CHECK ((SELECT auth.uid()) = user_id);

CREATE POLICY intercept_turns_select_own ON public.intercept_turns FOR SELECT TO authenticated
  USING ((SELECT auth.uid()) = user_id);
-- Foreign keys bypass RLS, so the session's ownership is checked explicitly.
CREATE POLICY intercept_turns_insert_own ON public.intercept_turns FOR INSERT TO authenticated
  WITH CHECK (
    (SELECT auth.uid()) = user_id
    AND EXISTS (
      SELECT 1 FROM public.intercept_sessions s
      WHERE s.id = session_id AND s.user_id = (SELECT auth.uid())
    )
  );
CREATE POLICY intercept_turns_update_own ON public.intercept_turns FOR UPDATE TO authenticated
  USING ((SELECT auth.uid()) = user_id) WITH CHECK ((SELECT auth.uid()) = user_id);

CREATE POLICY analytics_events_select_own ON public.analytics_events FOR SELECT TO authenticated
  USING ((SELECT auth.uid()) = user_id);
CREATE POLICY analytics_events_insert_own ON public.analytics_events FOR INSERT TO authenticated
  WITH CHECK (
    (SELECT auth.uid()) = user_id
    AND (session_id IS NULL OR EXISTS (
      SELECT 1 FROM public.intercept_sessions s
      WHERE s.id = session_id AND s.user_id = (SELECT auth.uid())
    ))
  );

-- Least privilege on top of RLS: anonymous callers get nothing, users get what the app needs.
REVOKE ALL ON public.rules, public.intercept_sessions, public.intercept_turns, public.analytics_events
  FROM anon, authenticated;
GRANT SELECT, INSERT, UPDATE, DELETE ON public.rules TO authenticated;
GRANT SELECT, INSERT, UPDATE ON public.intercept_sessions, public.intercept_turns TO authenticated;
GRANT SELECT, INSERT ON public.analytics_events TO authenticated;
GRANT ALL ON public.rules, public.intercept_sessions, public.intercept_turns, public.analytics_events
  TO service_role;

-- Today's overrides and the current streak, from the caller's own sessions (RLS applies:
-- SECURITY INVOKER).
--
-- "Today" starts at local midnight in the user's home offset: the UTC offset of their very
-- first session. An offset chosen per request, or planted a day ahead, would let a client pick
-- where midnight falls and drop earlier overrides from the count; a home offset fixed once is
-- what a time zone is. Overrides count by when they happened (closed_at). The streak counts days
-- since the last override, or since the first session when there has never been one. Every
-- lookup is an index probe, so a user with years of sessions costs the same as a new one.
CREATE FUNCTION public.intercept_day_stats(p_offset_minutes integer, p_now timestamptz DEFAULT now())
RETURNS TABLE (override_count_today integer, streak integer)
LANGUAGE sql STABLE SECURITY INVOKER
SET search_path = ''
AS $$
  WITH first_session AS (
    SELECT s.created_at, s.utc_offset_minutes FROM public.intercept_sessions s
    WHERE s.user_id = (SELECT auth.uid())
    ORDER BY s.created_at, s.id
    LIMIT 1
  ),
  today AS (
    SELECT coalesce((SELECT utc_offset_minutes FROM first_session), p_offset_minutes) AS offset_minutes
  ),
  local AS (
    SELECT offset_minutes,
           ((p_now AT TIME ZONE 'UTC') + make_interval(mins => offset_minutes))::date AS local_today
    FROM today
  ),
  last_override AS (
    SELECT s.closed_at FROM public.intercept_sessions s
    WHERE s.user_id = (SELECT auth.uid()) AND s.user_decision = 'override' AND s.closed_at IS NOT NULL
    ORDER BY s.closed_at DESC
    LIMIT 1
  )
  SELECT
    (SELECT count(*) FROM public.intercept_sessions s
      WHERE s.user_id = (SELECT auth.uid()) AND s.user_decision = 'override'
        AND s.closed_at >= (l.local_today - make_interval(mins => l.offset_minutes)) AT TIME ZONE 'UTC'
    )::integer,
    least(365, coalesce(CASE
      WHEN (SELECT closed_at FROM last_override) IS NOT NULL
        THEN l.local_today
             - (((SELECT closed_at FROM last_override) AT TIME ZONE 'UTC') + make_interval(mins => l.offset_minutes))::date
      ELSE l.local_today
           - (((SELECT created_at FROM first_session) AT TIME ZONE 'UTC') + make_interval(mins => l.offset_minutes))::date + 1
    END, 0))::integer
  FROM local l
$$;
REVOKE ALL ON FUNCTION public.intercept_day_stats(integer, timestamptz) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.intercept_day_stats(integer, timestamptz) TO authenticated, service_role;
