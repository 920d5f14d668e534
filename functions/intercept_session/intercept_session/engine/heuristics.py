"""Post-processing applied to every evaluation, whichever source produced it (spec: LLM Decision Logic)."""

from __future__ import annotations

from dataclasses import replace

from intercept_session.engine.model import Category, Evaluation, Verdict
from intercept_session.engine.urgency import UrgencyRules, urgent_mentions

OVERRIDE_LIMIT = 3
EMERGENCY_MIN_CONFIDENCE = 0.9
# Enough to say why a message with keywords was no emergency, short of crowding the justification.
EXPLAINED_MENTIONS = 3


def apply_heuristics(
    evaluation: Evaluation, text: str, override_count_today: int, urgency: UrgencyRules
) -> Evaluation:
    """An urgent mention of an urgent keyword forces allow + emergency (docs/emergencies.md); a
    negated, hypothetical, past, routine or talked-about one does not, and the justification says
    which cue decided. Three or more overrides today downgrade allow.

    `override_count_today` must be the server's own count: a client's number never reaches here.
    """
    mentions = urgent_mentions(text, urgency)
    urgent = [mention for mention in mentions if mention.urgent]
    if urgent:
        return replace(
            evaluation,
            verdict=Verdict.ALLOW,
            emergency=True,
            category=Category.EMERGENCY,
            confidence=max(evaluation.confidence, EMERGENCY_MIN_CONFIDENCE),
            justification=f"{evaluation.justification} | {urgent[0].explain()}: allow",
        )
    explained = list(dict.fromkeys(mention.explain() for mention in mentions))[:EXPLAINED_MENTIONS]
    justification = "".join([evaluation.justification, *(f" | {line}" for line in explained)])
    if override_count_today >= OVERRIDE_LIMIT and evaluation.verdict is Verdict.ALLOW:
        # A real work or study need still gets a timed delay; anything else is denied.
        downgraded = Verdict.DELAY if evaluation.category in (Category.WORK, Category.STUDY) else Verdict.DENY
        return replace(
            evaluation,
            verdict=downgraded,
            emergency=False,
            justification=(
                f"{justification} | {override_count_today} overrides today: "
                f"allow downgraded to {downgraded.value}"
            ),
        )
    return replace(evaluation, emergency=False, justification=justification)
