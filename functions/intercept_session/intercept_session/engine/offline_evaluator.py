"""The deterministic evaluator: used when no LLM is configured and whenever the LLM fails.

Category: bilingual keyword scores (urgent mentions weigh 3, others 1; a mention that is not
urgent, such as "我在医院上班", scores nothing, see docs/emergencies.md). Verdict: from the
category, the rule's trigger and how specific the reason is. Confidence: calibrated on the
evidence, 0.5 plus up to 0.4 for the margin between the top two categories and 0.05 for a
specific reason, so a lone weak keyword reads ~0.6 and a clear-cut reason ~0.9.
"""

from __future__ import annotations

import re

from intercept_session.engine.keywords import CATEGORY_KEYWORDS, matches
from intercept_session.engine.model import Category, Evaluation, EvaluationInput, Trigger, Verdict
from intercept_session.engine.urgency import UrgencyRules, urgent_keywords

URGENT_WEIGHT = 3.0
# Numbers, clock times and durations ("10分钟", "3点", "5 min", "by 4pm") make a reason concrete.
_SPECIFIC = re.compile(
    r"\d+\s*(分钟|小时|点|号|min|mins|minutes|hours?|pm|am)|\d{1,2}:\d{2}|(今天|明天|马上|today|tonight|now)",
    re.IGNORECASE,
)
_SPECIFIC_MIN_LENGTH = 16


def category_scores(text: str, urgency: UrgencyRules) -> dict[Category, float]:
    scores = {category: float(len(matches(text, words))) for category, words in CATEGORY_KEYWORDS.items()}
    scores[Category.EMERGENCY] = URGENT_WEIGHT * len(urgent_keywords(text, urgency))
    return scores


def classify(text: str, urgency: UrgencyRules) -> tuple[Category, float]:
    """The top category and the evidence margin (0..1) over the runner-up."""
    scores = category_scores(text, urgency)
    # Ties resolve in a fixed order: the more serious reading first.
    order = [Category.EMERGENCY, Category.WORK, Category.STUDY, Category.MENTAL_BREAK]
    ranked = sorted(order, key=lambda category: -scores[category])
    top, runner_up = ranked[0], ranked[1]
    if scores[top] == 0:
        return Category.OTHER, 0.0
    margin = (scores[top] - scores[runner_up]) / (scores[top] + 1.0)
    return top, round(margin + (1 - margin) * min(scores[top], 3) / 6, 3)


def is_specific(text: str) -> bool:
    return len(text) >= _SPECIFIC_MIN_LENGTH and bool(_SPECIFIC.search(text))


def _verdict(category: Category, trigger: Trigger, specific: bool) -> tuple[Verdict, str]:
    if category is Category.EMERGENCY:
        return Verdict.ALLOW, "emergency keywords: the rule yields"
    if category in (Category.WORK, Category.STUDY):
        if specific and trigger is not Trigger.BLOCKED_WINDOW:
            return Verdict.ALLOW, f"concrete {category.value} need with a time or quantity"
        if specific:
            return Verdict.DELAY, f"concrete {category.value} need, but inside a blocked window"
        return Verdict.DELAY, f"{category.value} need without specifics: a short delay first"
    if category is Category.MENTAL_BREAK:
        if trigger is Trigger.COOLDOWN_ACTIVE:
            return Verdict.DENY, "a break was just taken: the cooldown stands"
        return Verdict.DELAY, "a break is fair, but timed"
    return Verdict.DENY, "no recognisable need that outweighs the rule"


def evaluate_offline(request: EvaluationInput, urgency: UrgencyRules) -> Evaluation:
    text = request.full_text
    category, margin = classify(text, urgency)
    specific = is_specific(request.reason_text)
    verdict, why = _verdict(category, request.trigger, specific)
    if category is Category.OTHER:
        # No keyword at all: confident the reason is weak, more so when it is also short.
        confidence = 0.7 if len(text) < 30 else 0.6
    else:
        confidence = 0.5 + 0.4 * margin + (0.05 if specific else 0.0)
    return Evaluation(
        verdict=verdict,
        confidence=round(min(confidence, 0.95), 3),
        category=category,
        justification=f"offline: {category.value}; {why}",
    )
