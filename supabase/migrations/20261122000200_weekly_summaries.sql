-- Weekly excuse summaries: one row per user and ISO week (Monday to Sunday in the user's local
-- time), written only by WeeklySummaryFunction (service_role) and read by the app under RLS.

CREATE TABLE public.weekly_summaries (
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  -- The Monday that starts the ISO week, as a local calendar date.
  week_start date NOT NULL CHECK (extract(isodow FROM week_start) = 1),
  iso_week text NOT NULL CHECK (iso_week ~ '^\d{4}-W\d{2}$'),
  utc_offset_minutes smallint NOT NULL CHECK (utc_offset_minutes BETWEEN -720 AND 840),
  sessions integer NOT NULL CHECK (sessions > 0),
  unfinished_sessions integer NOT NULL CHECK (unfinished_sessions >= 0),
  category_counts jsonb NOT NULL,
  top_category text CHECK (top_category IN ('work', 'study', 'mental_break', 'emergency', 'other')),
  verdict_counts jsonb NOT NULL,
  overrides integer NOT NULL CHECK (overrides >= 0),
  emergencies integer NOT NULL CHECK (emergencies >= 0),
  appeals integer NOT NULL CHECK (appeals >= 0),
  appeal_rate numeric(5, 4) CHECK (appeal_rate BETWEEN 0 AND 1),
  compliance_rate numeric(5, 4) CHECK (compliance_rate BETWEEN 0 AND 1),
  persona_compliance jsonb NOT NULL,
  response_latency_p50_ms integer CHECK (response_latency_p50_ms >= 0),
  response_latency_p90_ms integer CHECK (response_latency_p90_ms >= 0),
  trend jsonb NOT NULL,
  insight text NOT NULL CHECK (char_length(insight) BETWEEN 1 AND 60),
  insight_persona_key text NOT NULL,
  insight_source text NOT NULL CHECK (insight_source IN ('template', 'llm')),
  generated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, week_start)
);

ALTER TABLE public.weekly_summaries ENABLE ROW LEVEL SECURITY;
CREATE POLICY weekly_summaries_select_own ON public.weekly_summaries FOR SELECT TO authenticated
  USING ((SELECT auth.uid()) = user_id);
-- No insert, update or delete policy: only service_role (which bypasses RLS) writes summaries.
REVOKE ALL ON public.weekly_summaries FROM anon, authenticated;
GRANT SELECT ON public.weekly_summaries TO authenticated;
GRANT ALL ON public.weekly_summaries TO service_role;

-- Finding a week's users is a range scan on the local date.
CREATE INDEX intercept_sessions_local_date_idx ON public.intercept_sessions (local_date, user_id);

