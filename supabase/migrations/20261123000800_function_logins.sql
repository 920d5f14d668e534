-- The database logins the deployed functions connect as: least privilege, never `postgres`.
--
-- Each login can do nothing by itself (NOINHERIT, no table grants): every transaction of the
-- functions starts with `set_config('role', …)` (persona_rails.db), and a login may only become
-- the roles granted to it here.
--
-- * persona_rails_api_login: the five HTTP functions. Becomes `persona_rails_function` (the
--   caller's RLS, the write grants of the dialogs' history) and nothing else: it cannot bypass
--   row-level security.
-- * persona_rails_weekly_login: WeeklySummaryFunction. Becomes `service_role` (every user's
--   sessions, to summarize them, close abandoned dialogs and purge old reasons) and
--   `persona_rails_function`.
--
-- The roles are created without LOGIN and without a password: a migration must not hold a
-- secret. `infra/sql/enable_function_logins.sql` gives each a password and LOGIN, run once per
-- project by whoever holds the `postgres` password (docs/deploy.md).

DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'persona_rails_api_login') THEN
    CREATE ROLE persona_rails_api_login NOLOGIN NOINHERIT;
  END IF;
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'persona_rails_weekly_login') THEN
    CREATE ROLE persona_rails_weekly_login NOLOGIN NOINHERIT;
  END IF;
END
$$;

GRANT persona_rails_function TO persona_rails_api_login;
GRANT persona_rails_function, service_role TO persona_rails_weekly_login;

COMMENT ON ROLE persona_rails_api_login IS
  'Login of the HTTP functions: may become persona_rails_function only (infra/sql/enable_function_logins.sql)';
COMMENT ON ROLE persona_rails_weekly_login IS
  'Login of WeeklySummaryFunction: may become service_role and persona_rails_function (infra/sql/enable_function_logins.sql)';
