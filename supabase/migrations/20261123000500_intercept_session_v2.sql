-- Interception v2: unlock windows and enforced delays, escalating friction, a weekly emergency
-- allowance, abandoned dialogs that close themselves, a local day that follows the user without
-- being gameable, and client session ids scoped per user.

-- 1. Client session ids are scoped per user: another user's id behaves exactly like a fresh one
--    (it used to answer 409, which told the caller that the id existed).
ALTER TABLE public.intercept_turns DROP CONSTRAINT intercept_turns_session_id_fkey;
ALTER TABLE public.intercept_turns DROP CONSTRAINT intercept_turns_one_per_slot;
ALTER TABLE public.intercept_sessions DROP CONSTRAINT intercept_sessions_pkey;
ALTER TABLE public.intercept_sessions ADD PRIMARY KEY (user_id, id);
ALTER TABLE public.intercept_turns
  ADD CONSTRAINT intercept_turns_session_fkey FOREIGN KEY (user_id, session_id)
    REFERENCES public.intercept_sessions (user_id, id) ON DELETE CASCADE,
  ADD CONSTRAINT intercept_turns_one_per_slot UNIQUE (user_id, session_id, turn_no);
-- Events are once per subject and user (the intercept session ids are the user's own).
ALTER TABLE public.analytics_events
  DROP CONSTRAINT analytics_events_once_per_subject,
  ADD CONSTRAINT analytics_events_once_per_subject UNIQUE (user_id, subject_type, subject_id, name);
DROP INDEX IF EXISTS public.intercept_turns_user_id_idx;

-- 2. What a rule opts into. Every default is the spec's behaviour.
ALTER TABLE public.rules
  -- How long an allow, an override or an emergency unlocks the app; NULL: remaining_minutes.
  -- Either way the window ends at the user's local midnight at the latest.
  ADD COLUMN unlock_minutes integer CHECK (unlock_minutes BETWEEN 1 AND 1440),
  -- Escalating friction: the countdown grows by this much per earlier open of the app today
  -- (NULL: off, the spec's fixed 20 s), up to friction_cap_seconds.
  ADD COLUMN friction_growth_seconds integer CHECK (friction_growth_seconds BETWEEN 1 AND 600),
  ADD COLUMN friction_cap_seconds integer NOT NULL DEFAULT 120 CHECK (friction_cap_seconds BETWEEN 20 AND 3600),
  -- No override for a start triggered by the rule's blocked window.
  ADD COLUMN overrides_disabled_in_blocked_window boolean NOT NULL DEFAULT false,
  -- Past the weekly emergency allowance, an emergency decision must say why.
  ADD COLUMN emergency_reason_required_past_allowance boolean NOT NULL DEFAULT false;

-- 3. The user's own settings, written by the app through Supabase (like rules).
CREATE TABLE public.intercept_user_settings (
  user_id uuid PRIMARY KEY DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  -- Emergency unlocks per ISO week (local time) before they are flagged.
  emergency_allowance_per_week integer NOT NULL DEFAULT 3 CHECK (emergency_allowance_per_week BETWEEN 0 AND 100),
  updated_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE public.intercept_user_settings ENABLE ROW LEVEL SECURITY;
CREATE POLICY intercept_user_settings_select_own ON public.intercept_user_settings FOR SELECT TO authenticated
  USING ((SELECT auth.uid()) = user_id);
CREATE POLICY intercept_user_settings_insert_own ON public.intercept_user_settings FOR INSERT TO authenticated
  WITH CHECK ((SELECT auth.uid()) = user_id);
CREATE POLICY intercept_user_settings_update_own ON public.intercept_user_settings FOR UPDATE TO authenticated
  USING ((SELECT auth.uid()) = user_id) WITH CHECK ((SELECT auth.uid()) = user_id);
CREATE POLICY intercept_user_settings_delete_own ON public.intercept_user_settings FOR DELETE TO authenticated
  USING ((SELECT auth.uid()) = user_id);
REVOKE ALL ON public.intercept_user_settings FROM anon, authenticated;
GRANT SELECT, DELETE ON public.intercept_user_settings TO authenticated;
GRANT INSERT (user_id, emergency_allowance_per_week), UPDATE (emergency_allowance_per_week, updated_at)
  ON public.intercept_user_settings TO authenticated;
GRANT ALL ON public.intercept_user_settings TO service_role;
COMMENT ON TABLE public.intercept_user_settings IS
  'app-writes: the user''s own interception settings (the weekly emergency allowance), written by the mobile app through PostgREST';

-- 4. The user's clock: the UTC offset their local day follows, and a change waiting for the
--    next local midnight. Only the function writes it, so a client cannot move midnight.
CREATE TABLE public.intercept_user_clock (
  user_id uuid PRIMARY KEY DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  utc_offset_minutes smallint NOT NULL CHECK (utc_offset_minutes BETWEEN -720 AND 840),
  -- The start of the local day a pending change extends (NULL: no change pending).
  pending_day_start timestamptz,
  pending_offset_minutes smallint CHECK (pending_offset_minutes BETWEEN -720 AND 840),
  pending_effective_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT intercept_user_clock_pending_complete CHECK (
    (pending_offset_minutes IS NULL) = (pending_effective_at IS NULL)
    AND (pending_offset_minutes IS NULL) = (pending_day_start IS NULL))
);
ALTER TABLE public.intercept_user_clock ENABLE ROW LEVEL SECURITY;
CREATE POLICY intercept_user_clock_select_own ON public.intercept_user_clock FOR SELECT TO authenticated
  USING ((SELECT auth.uid()) = user_id);
CREATE POLICY intercept_user_clock_insert_own ON public.intercept_user_clock FOR INSERT TO persona_rails_function
  WITH CHECK ((SELECT auth.uid()) = user_id);
CREATE POLICY intercept_user_clock_update_own ON public.intercept_user_clock FOR UPDATE TO persona_rails_function
  USING ((SELECT auth.uid()) = user_id) WITH CHECK ((SELECT auth.uid()) = user_id);
REVOKE ALL ON public.intercept_user_clock FROM anon, authenticated;
GRANT SELECT ON public.intercept_user_clock TO authenticated;
GRANT INSERT, UPDATE ON public.intercept_user_clock TO persona_rails_function;
GRANT ALL ON public.intercept_user_clock TO service_role;

-- Existing users keep the day they had: their home offset (the first session's) until a start
-- reports another one.
INSERT INTO public.intercept_user_clock (user_id, utc_offset_minutes)
SELECT DISTINCT ON (s.user_id) s.user_id, s.utc_offset_minutes
FROM public.intercept_sessions s
ORDER BY s.user_id, s.created_at, s.id;

-- 5. What each session decided beyond the spec's fields.
ALTER TABLE public.intercept_sessions
  -- The countdown the dialog was shown (20 s unless the rule escalates friction).
  ADD COLUMN countdown_seconds smallint NOT NULL DEFAULT 20 CHECK (countdown_seconds BETWEEN 5 AND 3600),
  ADD COLUMN override_allowed boolean NOT NULL DEFAULT true,
  ADD COLUMN emergency_reason_required_past_allowance boolean NOT NULL DEFAULT false,
  ADD COLUMN unlock_minutes integer NOT NULL DEFAULT 30 CHECK (unlock_minutes BETWEEN 0 AND 1440),
  -- The app was killed during the dialog: closed as an auto-dismissed comply by the sweep.
  ADD COLUMN abandoned boolean NOT NULL DEFAULT false,
  ADD COLUMN unlock_kind text CHECK (unlock_kind IN ('allow', 'override', 'emergency')),
  ADD COLUMN unlocked_until timestamptz,
  ADD COLUMN retry_after timestamptz,
  ADD COLUMN emergency_over_allowance boolean NOT NULL DEFAULT false,
  -- The flagged emergency session this session's challenge told the user about.
  ADD COLUMN mentions_excess_of uuid,
  ADD CONSTRAINT intercept_sessions_abandoned_is_auto_comply CHECK (
    NOT abandoned OR (state = 'closed' AND user_decision = 'comply' AND auto_dismissed)),
  ADD CONSTRAINT intercept_sessions_unlock_has_window CHECK ((unlock_kind IS NULL) = (unlocked_until IS NULL)),
  ADD CONSTRAINT intercept_sessions_excess_is_emergency CHECK (
    NOT emergency_over_allowance OR unlock_kind = 'emergency'),
  ADD CONSTRAINT intercept_sessions_closed_after_start CHECK (closed_at IS NULL OR closed_at >= created_at);
-- A start looks up the rule's latest unlock or delay, today's opens of the app and the week's
-- emergencies; the sweep finds dialogs left open.
CREATE INDEX intercept_sessions_user_app_closed_idx ON public.intercept_sessions (user_id, app_identifier, closed_at DESC)
  WHERE unlocked_until IS NOT NULL OR retry_after IS NOT NULL;
CREATE INDEX intercept_sessions_user_app_created_idx ON public.intercept_sessions (user_id, app_identifier, created_at);
CREATE INDEX intercept_sessions_open_idx ON public.intercept_sessions (created_at) WHERE state <> 'closed';
CREATE INDEX intercept_sessions_user_emergency_idx ON public.intercept_sessions (user_id, local_date)
  WHERE unlock_kind = 'emergency';

-- 6. The local day.
--
-- A day runs from one local midnight to the next at the offset in effect. A start that reports
-- another offset does not move today: the change waits for the first midnight at the new offset
-- that is at least 23 hours after today began (and not in the past), and today lasts until
-- then. So a DST change gives the 23- or 25-hour day the calendar gives, a Beijing -> New York
-- trip gives one long travel day, and no sequence of offsets can make a day shorter than 23
-- hours, which is what resetting today's count would take.

-- The first midnight at p_offset at or after p_at.
CREATE FUNCTION public.intercept_midnight_on_or_after(p_at timestamptz, p_offset integer)
RETURNS timestamptz
LANGUAGE sql IMMUTABLE
SET search_path = ''
AS $$
  SELECT CASE WHEN local = date_trunc('day', local) THEN p_at
              ELSE (date_trunc('day', local) + interval '1 day' - make_interval(mins => p_offset)) AT TIME ZONE 'UTC'
         END
  FROM (SELECT (p_at AT TIME ZONE 'UTC') + make_interval(mins => p_offset) AS local) l
$$;

-- The latest midnight at p_offset at or before p_at.
CREATE FUNCTION public.intercept_midnight_on_or_before(p_at timestamptz, p_offset integer)
RETURNS timestamptz
LANGUAGE sql IMMUTABLE
SET search_path = ''
AS $$
  SELECT (date_trunc('day', (p_at AT TIME ZONE 'UTC') + make_interval(mins => p_offset))
          - make_interval(mins => p_offset)) AT TIME ZONE 'UTC'
$$;

-- The caller's local day at p_now from their clock row (NULL row: p_offset_minutes, a new
-- user's first day). Reads only; `intercept_observe_offset` is what records a change.
CREATE FUNCTION public.intercept_local_day(p_offset_minutes integer, p_now timestamptz DEFAULT clock_timestamp())
RETURNS TABLE (utc_offset_minutes integer, day_start timestamptz, day_end timestamptz, local_date date,
               week_start date)
LANGUAGE sql STABLE SECURITY INVOKER
SET search_path = ''
AS $$
  WITH clock AS (
    SELECT c.utc_offset_minutes, c.pending_day_start, c.pending_offset_minutes, c.pending_effective_at
    FROM public.intercept_user_clock c WHERE c.user_id = (SELECT auth.uid())
  ), effective AS (
    SELECT
      CASE WHEN c.pending_effective_at IS NULL THEN coalesce(c.utc_offset_minutes, p_offset_minutes)
           WHEN p_now >= c.pending_effective_at THEN c.pending_offset_minutes
           ELSE c.utc_offset_minutes END AS offset_minutes,
      -- A pending change extends today until it takes effect.
      CASE WHEN c.pending_effective_at IS NOT NULL AND p_now < c.pending_effective_at
           THEN c.pending_day_start END AS extended_start,
      CASE WHEN c.pending_effective_at IS NOT NULL AND p_now < c.pending_effective_at
           THEN c.pending_effective_at END AS extended_end
    FROM (SELECT 1) one LEFT JOIN clock c ON true
  ), day AS (
    SELECT offset_minutes,
           coalesce(extended_start, public.intercept_midnight_on_or_before(p_now, offset_minutes)) AS day_start,
           coalesce(extended_end,
                    public.intercept_midnight_on_or_before(p_now, offset_minutes) + interval '1 day') AS day_end
    FROM effective
  )
  SELECT d.offset_minutes::integer, d.day_start, d.day_end,
         ((d.day_start AT TIME ZONE 'UTC') + make_interval(mins => d.offset_minutes))::date,
         ((d.day_start AT TIME ZONE 'UTC') + make_interval(mins => d.offset_minutes))::date
           - (extract(isodow FROM (d.day_start AT TIME ZONE 'UTC') + make_interval(mins => d.offset_minutes))::integer - 1)
  FROM day d
$$;

-- Record the offset a start reported, then answer the local day as `intercept_local_day` does.
-- The clock row is locked for the rest of the transaction: concurrent starts of one user take
-- their turn, and so do emergency decisions, which count the week under the same lock.
CREATE FUNCTION public.intercept_observe_offset(p_offset_minutes integer, p_now timestamptz DEFAULT clock_timestamp())
RETURNS TABLE (utc_offset_minutes integer, day_start timestamptz, day_end timestamptz, local_date date,
               week_start date)
LANGUAGE plpgsql VOLATILE SECURITY INVOKER
SET search_path = ''
AS $$
DECLARE
  v_user uuid := (SELECT auth.uid());
  v_clock public.intercept_user_clock%ROWTYPE;
  v_day record;
BEGIN
  INSERT INTO public.intercept_user_clock (user_id, utc_offset_minutes)
  VALUES (v_user, p_offset_minutes)
  ON CONFLICT (user_id) DO NOTHING;
  SELECT * INTO v_clock FROM public.intercept_user_clock c WHERE c.user_id = v_user FOR UPDATE;
  IF v_clock.pending_effective_at IS NOT NULL AND p_now >= v_clock.pending_effective_at THEN
    UPDATE public.intercept_user_clock c
    SET utc_offset_minutes = v_clock.pending_offset_minutes, pending_day_start = NULL,
        pending_offset_minutes = NULL, pending_effective_at = NULL, updated_at = p_now
    WHERE c.user_id = v_user
    RETURNING * INTO v_clock;
  END IF;
  IF p_offset_minutes = v_clock.utc_offset_minutes THEN
    IF v_clock.pending_effective_at IS NOT NULL THEN
      -- Back at the offset in effect: the change is called off, and today ends at its own midnight.
      UPDATE public.intercept_user_clock c
      SET pending_day_start = NULL, pending_offset_minutes = NULL, pending_effective_at = NULL, updated_at = p_now
      WHERE c.user_id = v_user;
    END IF;
  ELSIF v_clock.pending_offset_minutes IS DISTINCT FROM p_offset_minutes THEN
    SELECT * INTO v_day FROM public.intercept_local_day(p_offset_minutes, p_now) d;
    UPDATE public.intercept_user_clock c
    SET pending_day_start = v_day.day_start,
        pending_offset_minutes = p_offset_minutes,
        pending_effective_at = public.intercept_midnight_on_or_after(
          greatest(p_now, v_day.day_start + interval '23 hours'), p_offset_minutes),
        updated_at = p_now
    WHERE c.user_id = v_user;
  END IF;
  RETURN QUERY SELECT * FROM public.intercept_local_day(p_offset_minutes, p_now);
END
$$;

-- Today's overrides and the streak, at the day the clock gives (it replaces the home-offset rule:
-- the first session's offset no longer fixes midnight for good). A reason turn reads only these;
-- a start reads them through intercept_start_context.
CREATE OR REPLACE FUNCTION public.intercept_day_stats(p_offset_minutes integer, p_now timestamptz DEFAULT now())
RETURNS TABLE (override_count_today integer, streak integer)
LANGUAGE sql STABLE SECURITY INVOKER
SET search_path = ''
AS $$
  WITH day AS (SELECT * FROM public.intercept_local_day(p_offset_minutes, p_now)),
  last_override AS (
    SELECT s.closed_at FROM public.intercept_sessions s
    WHERE s.user_id = (SELECT auth.uid()) AND s.user_decision = 'override' AND s.closed_at IS NOT NULL
    ORDER BY s.closed_at DESC
    LIMIT 1
  ),
  first_session AS (
    SELECT s.created_at FROM public.intercept_sessions s
    WHERE s.user_id = (SELECT auth.uid()) ORDER BY s.created_at LIMIT 1
  )
  SELECT
    (SELECT count(*) FROM public.intercept_sessions s
      WHERE s.user_id = (SELECT auth.uid()) AND s.user_decision = 'override' AND s.closed_at >= d.day_start)::integer,
    least(365, coalesce(CASE
      WHEN (SELECT closed_at FROM last_override) IS NOT NULL
        THEN d.local_date
             - (((SELECT closed_at FROM last_override) AT TIME ZONE 'UTC') + make_interval(mins => d.utc_offset_minutes))::date
      ELSE d.local_date
           - coalesce((((SELECT created_at FROM first_session) AT TIME ZONE 'UTC')
                       + make_interval(mins => d.utc_offset_minutes))::date, d.local_date) + 1
    END, 0))::integer
  FROM day d
$$;

-- The emergency unlocks of the ISO week starting p_week_start (local dates) and the caller's
-- weekly allowance: one definition for the start's counts and the decision's budget.
CREATE FUNCTION public.intercept_emergency_week(p_week_start date)
RETURNS TABLE (emergencies integer, allowance integer)
LANGUAGE sql STABLE SECURITY INVOKER
SET search_path = ''
AS $$
  SELECT
    (SELECT count(*) FROM public.intercept_sessions s
      WHERE s.user_id = (SELECT auth.uid()) AND s.unlock_kind = 'emergency'
        AND s.local_date >= p_week_start AND s.local_date < p_week_start + 7)::integer,
    coalesce((SELECT u.emergency_allowance_per_week FROM public.intercept_user_settings u
              WHERE u.user_id = (SELECT auth.uid())), 3)
$$;

-- Everything a start answers from stored sessions, in one row: the app's unlock window or
-- delay still running, today's opens of the app, today's overrides, the override-free streak,
-- this week's emergency unlocks against the allowance, and a flagged emergency not yet told.
CREATE FUNCTION public.intercept_start_context(p_app_identifier text, p_offset_minutes integer,
                                               p_now timestamptz DEFAULT clock_timestamp())
RETURNS TABLE (utc_offset_minutes integer, day_start timestamptz, day_end timestamptz, local_date date,
               week_start date, unlocked_until timestamptz, retry_after timestamptz, opens_today integer,
               overrides_today integer, streak_days integer, emergencies_this_week integer,
               emergency_allowance integer, unmentioned_excess uuid)
LANGUAGE sql STABLE SECURITY INVOKER
SET search_path = ''
AS $$
  WITH day AS (SELECT * FROM public.intercept_local_day(p_offset_minutes, p_now)),
  -- The window is the app's: a second rule for the same app does not open a way around it.
  gate AS (
    SELECT s.unlocked_until, s.retry_after FROM public.intercept_sessions s
    WHERE s.user_id = (SELECT auth.uid()) AND s.app_identifier = p_app_identifier
      AND (s.unlocked_until IS NOT NULL OR s.retry_after IS NOT NULL)
    ORDER BY s.closed_at DESC
    LIMIT 1
  )
  SELECT d.utc_offset_minutes, d.day_start, d.day_end, d.local_date, d.week_start,
    (SELECT g.unlocked_until FROM gate g WHERE g.unlocked_until > p_now),
    (SELECT g.retry_after FROM gate g WHERE g.retry_after > p_now),
    (SELECT count(*) FROM public.intercept_sessions s
      WHERE s.user_id = (SELECT auth.uid()) AND s.app_identifier = p_app_identifier
        AND s.created_at >= d.day_start)::integer,
    t.override_count_today, t.streak, w.emergencies, w.allowance,
    (SELECT s.id FROM public.intercept_sessions s
      WHERE s.user_id = (SELECT auth.uid()) AND s.emergency_over_allowance
        AND NOT EXISTS (SELECT 1 FROM public.intercept_sessions n
                        WHERE n.user_id = s.user_id AND n.mentions_excess_of = s.id)
      ORDER BY s.closed_at DESC LIMIT 1)
  FROM day d
  CROSS JOIN public.intercept_day_stats(p_offset_minutes, p_now) t
  CROSS JOIN public.intercept_emergency_week(d.week_start) w
$$;

-- The week's emergency unlocks and the allowance, under the clock row's lock (see
-- intercept_observe_offset), so two emergency decisions at once cannot both be the last free one.
CREATE FUNCTION public.intercept_emergency_budget(p_offset_minutes integer,
                                                  p_now timestamptz DEFAULT clock_timestamp())
RETURNS TABLE (day_end timestamptz, emergencies_this_week integer, emergency_allowance integer)
LANGUAGE plpgsql VOLATILE SECURITY INVOKER
SET search_path = ''
AS $$
DECLARE
  v_user uuid := (SELECT auth.uid());
  v_day record;
BEGIN
  PERFORM 1 FROM public.intercept_user_clock c WHERE c.user_id = v_user FOR UPDATE;
  SELECT * INTO v_day FROM public.intercept_local_day(p_offset_minutes, p_now) d;
  RETURN QUERY SELECT v_day.day_end, w.emergencies, w.allowance
    FROM public.intercept_emergency_week(v_day.week_start) w;
END
$$;

-- 7. The event of a closed dialog, built from the stored rows: the decision and the abandoned
--    sweep emit the same fields. The spec's per-turn fields of the deciding turn sit at the top
--    (null before any reason), every turn under `turns`.
CREATE FUNCTION public.intercept_completed_event(p_user_id uuid, p_session_id uuid)
RETURNS jsonb
LANGUAGE sql STABLE SECURITY INVOKER
SET search_path = ''
AS $$
  WITH s AS (
    SELECT * FROM public.intercept_sessions WHERE user_id = p_user_id AND id = p_session_id
  ), t AS (
    SELECT turn_no, jsonb_build_object(
             'reason_text', reason_text, 'reason_category', reason_category, 'ai_verdict', ai_verdict,
             'confidence', confidence::float8, 'persona_response', persona_response,
             'user_decision', user_decision, 'appeal_used', appeal_used, 'source', source,
             'latency_ms', latency_ms) AS fields
    FROM public.intercept_turns WHERE user_id = p_user_id AND session_id = p_session_id
  )
  SELECT coalesce((SELECT fields FROM t ORDER BY turn_no DESC LIMIT 1),
                  jsonb_build_object('reason_text', NULL, 'reason_category', NULL, 'ai_verdict', NULL,
                                     'confidence', NULL, 'persona_response', NULL, 'user_decision', NULL,
                                     'appeal_used', NULL, 'source', NULL, 'latency_ms', NULL))
    || jsonb_build_object(
         'session_id', s.id, 'persona_key', s.persona_key, 'persona_version', s.persona_version,
         'trigger', s.trigger, 'app_identifier', s.app_identifier, 'final_verdict', s.final_verdict,
         'user_decision', s.user_decision, 'appeal_used', s.evaluation_turns > 1,
         'accepted_delay', s.accepted_delay, 'auto_dismissed', s.auto_dismissed, 'emergency', s.emergency,
         'emergency_reason', s.emergency_reason, 'evaluation_turns', s.evaluation_turns,
         'response_latency_ms', (extract(epoch FROM s.closed_at - s.created_at) * 1000)::bigint,
         'abandoned', s.abandoned, 'unlock_kind', s.unlock_kind, 'unlocked_until', s.unlocked_until,
         'retry_after', s.retry_after, 'emergency_over_allowance', s.emergency_over_allowance,
         'countdown_seconds', s.countdown_seconds,
         'turns', coalesce((SELECT jsonb_agg(fields ORDER BY turn_no) FROM t), '[]'::jsonb))
  FROM s
$$;

-- 8. Abandoned dialogs: a session still open after its countdown plus the grace period is closed
--    as an auto-dismissed comply, marked abandoned, and its event is emitted once. The next
--    start of the user calls this for them (RLS scopes it); the scheduled function calls it as
--    service_role for everyone. SKIP LOCKED: a session someone is deciding right now is theirs.
--    closed_at is when it became abandoned, never before its last turn.
CREATE FUNCTION public.intercept_close_abandoned(p_grace_seconds integer DEFAULT 600, p_limit integer DEFAULT 5000)
RETURNS integer
LANGUAGE plpgsql VOLATILE SECURITY INVOKER
SET search_path = ''
AS $$
DECLARE
  v_row record;
  v_closed integer := 0;
BEGIN
  FOR v_row IN
    SELECT s.user_id, s.id FROM public.intercept_sessions s
    WHERE s.state <> 'closed'
      AND s.created_at + make_interval(secs => s.countdown_seconds + p_grace_seconds) < clock_timestamp()
    ORDER BY s.created_at
    LIMIT p_limit
    FOR UPDATE SKIP LOCKED
  LOOP
    UPDATE public.intercept_sessions s
    SET state = 'closed', user_decision = 'comply', auto_dismissed = true, accepted_delay = false,
        abandoned = true, decision_fingerprint = 'abandoned',
        closed_at = greatest(
          s.created_at + make_interval(secs => s.countdown_seconds + p_grace_seconds),
          (SELECT max(t.created_at) FROM public.intercept_turns t
           WHERE t.user_id = s.user_id AND t.session_id = s.id))
    WHERE s.user_id = v_row.user_id AND s.id = v_row.id;
    UPDATE public.intercept_turns t SET user_decision = 'comply'
    WHERE t.user_id = v_row.user_id AND t.session_id = v_row.id;
    INSERT INTO public.analytics_events (user_id, subject_type, subject_id, name, properties)
    VALUES (v_row.user_id, 'intercept_session', v_row.id, 'interception.dialog_completed',
            public.intercept_completed_event(v_row.user_id, v_row.id))
    ON CONFLICT (user_id, subject_type, subject_id, name) DO NOTHING;
    v_closed := v_closed + 1;
  END LOOP;
  RETURN v_closed;
END
$$;

REVOKE ALL ON FUNCTION public.intercept_midnight_on_or_after(timestamptz, integer),
  public.intercept_midnight_on_or_before(timestamptz, integer),
  public.intercept_local_day(integer, timestamptz),
  public.intercept_observe_offset(integer, timestamptz),
  public.intercept_start_context(text, integer, timestamptz),
  public.intercept_emergency_budget(integer, timestamptz),
  public.intercept_emergency_week(date),
  public.intercept_completed_event(uuid, uuid),
  public.intercept_close_abandoned(integer, integer)
  FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.intercept_midnight_on_or_after(timestamptz, integer),
  public.intercept_midnight_on_or_before(timestamptz, integer),
  public.intercept_local_day(integer, timestamptz),
  public.intercept_start_context(text, integer, timestamptz),
  public.intercept_emergency_week(date),
  public.intercept_completed_event(uuid, uuid)
  TO authenticated, service_role;
GRANT EXECUTE ON FUNCTION public.intercept_observe_offset(integer, timestamptz),
  public.intercept_emergency_budget(integer, timestamptz),
  public.intercept_close_abandoned(integer, integer)
  TO persona_rails_function, service_role;
