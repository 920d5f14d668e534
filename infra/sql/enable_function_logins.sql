-- Give the functions' database logins a password and LOGIN (run once per Supabase project, and
-- again to rotate a password). The roles and what they may become are a migration
-- (supabase/migrations/20261123000800_function_logins.sql); this script holds no secret itself:
--
--   psql "$ADMIN_DATABASE_URL" -v ON_ERROR_STOP=1 \
--     -v api_password="$(openssl rand -hex 24)" -v weekly_password="$(openssl rand -hex 24)" \
--     -f infra/sql/enable_function_logins.sql
--
-- ADMIN_DATABASE_URL is the `postgres` connection string of the project (session mode, port
-- 5432). Keep the two passwords: they go into the functions' DATABASE_URL secrets
-- (docs/deploy.md), e.g.
--   postgresql://persona_rails_api_login.<project-ref>:<api_password>@<pooler host>:6543/postgres
-- (Supabase's pooler takes `<role>.<project-ref>` as the user name; copy the host from the
-- dashboard's Connect dialog).

\if :{?api_password}
\else
  \echo 'set -v api_password=... (see the header of this file)'
  \quit
\endif
\if :{?weekly_password}
\else
  \echo 'set -v weekly_password=... (see the header of this file)'
  \quit
\endif

ALTER ROLE persona_rails_api_login WITH LOGIN PASSWORD :'api_password';
ALTER ROLE persona_rails_weekly_login WITH LOGIN PASSWORD :'weekly_password';
-- A ceiling on any one statement. Role settings apply on a direct or session-mode connection;
-- whether the transaction pooler applies them varies: check with `SHOW statement_timeout` on port
-- 6543. The functions' own timeout (PERSONA_RAILS_DB_TIMEOUT_SECONDS) holds either way.
ALTER ROLE persona_rails_api_login SET statement_timeout = '30s';
ALTER ROLE persona_rails_weekly_login SET statement_timeout = '10min';
