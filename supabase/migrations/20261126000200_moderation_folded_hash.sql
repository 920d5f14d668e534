-- Retrieval reuse that cannot override a model (docs/judges.md): an earlier decision is reused
-- for the same text after folding, or when no source that scored it would see a difference.
-- The SHA-256 of the folded text says which checks read the same text; rows written before this
-- column existed have none and are never reused for a different text.
ALTER TABLE public.moderation_checks
  ADD COLUMN folded_hash text CHECK (folded_hash ~ '^[0-9a-f]{64}$');
COMMENT ON COLUMN public.moderation_checks.folded_hash IS
  'SHA-256 of the checked text after persona_rails.folding.fold';
