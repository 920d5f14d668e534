"""Post-processing applied to every evaluation, whichever source produced it (spec: LLM Decision Logic)."""

from __future__ import annotations

from dataclasses import replace

from intercept_session.engine.emergency import EmergencyJudgment, Finding
from intercept_session.engine.model import Category, Evaluation, Verdict

OVERRIDE_LIMIT = 3
EMERGENCY_MIN_CONFIDENCE = 0.9


def apply_heuristics(
    evaluation: Evaluation, judgment: EmergencyJudgment, override_count_today: int
) -> Evaluation:
    """An emergency the judge finds forces allow + emergency (docs/judges.md); three or more
    overrides today downgrade any other allow; a reason the judge is in doubt about is never
    denied (the persona points to the emergency button instead). The justification says which.

    `override_count_today` must be the server's own count: a client's number never reaches here.
    """
    justification = f"{evaluation.justification} | emergency {judgment.explanation}"
    if judgment.emergency:
        return replace(
            evaluation,
            verdict=Verdict.ALLOW,
            emergency=True,
            category=Category.EMERGENCY,
            confidence=max(evaluation.confidence, EMERGENCY_MIN_CONFIDENCE),
            justification=f"{justification}: allow",
        )
    verdict = evaluation.verdict
    if override_count_today >= OVERRIDE_LIMIT and verdict is Verdict.ALLOW:
        # A real work or study need still gets a timed delay; anything else is denied.
        verdict = Verdict.DELAY if evaluation.category in (Category.WORK, Category.STUDY) else Verdict.DENY
        justification += f" | {override_count_today} overrides today: allow downgraded to {verdict.value}"
    doubt = judgment.finding is Finding.DOUBT
    if doubt and verdict is Verdict.DENY:
        verdict = Verdict.DELAY
        justification += " | a possible emergency is never denied: delay, and the emergency button"
    return replace(
        evaluation, verdict=verdict, emergency=False, emergency_doubt=doubt, justification=justification
    )
