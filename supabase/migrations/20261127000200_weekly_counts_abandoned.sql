-- The interception dialog's chores leave the weekly summary (issue 23, item 3): abandoned dialogs
-- are closed and old reasons purged by InterceptHousekeepingFunction, expired SPS states erased by
-- SpsHousekeepingFunction, each on its own schedule. The weekly figures used to rely on the sweep
-- having run just before them in the same tick; they now read a dialog still open past its
-- countdown and grace as the sweep would leave it, so a summary is the same whichever ran first.

-- The two-argument weekly_aggregates of 20261123000700 stays: the weekly function deployed before
-- this one calls it until `sam deploy` replaces it (its own tick still sweeps first), so applying
-- this migration before the deploy breaks no run. A later migration drops it.

-- As in 20261123000700_weekly_summary_v2.sql, with p_grace_seconds: the abandonment grace of
-- intercept_close_abandoned (PERSONA_RAILS_INTERCEPT_ABANDON_GRACE_SECONDS).
CREATE FUNCTION public.weekly_aggregates(p_user_ids uuid[], p_week_starts date[], p_grace_seconds integer)
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
      count(*) FILTER (WHERE this_week AND first_row AND NOT is_closed) AS unfinished_sessions,
      count(*) FILTER (WHERE this_week AND first_row AND decision = 'override') AS overrides,
      count(*) FILTER (WHERE this_week AND first_row AND (s.emergency OR decision = 'emergency')) AS emergencies,
      count(*) FILTER (WHERE this_week AND first_row AND s.evaluation_turns = 2) AS appeals,
      count(*) FILTER (WHERE this_week AND first_row AND s.evaluation_turns >= 1) AS evaluated_sessions,
      count(*) FILTER (WHERE this_week AND first_row AND is_closed) AS closed_sessions,
      count(*) FILTER (WHERE this_week AND first_row AND decision = 'comply') AS complied_sessions,
      count(*) FILTER (WHERE this_week AND first_row AND is_abandoned) AS abandoned_sessions,
      count(*) FILTER (WHERE this_week AND first_row AND s.unlock_kind = 'emergency') AS emergency_unlocks,
      count(*) FILTER (WHERE this_week AND first_row AND s.emergency_over_allowance) AS emergency_excess,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM s.closed_at - s.created_at))
        FILTER (WHERE this_week AND first_row AND s.closed_at IS NOT NULL AND NOT is_abandoned) AS latency_p50_s,
      percentile_cont(0.9) WITHIN GROUP (ORDER BY extract(epoch FROM s.closed_at - s.created_at))
        FILTER (WHERE this_week AND first_row AND s.closed_at IS NOT NULL AND NOT is_abandoned) AS latency_p90_s,
      count(*) FILTER (WHERE this_week AND t.turn_no = 1 AND t.reason_category = 'work') AS c_work,
      count(*) FILTER (WHERE this_week AND t.turn_no = 1 AND t.reason_category = 'study') AS c_study,
      count(*) FILTER (WHERE this_week AND t.turn_no = 1 AND t.reason_category = 'mental_break') AS c_mental_break,
      count(*) FILTER (WHERE this_week AND t.turn_no = 1 AND t.reason_category = 'emergency') AS c_emergency,
      count(*) FILTER (WHERE this_week AND t.turn_no = 1 AND t.reason_category = 'other') AS c_other,
      count(*) FILTER (WHERE this_week AND t.ai_verdict = 'deny') AS v_deny,
      count(*) FILTER (WHERE this_week AND t.ai_verdict = 'delay') AS v_delay,
      count(*) FILTER (WHERE this_week AND t.ai_verdict = 'allow') AS v_allow,
      count(*) FILTER (WHERE NOT this_week AND first_row) AS previous_sessions,
      count(*) FILTER (WHERE NOT this_week AND first_row AND decision = 'override') AS previous_overrides,
      count(*) FILTER (WHERE NOT this_week AND first_row AND is_closed) AS previous_closed_sessions,
      count(*) FILTER (WHERE NOT this_week AND first_row AND decision = 'comply') AS previous_complied_sessions,
      count(*) FILTER (WHERE NOT this_week AND t.turn_no = 1 AND t.reason_category = 'work') AS p_work,
      count(*) FILTER (WHERE NOT this_week AND t.turn_no = 1 AND t.reason_category = 'study') AS p_study,
      count(*) FILTER (WHERE NOT this_week AND t.turn_no = 1 AND t.reason_category = 'mental_break') AS p_mental_break,
      count(*) FILTER (WHERE NOT this_week AND t.turn_no = 1 AND t.reason_category = 'emergency') AS p_emergency,
      count(*) FILTER (WHERE NOT this_week AND t.turn_no = 1 AND t.reason_category = 'other') AS p_other,
      array_agg(s.persona_key) FILTER (WHERE this_week AND first_row) AS persona_keys,
      array_agg(is_closed) FILTER (WHERE this_week AND first_row) AS persona_closed,
      array_agg(decision = 'comply') FILTER (WHERE this_week AND first_row) AS persona_complied
    FROM public.intercept_sessions s
    LEFT JOIN public.intercept_turns t ON t.user_id = s.user_id AND t.session_id = s.id
    CROSS JOIN LATERAL (SELECT s.local_date >= p.week_start AS this_week, coalesce(t.turn_no, 1) = 1 AS first_row) f
    -- What intercept_close_abandoned makes of a dialog still open past its countdown and grace
    -- (closed, complied, abandoned), read as if it had already run: the week's figures do not
    -- depend on when InterceptHousekeepingFunction last ran.
    CROSS JOIN LATERAL (
      SELECT s.state <> 'closed'
             AND s.created_at + make_interval(secs => s.countdown_seconds + p_grace_seconds) < now() AS gone
    ) g
    CROSS JOIN LATERAL (
      SELECT s.state = 'closed' OR g.gone AS is_closed, s.abandoned OR g.gone AS is_abandoned,
             CASE WHEN g.gone THEN 'comply' ELSE s.user_decision END AS decision
    ) d
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
REVOKE ALL ON FUNCTION public.weekly_aggregates(uuid[], date[], integer) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.weekly_aggregates(uuid[], date[], integer) TO service_role;

COMMENT ON ROLE persona_rails_weekly_login IS
  'Login of the scheduled functions (WeeklySummaryFunction, InterceptHousekeepingFunction, SpsHousekeepingFunction): may become service_role and persona_rails_function (infra/sql/enable_function_logins.sql)';
