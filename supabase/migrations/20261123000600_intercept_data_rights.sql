-- Data rights over the interception history: a user deletes all of it (the export only reads,
-- under the policies that already exist), and raw reasons are purged after a retention period
-- while categories, verdicts and counts stay, so weekly summaries computed afterwards are the
-- same.

-- 1. Deleting one's own history. The function deletes, acting for the caller under RLS; the
--    app's own JWT still cannot (deleting only the overrides it regrets would win back today's
--    count). Rules are configuration, not history, and stay. intercept_user_settings is the
--    app's to write already (its delete policy and grant are in the v2 migration).
GRANT DELETE ON public.intercept_sessions, public.intercept_turns, public.analytics_events,
  public.decision_records, public.weekly_summaries, public.intercept_user_clock
  TO persona_rails_function;
CREATE POLICY intercept_sessions_delete_own ON public.intercept_sessions FOR DELETE TO persona_rails_function
  USING ((SELECT auth.uid()) = user_id);
CREATE POLICY intercept_turns_delete_own ON public.intercept_turns FOR DELETE TO persona_rails_function
  USING ((SELECT auth.uid()) = user_id);
CREATE POLICY analytics_events_delete_own ON public.analytics_events FOR DELETE TO persona_rails_function
  USING ((SELECT auth.uid()) = user_id);
CREATE POLICY decision_records_delete_own ON public.decision_records FOR DELETE TO persona_rails_function
  USING ((SELECT auth.uid()) = user_id);
CREATE POLICY weekly_summaries_delete_own ON public.weekly_summaries FOR DELETE TO persona_rails_function
  USING ((SELECT auth.uid()) = user_id);
CREATE POLICY intercept_user_clock_delete_own ON public.intercept_user_clock FOR DELETE TO persona_rails_function
  USING ((SELECT auth.uid()) = user_id);

-- 2. What a purge leaves behind, and where it has been.
--    A turn's reason may be NULL exactly when it was purged.
ALTER TABLE public.intercept_turns
  ALTER COLUMN reason_text DROP NOT NULL,
  ADD COLUMN reason_purged_at timestamptz,
  ADD CONSTRAINT intercept_turns_reason_kept_or_purged CHECK ((reason_text IS NULL) = (reason_purged_at IS NOT NULL));
--    A session is purged once, whether it had anything to purge or not: the marker is what takes
--    it out of the purge's index, so each run reads only what became due since the last one.
ALTER TABLE public.intercept_sessions ADD COLUMN reasons_purged_at timestamptz;
CREATE INDEX intercept_sessions_reasons_due_idx ON public.intercept_sessions ((coalesce(closed_at, created_at)))
  WHERE reasons_purged_at IS NULL;
--    A purged LLM decision loses its raw reply (it can echo the reason), so the rule that an LLM
--    decision keeps its reply holds only until the purge.
ALTER TABLE public.decision_records
  ADD COLUMN inputs_purged_at timestamptz,
  DROP CONSTRAINT decision_records_llm_has_reply,
  ADD CONSTRAINT decision_records_llm_has_reply CHECK (
    CASE WHEN inputs_purged_at IS NULL THEN (source = 'llm') = (raw_reply IS NOT NULL)
         ELSE raw_reply IS NULL END);

-- 3. The retention purge. For every session closed more than p_retention_days ago (created, for
--    one never closed), the user's own words go: each turn's reason, the emergency reason, the
--    decision records' copies of them and the LLM's raw reply, the LLM's justification (written
--    from the reason), the events' copies, and the fingerprints hashed from those texts (a hash
--    of a short text can be guessed back). Categories, verdicts, confidences, decisions, times
--    and counts stay, and nothing the weekly summary reads changes.
--
--    Idempotent: a purged session is marked and never read again. p_limit bounds one call (NULL:
--    everything due) for a caller that commits batch by batch; SKIP LOCKED leaves a session
--    someone is writing right now to the next run. Returns the sessions purged by this call.
--    SECURITY INVOKER, run as service_role (which bypasses RLS) by the hourly tick.
CREATE FUNCTION public.intercept_purge_reasons(p_retention_days integer, p_limit integer DEFAULT NULL)
RETURNS integer
LANGUAGE plpgsql VOLATILE SECURITY INVOKER
SET search_path = ''
AS $$
DECLARE
  v_now timestamptz := clock_timestamp();
  v_purged integer;
