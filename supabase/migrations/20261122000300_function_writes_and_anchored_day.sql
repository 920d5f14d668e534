-- 1. Only the functions write the dialog's history.
--
-- The mobile app holds the user's JWT and talks to PostgREST as `authenticated`. Had that role
-- kept INSERT/UPDATE on sessions, turns and events, a user could rewrite their own overrides
-- and win back an "allow" the server's counts refuse. The functions instead run as
-- `persona_rails_function`: a member of `authenticated` (so every read grant and policy still
-- applies, with the caller's JWT claims and auth.uid()) that alone holds the write grants.
-- PostgREST's `authenticator` is never granted it, so no API request can become it.

DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'persona_rails_function') THEN
    CREATE ROLE persona_rails_function NOLOGIN INHERIT;
  END IF;
END
$$;
GRANT authenticated TO persona_rails_function;
-- The functions connect as `postgres` (Supabase's pooler) and switch roles per request.
GRANT persona_rails_function TO postgres;

REVOKE INSERT, UPDATE, DELETE ON public.intercept_sessions, public.intercept_turns, public.analytics_events
  FROM authenticated;
GRANT INSERT, UPDATE ON public.intercept_sessions, public.intercept_turns TO persona_rails_function;
GRANT INSERT ON public.analytics_events TO persona_rails_function;

ALTER POLICY intercept_sessions_insert_own ON public.intercept_sessions TO persona_rails_function;
ALTER POLICY intercept_sessions_update_own ON public.intercept_sessions TO persona_rails_function;
ALTER POLICY intercept_turns_insert_own ON public.intercept_turns TO persona_rails_function;
ALTER POLICY intercept_turns_update_own ON public.intercept_turns TO persona_rails_function;
ALTER POLICY analytics_events_insert_own ON public.analytics_events TO persona_rails_function;

-- 2. "Today" is anchored, so the client's UTC offset cannot reset the override count.
--
-- The user's local day runs from local midnight at the offset of their first session in the
-- last 24 hours; a later request with another offset cannot move that midnight. Overrides count
-- by when they happened (closed_at), not by the date each session was filed under.

DROP FUNCTION public.intercept_day_stats(date);

CREATE FUNCTION public.intercept_day_stats(p_offset_minutes integer, p_now timestamptz DEFAULT now())
RETURNS TABLE (override_count_today integer, streak integer)
LANGUAGE sql STABLE SECURITY INVOKER
SET search_path = ''
AS $$
  WITH anchor AS (
    SELECT coalesce((
      SELECT s.utc_offset_minutes FROM public.intercept_sessions s
      WHERE s.user_id = (SELECT auth.uid()) AND s.created_at > p_now - interval '24 hours'
      ORDER BY s.created_at
      LIMIT 1
    ), p_offset_minutes) AS offset_minutes
  ),
  today AS (
    SELECT offset_minutes,
           ((p_now AT TIME ZONE 'UTC') + make_interval(mins => offset_minutes))::date AS local_today
    FROM anchor
  ),
  history AS (
    SELECT max(s.closed_at) FILTER (WHERE s.user_decision = 'override') AS last_override,
           min(s.created_at) AS first_session
    FROM public.intercept_sessions s
    WHERE s.user_id = (SELECT auth.uid())
  )
  SELECT
    (SELECT count(*) FROM public.intercept_sessions s
      WHERE s.user_id = (SELECT auth.uid()) AND s.user_decision = 'override'
        AND s.closed_at >= (t.local_today - make_interval(mins => t.offset_minutes)) AT TIME ZONE 'UTC'
    )::integer,
    least(365, coalesce(CASE
      WHEN h.last_override IS NOT NULL
        THEN t.local_today - ((h.last_override AT TIME ZONE 'UTC') + make_interval(mins => t.offset_minutes))::date
      ELSE t.local_today - ((h.first_session AT TIME ZONE 'UTC') + make_interval(mins => t.offset_minutes))::date + 1
    END, 0))::integer
  FROM today t, history h
$$;
REVOKE ALL ON FUNCTION public.intercept_day_stats(integer, timestamptz) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.intercept_day_stats(integer, timestamptz)
  TO authenticated, persona_rails_function, service_role;

CREATE INDEX intercept_sessions_user_created_idx ON public.intercept_sessions (user_id, created_at);

-- 3. A default next_action that reads well in every persona's deny template
-- ("先完成{{next_action}}", "不如先{{next_action}}"): a short verb phrase, not "完成…" again.
ALTER TABLE public.rules ALTER COLUMN next_action SET DEFAULT '处理手头的任务';