-- Aggregates for a batch of (user, week) pairs, in one set-based pass over the sessions and
-- turns of that week and the week before (for the trend). Returns one row per pair that has at
-- least one session in its week. SECURITY INVOKER: only service_role can see every user's rows.
CREATE FUNCTION public.weekly_aggregates(p_user_ids uuid[], p_week_starts date[])
RETURNS TABLE (
  user_id uuid,
  week_start date,
  utc_offset_minutes smallint,
  sessions integer,
  unfinished_sessions integer,
  overrides integer,
  emergencies integer,
  appeals integer,
  evaluated_sessions integer,
  closed_sessions integer,
  complied_sessions integer,
  category_counts jsonb,
  verdict_counts jsonb,
  persona_stats jsonb,
  response_latency_p50_ms integer,
  response_latency_p90_ms integer,
  previous_sessions integer,
  previous_overrides integer,
  previous_closed_sessions integer,
  previous_complied_sessions integer,
  previous_category_counts jsonb
)
LANGUAGE sql STABLE SECURITY INVOKER
SET search_path = ''
AS $$
  WITH pairs AS (
    SELECT p.user_id, p.week_start FROM unnest(p_user_ids, p_week_starts) AS p (user_id, week_start)
  ),
  sessions AS (
    SELECT p.user_id, p.week_start, s.id, s.persona_key, s.state, s.user_decision, s.emergency,
           s.evaluation_turns, s.utc_offset_minutes, s.created_at, s.closed_at,
           s.local_date >= p.week_start AS this_week
    FROM pairs p
    JOIN public.intercept_sessions s
      ON s.user_id = p.user_id AND s.local_date >= p.week_start - 7 AND s.local_date < p.week_start + 7
  ),
  totals AS (
    SELECT user_id, week_start,
      (array_agg(utc_offset_minutes ORDER BY created_at DESC) FILTER (WHERE this_week))[1] AS utc_offset_minutes,
      count(*) FILTER (WHERE this_week) AS sessions,
      count(*) FILTER (WHERE this_week AND state <> 'closed') AS unfinished_sessions,
      count(*) FILTER (WHERE this_week AND user_decision = 'override') AS overrides,
      count(*) FILTER (WHERE this_week AND (emergency OR user_decision = 'emergency')) AS emergencies,
      count(*) FILTER (WHERE this_week AND evaluation_turns = 2) AS appeals,
      count(*) FILTER (WHERE this_week AND evaluation_turns >= 1) AS evaluated_sessions,
      count(*) FILTER (WHERE this_week AND state = 'closed') AS closed_sessions,
      count(*) FILTER (WHERE this_week AND user_decision = 'comply') AS complied_sessions,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM closed_at - created_at))
        FILTER (WHERE this_week AND closed_at IS NOT NULL) AS latency_p50_s,
      percentile_cont(0.9) WITHIN GROUP (ORDER BY extract(epoch FROM closed_at - created_at))
        FILTER (WHERE this_week AND closed_at IS NOT NULL) AS latency_p90_s,
      count(*) FILTER (WHERE NOT this_week) AS previous_sessions,
      count(*) FILTER (WHERE NOT this_week AND user_decision = 'override') AS previous_overrides,
      count(*) FILTER (WHERE NOT this_week AND state = 'closed') AS previous_closed_sessions,
      count(*) FILTER (WHERE NOT this_week AND user_decision = 'comply') AS previous_complied_sessions
    FROM sessions
    GROUP BY user_id, week_start
  ),
  personas AS (
    SELECT user_id, week_start,
      jsonb_object_agg(persona_key, jsonb_build_object('sessions', n, 'closed', closed, 'complied', complied))
        AS persona_stats
    FROM (
      SELECT user_id, week_start, persona_key, count(*) AS n,
             count(*) FILTER (WHERE state = 'closed') AS closed,
             count(*) FILTER (WHERE user_decision = 'comply') AS complied
      FROM sessions WHERE this_week
      GROUP BY user_id, week_start, persona_key
    ) per_persona
    GROUP BY user_id, week_start
  ),
  turns AS (
    SELECT s.user_id, s.week_start, s.this_week, t.turn_no, t.reason_category, t.ai_verdict
    FROM sessions s JOIN public.intercept_turns t ON t.session_id = s.id
  ),
  -- An excuse is the reason of a session (turn 1); an appeal argues the same excuse.
  categories AS (
    SELECT user_id, week_start,
      jsonb_object_agg(reason_category, n) FILTER (WHERE this_week) AS category_counts,
      jsonb_object_agg(reason_category, n) FILTER (WHERE NOT this_week) AS previous_category_counts
    FROM (
      SELECT user_id, week_start, this_week, reason_category, count(*) AS n
      FROM turns WHERE turn_no = 1
      GROUP BY user_id, week_start, this_week, reason_category
    ) per_category
    GROUP BY user_id, week_start
  ),
  -- Every verdict delivered: the reason's and the appeal's.
  verdicts AS (
    SELECT user_id, week_start, jsonb_object_agg(ai_verdict, n) AS verdict_counts
    FROM (
      SELECT user_id, week_start, ai_verdict, count(*) AS n
      FROM turns WHERE this_week
      GROUP BY user_id, week_start, ai_verdict
    ) per_verdict
    GROUP BY user_id, week_start
  )
  SELECT t.user_id, t.week_start, t.utc_offset_minutes,
         t.sessions::integer, t.unfinished_sessions::integer, t.overrides::integer, t.emergencies::integer,
         t.appeals::integer, t.evaluated_sessions::integer, t.closed_sessions::integer,
         t.complied_sessions::integer,
         coalesce(c.category_counts, '{}'::jsonb), coalesce(v.verdict_counts, '{}'::jsonb),
         coalesce(p.persona_stats, '{}'::jsonb),
         round(t.latency_p50_s * 1000)::integer, round(t.latency_p90_s * 1000)::integer,
         t.previous_sessions::integer, t.previous_overrides::integer, t.previous_closed_sessions::integer,
         t.previous_complied_sessions::integer, coalesce(c.previous_category_counts, '{}'::jsonb)
  FROM totals t
  LEFT JOIN categories c USING (user_id, week_start)
  LEFT JOIN verdicts v USING (user_id, week_start)
  LEFT JOIN personas p USING (user_id, week_start)
  WHERE t.sessions > 0
  ORDER BY t.user_id
$$;
REVOKE ALL ON FUNCTION public.weekly_aggregates(uuid[], date[]) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.weekly_aggregates(uuid[], date[]) TO service_role;
