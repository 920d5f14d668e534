-- A role question ("Are you an actor?") is answered in role since issue 22: the turn's kind is
-- `in_role`, which the CHECK of 20261123000400_sps_encounters.sql did not list, so storing that
-- turn failed and the learner got a 500. The list is the engine's `Kind` again
-- (tests/integration/sps_encounter/test_turn_kinds.py keeps the two the same).
ALTER TABLE public.sps_turns
  DROP CONSTRAINT sps_turns_kind_check,
  ADD CONSTRAINT sps_turns_kind_check CHECK (kind IN ('refusal', 'dob_challenge', 'identity', 'misreading',
    'resolved', 'answer', 'decline', 'opening', 'narrative', 'clarification', 'acknowledgement', 'uncertain',
    'in_role'));
