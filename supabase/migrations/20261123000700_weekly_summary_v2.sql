-- Weekly summaries v2: abandoned dialogs and emergency unlocks past the allowance are counted,
-- turns are joined to their session by (user_id, session_id) now that session ids are scoped per
-- user, and the aggregation reads each page of users in one pass over sessions and turns.

ALTER TABLE public.weekly_summaries
  -- Dialogs closed by the sweep because the app was killed (intercept_close_abandoned). They are
  -- stored as an auto-dismissed comply, so they count as closed and complied; they are counted
  -- here as well so the app can show them apart, and left out of the latency percentiles.
  ADD COLUMN abandoned_sessions integer NOT NULL DEFAULT 0 CHECK (abandoned_sessions >= 0),
  -- Every emergency unlock of the week, and those past the user's weekly allowance (the excess).
  ADD COLUMN emergency_unlocks integer NOT NULL DEFAULT 0 CHECK (emergency_unlocks >= 0),
  ADD COLUMN emergency_excess integer NOT NULL DEFAULT 0 CHECK (emergency_excess >= 0);

-- One index serves both the uniqueness of a turn and the weekly join: the two columns the
-- summary reads ride along, so the join is an index-only scan once the table is vacuumed.
ALTER TABLE public.intercept_turns
  DROP CONSTRAINT intercept_turns_one_per_slot,
  ADD CONSTRAINT intercept_turns_one_per_slot UNIQUE (user_id, session_id, turn_no)
    INCLUDE (reason_category, ai_verdict);

DROP FUNCTION public.weekly_aggregates(uuid[], date[]);

