-- Only the functions write the dialog's history.
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
