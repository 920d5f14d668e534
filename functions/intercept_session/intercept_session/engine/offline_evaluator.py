"""The deterministic evaluator: used when no LLM is configured and whenever the LLM fails.

Category: the category scorer, a logistic regression over the folded text's n-grams and the
bilingual keyword counts (models/category.json, docs/judges.md), on the turn's own text (an
appeal's, not the first reason's). `emergency` is the emergency judge's to give
(engine/emergency.py, which reads both texts of an appeal): when the judge finds none, the
scorer's best other category stands. Verdict: from the category, the rule's trigger and how
specific the reason is. Confidence: the scorer's probability of the category, with 0.05 more for
a specific reason.
"""

from __future__ import annotations

import re

from intercept_session.engine.emergency import EmergencyJudgment
from intercept_session.engine.keywords import CATEGORY_KEYWORDS, matches
from intercept_session.engine.model import Category, Evaluation, EvaluationInput, Trigger, Verdict
from persona_rails.folding import fold
from persona_rails.local_model import LocalModel

# Numbers, clock times and durations ("10分钟", "3点", "5 min", "by 4pm") make a reason concrete.
_SPECIFIC = re.compile(
    r"\d+\s*(分钟|小时|点|号|min|mins|minutes|hours?|pm|am)|\d{1,2}:\d{2}|(今天|明天|马上|today|tonight|now)",
    re.IGNORECASE,
)
_SPECIFIC_MIN_LENGTH = 16


def category_features(text: str) -> dict[str, float]:
    """The keyword counts the category scorer weighs beside the n-grams."""
    folded = fold(text)
    return {
        f"keywords_{category.value}": float(found)
        for category, words in CATEGORY_KEYWORDS.items()
        if (found := len(matches(folded, words)))
    }


def classify(text: str, model: LocalModel, judgment: EmergencyJudgment) -> tuple[Category, float]:
    """The most probable category the judgment allows, and its probability."""
    probabilities = model.probabilities(text, category_features(text))
    if judgment.emergency:
        return Category.EMERGENCY, probabilities[Category.EMERGENCY.value]
    name, probability = max(
        ((name, p) for name, p in probabilities.items() if name != Category.EMERGENCY.value),
        key=lambda item: item[1],
    )
    return Category(name), probability


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


def evaluate_offline(request: EvaluationInput, model: LocalModel, judgment: EmergencyJudgment) -> Evaluation:
    # An appeal is classified by what it says (the judgment has read both texts already): the
    # first reason's words would drown the need the appeal now states.
    category, probability = classify(request.reason_text, model, judgment)
    specific = is_specific(request.reason_text)
    verdict, why = _verdict(category, request.trigger, specific)
    confidence = probability + (0.05 if specific and category is not Category.OTHER else 0.0)
    return Evaluation(
        verdict=verdict,
        confidence=round(min(confidence, 0.95), 3),
        category=category,
        justification=f"offline: {category.value} ({probability:.2f}); {why}",
    )