-- Aggregates for a batch of (user, week) pairs: one row per pair with at least one session in
-- its week. For each pair, its sessions of the week and the week before (for the trend) are read
-- through (user_id, local_date) and joined to their turns through the covering index above, and
-- one aggregate computes every figure: no sort or join across the whole page. Categories and
-- verdicts are the columns' CHECK lists, so they are counted as fixed keys. SECURITY INVOKER:
-- only service_role can see every user's rows.
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
  abandoned_sessions integer,
  emergency_unlocks integer,
  emergency_excess integer,
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
  SELECT p.user_id, p.week_start, a.utc_offset_minutes,
         a.sessions::integer, a.unfinished_sessions::integer, a.overrides::integer, a.emergencies::integer,
         a.appeals::integer, a.evaluated_sessions::integer, a.closed_sessions::integer,
         a.complied_sessions::integer, a.abandoned_sessions::integer, a.emergency_unlocks::integer,
         a.emergency_excess::integer,
         jsonb_build_object('work', a.c_work, 'study', a.c_study, 'mental_break', a.c_mental_break,
                            'emergency', a.c_emergency, 'other', a.c_other),
         jsonb_build_object('deny', a.v_deny, 'delay', a.v_delay, 'allow', a.v_allow),
         coalesce(ps.persona_stats, '{}'::jsonb),
         round(a.latency_p50_s * 1000)::integer, round(a.latency_p90_s * 1000)::integer,
         a.previous_sessions::integer, a.previous_overrides::integer, a.previous_closed_sessions::integer,
         a.previous_complied_sessions::integer,
         jsonb_build_object('work', a.p_work, 'study', a.p_study, 'mental_break', a.p_mental_break,
                            'emergency', a.p_emergency, 'other', a.p_other)
  FROM unnest(p_user_ids, p_week_starts) AS p (user_id, week_start)
  -- Each user's sessions of the two weeks, each with its turns (one row per turn, or one row for a
  -- session without any), aggregated on their own: a session counts on its first row only.
  CROSS JOIN LATERAL (
    SELECT
      (array_agg(s.utc_offset_minutes ORDER BY s.created_at DESC) FILTER (WHERE this_week AND first_row))[1] AS utc_offset_minutes,
      count(*) FILTER (WHERE this_week AND first_row) AS sessions,
      count(*) FILTER (WHERE this_week AND first_row AND s.state <> 'closed') AS unfinished_sessions,
      count(*) FILTER (WHERE this_week AND first_row AND s.user_decision = 'override') AS overrides,
      count(*) FILTER (WHERE this_week AND first_row AND (s.emergency OR s.user_decision = 'emergency')) AS emergencies,
      count(*) FILTER (WHERE this_week AND first_row AND s.evaluation_turns = 2) AS appeals,
      count(*) FILTER (WHERE this_week AND first_row AND s.evaluation_turns >= 1) AS evaluated_sessions,
      count(*) FILTER (WHERE this_week AND first_row AND s.state = 'closed') AS closed_sessions,
      count(*) FILTER (WHERE this_week AND first_row AND s.user_decision = 'comply') AS complied_sessions,
      count(*) FILTER (WHERE this_week AND first_row AND s.abandoned) AS abandoned_sessions,
      count(*) FILTER (WHERE this_week AND first_row AND s.unlock_kind = 'emergency') AS emergency_unlocks,
      count(*) FILTER (WHERE this_week AND first_row AND s.emergency_over_allowance) AS emergency_excess,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM s.closed_at - s.created_at))
        FILTER (WHERE this_week AND first_row AND s.closed_at IS NOT NULL AND NOT s.abandoned) AS latency_p50_s,
      percentile_cont(0.9) WITHIN GROUP (ORDER BY extract(epoch FROM s.closed_at - s.created_at))
        FILTER (WHERE this_week AND first_row AND s.closed_at IS NOT NULL AND NOT s.abandoned) AS latency_p90_s,
      count(*) FILTER (WHERE this_week AND t.turn_no = 1 AND t.reason_category = 'work') AS c_work,
      count(*) FILTER (WHERE this_week AND t.turn_no = 1 AND t.reason_category = 'study') AS c_study,
      count(*) FILTER (WHERE this_week AND t.turn_no = 1 AND t.reason_category = 'mental_break') AS c_mental_break,
      count(*) FILTER (WHERE this_week AND t.turn_no = 1 AND t.reason_category = 'emergency') AS c_emergency,
      count(*) FILTER (WHERE this_week AND t.turn_no = 1 AND t.reason_category = 'other') AS c_other,
      count(*) FILTER (WHERE this_week AND t.ai_verdict = 'deny') AS v_deny,
      count(*) FILTER (WHERE this_week AND t.ai_verdict = 'delay') AS v_delay,
      count(*) FILTER (WHERE this_week AND t.ai_verdict = 'allow') AS v_allow,
      count(*) FILTER (WHERE NOT this_week AND first_row) AS previous_sessions,
      count(*) FILTER (WHERE NOT this_week AND first_row AND s.user_decision = 'override') AS previous_overrides,
      count(*) FILTER (WHERE NOT this_week AND first_row AND s.state = 'closed') AS previous_closed_sessions,
      count(*) FILTER (WHERE NOT this_week AND first_row AND s.user_decision = 'comply') AS previous_complied_sessions,
      count(*) FILTER (WHERE NOT this_week AND t.turn_no = 1 AND t.reason_category = 'work') AS p_work,
      count(*) FILTER (WHERE NOT this_week AND t.turn_no = 1 AND t.reason_category = 'study') AS p_study,
      count(*) FILTER (WHERE NOT this_week AND t.turn_no = 1 AND t.reason_category = 'mental_break') AS p_mental_break,
      count(*) FILTER (WHERE NOT this_week AND t.turn_no = 1 AND t.reason_category = 'emergency') AS p_emergency,
      count(*) FILTER (WHERE NOT this_week AND t.turn_no = 1 AND t.reason_category = 'other') AS p_other,
      array_agg(s.persona_key) FILTER (WHERE this_week AND first_row) AS persona_keys,
      array_agg(s.state = 'closed') FILTER (WHERE this_week AND first_row) AS persona_closed,
      array_agg(s.user_decision = 'comply') FILTER (WHERE this_week AND first_row) AS persona_complied
    FROM public.intercept_sessions s
    LEFT JOIN public.intercept_turns t ON t.user_id = s.user_id AND t.session_id = s.id
    CROSS JOIN LATERAL (SELECT s.local_date >= p.week_start AS this_week, coalesce(t.turn_no, 1) = 1 AS first_row) f
    WHERE s.user_id = p.user_id AND s.local_date >= p.week_start - 7 AND s.local_date < p.week_start + 7
  ) a
  -- The week's sessions per persona, counted from the arrays above rather than a second pass.
  CROSS JOIN LATERAL (
    SELECT jsonb_object_agg(k, jsonb_build_object('sessions', n, 'closed', closed, 'complied', complied)) AS persona_stats
    FROM (SELECT k, count(*) AS n, count(*) FILTER (WHERE c) AS closed, count(*) FILTER (WHERE m) AS complied
          FROM unnest(a.persona_keys, a.persona_closed, a.persona_complied) AS x (k, c, m) GROUP BY k) per_persona
  ) ps
  WHERE a.sessions > 0
  ORDER BY p.user_id
$$;
REVOKE ALL ON FUNCTION public.weekly_aggregates(uuid[], date[]) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.weekly_aggregates(uuid[], date[]) TO service_role;
