-- The runtime state of an SPS encounter is ephemeral (spec §2: "not persisted beyond session").
-- Until now an expired encounter's state was erased only when its owner started another
-- encounter, so a learner who never came back left theirs in place. The hourly housekeeping tick
-- (WeeklySummaryFunction, as service_role) now erases every expired state, in batches; the
-- transcript and the decision records stay, owner-readable, for QA and replay.

-- Finds expired encounters that still hold state, across all owners.
CREATE INDEX sps_encounters_expiry_idx ON public.sps_encounters (expires_at) WHERE state IS NOT NULL;

CREATE FUNCTION public.sps_erase_expired_states(p_limit integer DEFAULT NULL)
RETURNS integer
LANGUAGE sql VOLATILE SECURITY INVOKER
SET search_path = ''
AS $$
  WITH due AS (
    SELECT e.id FROM public.sps_encounters e
    WHERE e.state IS NOT NULL AND e.expires_at <= clock_timestamp()
    ORDER BY e.expires_at
    LIMIT p_limit
    -- A turn racing the erase holds the row: skip it, the next tick takes it.
    FOR UPDATE SKIP LOCKED
  ), erased AS (
    UPDATE public.sps_encounters e SET state = NULL, updated_at = now()
    FROM due d
    WHERE e.id = d.id
    RETURNING e.id
  )
  SELECT count(*)::integer FROM erased
$$;

REVOKE ALL ON FUNCTION public.sps_erase_expired_states(integer) FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.sps_erase_expired_states(integer) TO service_role;
