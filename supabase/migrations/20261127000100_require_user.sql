-- Every transaction the functions run for a user starts by checking that the user exists.
--
-- A token outlives the account it names (a deleted user's token is valid until it expires), and
-- a service-role caller names any `user_id` it likes. Without this check such a request met the
-- first foreign key into auth.users as a 500, or read "nothing" and answered as if the user had
-- no rows. `persona_rails.db` calls this function in the statement that sets the transaction's
-- role and claims, so the check costs no round trip; its SQLSTATE (PRU01) becomes
-- 404 user_not_found on every route of every function.
--
-- SECURITY DEFINER: the functions' logins and roles cannot read auth.users, and must not.

CREATE SCHEMA IF NOT EXISTS persona_rails_private;
REVOKE ALL ON SCHEMA persona_rails_private FROM PUBLIC;

CREATE FUNCTION persona_rails_private.require_user(p_user_id text)
RETURNS boolean
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = ''
AS $$
BEGIN
  IF p_user_id IS NULL
     OR p_user_id !~ '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'
     OR NOT EXISTS (SELECT 1 FROM auth.users u WHERE u.id = p_user_id::uuid) THEN
    RAISE EXCEPTION 'no such user' USING ERRCODE = 'PRU01';
  END IF;
  RETURN true;
END
$$;

REVOKE ALL ON FUNCTION persona_rails_private.require_user(text) FROM PUBLIC;
GRANT USAGE ON SCHEMA persona_rails_private
  TO persona_rails_function, persona_rails_api_login, persona_rails_weekly_login;
GRANT EXECUTE ON FUNCTION persona_rails_private.require_user(text)
  TO persona_rails_function, persona_rails_api_login, persona_rails_weekly_login;

COMMENT ON FUNCTION persona_rails_private.require_user(text) IS
  'Raises PRU01 (404 user_not_found) unless auth.users holds this id; called by persona_rails.db at the start of each user transaction';