BEGIN
  IF p_retention_days IS NULL OR p_retention_days < 1 THEN
    RAISE EXCEPTION 'p_retention_days must be at least 1, not %', p_retention_days USING ERRCODE = '22023';
  END IF;
  WITH due AS (
    SELECT s.user_id, s.id FROM public.intercept_sessions s
    WHERE s.reasons_purged_at IS NULL
      AND coalesce(s.closed_at, s.created_at) < v_now - make_interval(days => p_retention_days)
    ORDER BY coalesce(s.closed_at, s.created_at)
    LIMIT p_limit
    FOR UPDATE SKIP LOCKED
  ), turns AS (
    SELECT t.user_id, t.id FROM public.intercept_turns t JOIN due d ON t.user_id = d.user_id AND t.session_id = d.id
  ), subjects AS (
    SELECT d.user_id, 'intercept_session' AS subject_type, d.id FROM due d
    UNION ALL
    SELECT t.user_id, 'intercept_turn', t.id FROM turns t
  ), purged_sessions AS (
    UPDATE public.intercept_sessions s
    SET reasons_purged_at = v_now, emergency_reason = NULL,
        decision_fingerprint = CASE WHEN s.emergency_reason IS NULL THEN s.decision_fingerprint ELSE 'purged' END
    FROM due d
    WHERE s.user_id = d.user_id AND s.id = d.id
    RETURNING s.id
  ), purged_turns AS (
    UPDATE public.intercept_turns t
    SET reason_text = NULL, reason_purged_at = v_now, text_fingerprint = 'purged',
        justification = CASE WHEN t.source = 'llm' THEN 'llm: (purged)' ELSE t.justification END
    FROM turns p
    WHERE t.user_id = p.user_id AND t.id = p.id AND t.reason_purged_at IS NULL
  ), purged_records AS (
    UPDATE public.decision_records r
    SET inputs_purged_at = v_now, raw_reply = NULL,
        inputs = CASE WHEN jsonb_typeof(r.inputs -> 'appeal_of') = 'object'
                      THEN jsonb_set(r.inputs - 'reason_text' - 'emergency_reason', '{appeal_of}',
                                     (r.inputs -> 'appeal_of') - 'reason_text')
                      ELSE r.inputs - 'reason_text' - 'emergency_reason' END,
        output = CASE WHEN r.source = 'llm' AND r.output ? 'justification'
                      THEN jsonb_set(r.output, '{justification}', '"llm: (purged)"')
                      ELSE r.output END
    FROM subjects j
    WHERE r.subject_type = j.subject_type AND r.subject_id = j.id AND r.user_id = j.user_id
      AND r.function_name = 'InterceptSessionFunction' AND r.inputs_purged_at IS NULL
  ), purged_events AS (
    UPDATE public.analytics_events e
    SET properties = (e.properties - 'reason_text' - 'emergency_reason')
      || CASE WHEN jsonb_typeof(e.properties -> 'turns') = 'array' THEN jsonb_build_object('turns',
           (SELECT coalesce(jsonb_agg(CASE WHEN jsonb_typeof(x.turn) = 'object' THEN x.turn - 'reason_text'
                                           ELSE x.turn END ORDER BY x.n), '[]'::jsonb)
            FROM jsonb_array_elements(e.properties -> 'turns') WITH ORDINALITY AS x (turn, n)))
         ELSE '{}'::jsonb END
    FROM due d
    WHERE e.user_id = d.user_id AND e.subject_type = 'intercept_session' AND e.subject_id = d.id
  )
  -- Every data-modifying CTE runs to completion whether or not the final query reads it.
  SELECT count(*) INTO v_purged FROM purged_sessions;
  RETURN v_purged;
END
$$;
REVOKE ALL ON FUNCTION public.intercept_purge_reasons(integer, integer) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.intercept_purge_reasons(integer, integer) TO service_role;
