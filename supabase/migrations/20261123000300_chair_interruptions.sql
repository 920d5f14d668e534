-- Debate chairs interrupting each other (ChairInterruptFunction): cooldowns and the interrupt log.
--
-- A debate belongs to its owner: every row is keyed by (user_id, debate_id), so two owners'
-- debates never share cooldowns or statistics even if their ids collide, and a caller cannot
-- learn whether another owner's debate exists. Recording an interrupt claims the interrupting
-- chair's cooldown in the same statement (see the function's repository): of two concurrent
-- evaluations for one chair, only one can interrupt.

-- A debate's chairs (seat -> framework), from its evaluations: a chair may join, but a seat keeps
-- its framework and a framework its seat, so a renamed chair cannot escape its cooldown.
CREATE TABLE public.chair_debates (
  user_id uuid NOT NULL DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  debate_id uuid NOT NULL,
  -- {"chair_1": "utilitarianism", "chair_2": "virtue_ethics", ...}
  roster jsonb NOT NULL CHECK (jsonb_typeof(roster) = 'object'),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, debate_id)
);

CREATE TABLE public.chair_cooldowns (
  user_id uuid NOT NULL DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  debate_id uuid NOT NULL,
  chair_position text NOT NULL CHECK (chair_position ~ '^[A-Za-z0-9_-]{1,40}$'),
  last_interrupt_at timestamptz NOT NULL,
  -- The cooldown in force when the chair interrupted, so a reset can say whose was running.
  cooldown_seconds integer NOT NULL DEFAULT 0 CHECK (cooldown_seconds >= 0),
  PRIMARY KEY (user_id, debate_id, chair_position)
);

CREATE TABLE public.chair_interruptions (
  -- Also the id of the evaluation's decision record (kind chair.interrupt).
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  debate_id uuid NOT NULL,
  interrupting_chair text NOT NULL CHECK (interrupting_chair ~ '^[A-Za-z0-9_-]{1,40}$'),
  interrupted_chair text NOT NULL CHECK (interrupted_chair ~ '^[A-Za-z0-9_-]{1,40}$'),
  interrupting_framework text NOT NULL,
  interrupted_framework text NOT NULL,
  trigger_reason text NOT NULL CHECK (trigger_reason IN ('factual_correction', 'straw_man_detected',
    'direct_challenge', 'clarification_needed', 'strong_agreement', 'pivotal_point')),
  trigger_content text NOT NULL CHECK (char_length(trigger_content) <= 1000),
  urgency double precision NOT NULL CHECK (urgency BETWEEN 0 AND 1),
  suggested_opener text NOT NULL CHECK (char_length(suggested_opener) BETWEEN 1 AND 200),
  source text NOT NULL CHECK (source IN ('llm', 'offline')),
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT chair_interruptions_not_self CHECK (interrupting_chair <> interrupted_chair)
);
CREATE INDEX chair_interruptions_user_debate_idx ON public.chair_interruptions (user_id, debate_id, created_at);

ALTER TABLE public.chair_debates ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.chair_cooldowns ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.chair_interruptions ENABLE ROW LEVEL SECURITY;

CREATE POLICY chair_debates_select_own ON public.chair_debates FOR SELECT TO authenticated
  USING ((SELECT auth.uid()) = user_id);
CREATE POLICY chair_debates_insert_own ON public.chair_debates FOR INSERT TO persona_rails_function
  WITH CHECK ((SELECT auth.uid()) = user_id);
CREATE POLICY chair_debates_update_own ON public.chair_debates FOR UPDATE TO persona_rails_function
  USING ((SELECT auth.uid()) = user_id) WITH CHECK ((SELECT auth.uid()) = user_id);

CREATE POLICY chair_cooldowns_select_own ON public.chair_cooldowns FOR SELECT TO authenticated
  USING ((SELECT auth.uid()) = user_id);
CREATE POLICY chair_cooldowns_insert_own ON public.chair_cooldowns FOR INSERT TO persona_rails_function
  WITH CHECK ((SELECT auth.uid()) = user_id);
CREATE POLICY chair_cooldowns_update_own ON public.chair_cooldowns FOR UPDATE TO persona_rails_function
  USING ((SELECT auth.uid()) = user_id) WITH CHECK ((SELECT auth.uid()) = user_id);
CREATE POLICY chair_cooldowns_delete_own ON public.chair_cooldowns FOR DELETE TO persona_rails_function
  USING ((SELECT auth.uid()) = user_id);

CREATE POLICY chair_interruptions_select_own ON public.chair_interruptions FOR SELECT TO authenticated
  USING ((SELECT auth.uid()) = user_id);
CREATE POLICY chair_interruptions_insert_own ON public.chair_interruptions FOR INSERT TO persona_rails_function
  WITH CHECK ((SELECT auth.uid()) = user_id);

REVOKE ALL ON public.chair_debates, public.chair_cooldowns, public.chair_interruptions FROM anon, authenticated;
GRANT SELECT ON public.chair_debates, public.chair_cooldowns, public.chair_interruptions TO authenticated;
GRANT INSERT, UPDATE ON public.chair_debates TO persona_rails_function;
GRANT INSERT, UPDATE, DELETE ON public.chair_cooldowns TO persona_rails_function;
GRANT INSERT ON public.chair_interruptions TO persona_rails_function;
GRANT ALL ON public.chair_debates, public.chair_cooldowns, public.chair_interruptions TO service_role;
