-- "Today" starts at local midnight in the user's home offset: the UTC offset of their very first
-- session. An offset chosen per request, or planted a day ahead, would let a client pick where
-- midnight falls and drop earlier overrides from the count; a home offset fixed once is what a
-- time zone is. Overrides still count by when they happened (closed_at).

CREATE OR REPLACE FUNCTION public.intercept_day_stats(p_offset_minutes integer, p_now timestamptz DEFAULT now())
RETURNS TABLE (override_count_today integer, streak integer)
LANGUAGE sql STABLE SECURITY INVOKER
SET search_path = ''
AS $$
  WITH anchor AS (
    SELECT coalesce((
      SELECT s.utc_offset_minutes FROM public.intercept_sessions s
      WHERE s.user_id = (SELECT auth.uid())
      ORDER BY s.created_at, s.id
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
