"""What the persona says: the spec's templates, filled from the rule and kept within 60 characters."""

from __future__ import annotations

from typing import Literal

from intercept_session.engine.model import RecommendedAction, RuleContext, Verdict
from intercept_session.personas import MAX_DELAY_MINUTES, MESSAGE_LIMIT, Persona
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


def challenge_message(
    persona: Persona, rule: RuleContext, app_display_name: str, *, excess: bool = False
) -> str:
    """`excess`: the user's last emergency unlock went past their weekly allowance, and the
    challenge says so, kindly but plainly."""
    name = "challenge_excess" if excess else "challenge"
    return fit(persona.templates[name], _fills(rule, app_display_name), MESSAGE_LIMIT, _SHRINKABLE)


def verdict_message(persona: Persona, verdict: Verdict, rule: RuleContext) -> str:
    return fit(
        persona.templates[verdict.value], _fills(rule, rule.app_display_name), MESSAGE_LIMIT, _SHRINKABLE
    )


def emergency_message(persona: Persona) -> str:
    """What an emergency allow says instead of the allow template: care, with no reproach."""
    return fit(persona.templates["emergency"], {}, MESSAGE_LIMIT)


def emergency_doubt_message(persona: Persona) -> str:
    """What a reason that might be an emergency gets instead of a verdict's template: never a
    refusal, and the way to the emergency button, which unlocks at once."""
    return fit(persona.templates["emergency_doubt"], {}, MESSAGE_LIMIT)


def delayed_message(persona: Persona, minutes_left: int) -> str:
    """A start before an accepted delay ends. Minutes are shown rounded up by the caller; a value
    outside 1..MAX_DELAY_MINUTES (a clock skew, a rounding edge) is clamped, never an error."""
    minutes = min(max(minutes_left, 1), MAX_DELAY_MINUTES)
    return fit(persona.templates["delayed"], {"minutes_left": minutes}, MESSAGE_LIMIT)
