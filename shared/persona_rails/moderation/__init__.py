"""Moderation: check a candidate reply before a persona says it (spec: intimacy-check.md).

The layer holds the whole service so that every function can check in-process (library mode);
`ModerationCheckFunction` is its HTTP face. One plugin per dimension; `intimacy` is the first.

- `lexicon.py`   the intimacy lexicon and stage-aware policy, versioned data (`config/intimacy.json`)
- `scoring.py`   pure: rule score, fusion, score -> label, the policy engine, stage mapping
"""
