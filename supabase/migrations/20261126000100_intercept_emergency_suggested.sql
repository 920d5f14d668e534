-- The emergency judge (docs/judges.md) may be in doubt about a reason: the turn is then never
-- denied and the persona points to the emergency button. The turn records that it did.
ALTER TABLE public.intercept_turns
  ADD COLUMN emergency_suggested boolean NOT NULL DEFAULT false;
COMMENT ON COLUMN public.intercept_turns.emergency_suggested IS
  'the emergency judge could not rule an emergency out: the reply pointed to the emergency button';
