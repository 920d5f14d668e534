"""What the persona says: the spec's templates, filled from the rule and kept within 60 characters."""

from __future__ import annotations

from typing import Literal

from intercept_session.engine.model import RecommendedAction, RuleContext, Verdict
from intercept_session.personas import MESSAGE_LIMIT, Persona
from persona_rails.templates import fit

# Free text may be shortened to fit; numbers never are.
_SHRINKABLE = ("app_display_name", "next_action")

RECOMMENDED_ACTION = {
    Verdict.DENY: RecommendedAction.COMPLY,
    Verdict.DELAY: RecommendedAction.ACCEPT_DELAY,
    Verdict.ALLOW: RecommendedAction.UNLOCK,
}
# The spec's UI notes: the verdict shows in a coloured badge.
Badge = Literal["red", "amber", "green"]
VERDICT_BADGE: dict[Verdict, Badge] = {Verdict.DENY: "red", Verdict.DELAY: "amber", Verdict.ALLOW: "green"}


def _fills(rule: RuleContext, app_display_name: str) -> dict[str, object]:
    return {
        "app_display_name": app_display_name,
        "next_action": rule.next_action,
        "delay_minutes": rule.delay_minutes,
        "remaining_minutes": rule.remaining_minutes,
    }


def challenge_message(persona: Persona, rule: RuleContext, app_display_name: str) -> str:
    return fit(persona.templates["challenge"], _fills(rule, app_display_name), MESSAGE_LIMIT, _SHRINKABLE)


def verdict_message(persona: Persona, verdict: Verdict, rule: RuleContext) -> str:
    return fit(
        persona.templates[verdict.value], _fills(rule, rule.app_display_name), MESSAGE_LIMIT, _SHRINKABLE
    )
