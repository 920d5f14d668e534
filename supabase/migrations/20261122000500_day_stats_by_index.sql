-- intercept_day_stats without scanning a user's whole history: the home offset and the first
-- session come from one index probe, the last override and today's count from a partial index
-- on override times. A user with years of sessions costs the same as a new one.

DROP INDEX IF EXISTS public.intercept_sessions_user_overrides_idx;
CREATE INDEX intercept_sessions_user_override_times_idx ON public.intercept_sessions (user_id, closed_at)
  WHERE user_decision = 'override';

CREATE OR REPLACE FUNCTION public.intercept_day_stats(p_offset_minutes integer, p_now timestamptz DEFAULT now())
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
