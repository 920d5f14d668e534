"""Post-processing applied to every evaluation, whichever source produced it (spec: LLM Decision Logic)."""

from __future__ import annotations

from dataclasses import replace

from intercept_session.engine.keywords import urgent_keywords
from intercept_session.engine.model import Category, Evaluation, Verdict

OVERRIDE_LIMIT = 3
EMERGENCY_MIN_CONFIDENCE = 0.9


def apply_heuristics(evaluation: Evaluation, text: str, override_count_today: int) -> Evaluation:
    """Urgent keywords force allow + emergency; three or more overrides today downgrade allow.

    `override_count_today` must be the server's own count: a client's number never reaches here.
    """
    urgent = urgent_keywords(text)
    if urgent:
        return replace(
            evaluation,
            verdict=Verdict.ALLOW,
            emergency=True,
            category=Category.EMERGENCY,
            confidence=max(evaluation.confidence, EMERGENCY_MIN_CONFIDENCE),
            justification=f"{evaluation.justification} | urgent keyword: allow",
        )
    if override_count_today >= OVERRIDE_LIMIT and evaluation.verdict is Verdict.ALLOW:
        # A real work or study need still gets a timed delay; anything else is denied.
        downgraded = Verdict.DELAY if evaluation.category in (Category.WORK, Category.STUDY) else Verdict.DENY
        return replace(
            evaluation,
            verdict=downgraded,
            emergency=False,
            justification=(
                f"{evaluation.justification} | {override_count_today} overrides today: "
                f"allow downgraded to {downgraded.value}"
            ),
        )
    return replace(evaluation, emergency=False)
