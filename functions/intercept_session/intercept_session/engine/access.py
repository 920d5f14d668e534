"""What a dialog grants and what a start may skip: unlock windows, enforced delays, escalating
friction and the weekly emergency allowance. Pure: every input is a stored fact read by the
service (never the client's), and the clock is an argument.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from intercept_session.engine.model import Decision, Trigger, Verdict

BASE_COUNTDOWN_SECONDS = 20  # the spec's auto-dismiss countdown
# An emergency unlocks for at least this long, even when the rule's window is spent (its
# remaining_minutes at 0) or midnight is near: safety first, and a second tap would count twice.
EMERGENCY_MIN_UNLOCK_MINUTES = 30


class UnlockKind(StrEnum):
    ALLOW = "allow"
    OVERRIDE = "override"
    EMERGENCY = "emergency"


@dataclass(frozen=True)
class RulePolicy:
    """What the user's rule opts into; every default is the spec's behaviour."""

    remaining_minutes: int
    unlock_minutes: int | None = None
    friction_growth_seconds: int | None = None
    friction_cap_seconds: int = 120
    overrides_disabled_in_blocked_window: bool = False
    emergency_reason_required_past_allowance: bool = False

    @property
    def unlock_window_minutes(self) -> int:
        return self.unlock_minutes if self.unlock_minutes is not None else self.remaining_minutes


def countdown_seconds(policy: RulePolicy, earlier_opens_today: int) -> int:
    """20 s, plus the rule's growth per earlier open of the app today, up to its cap."""
    if policy.friction_growth_seconds is None:
        return BASE_COUNTDOWN_SECONDS
    grown = BASE_COUNTDOWN_SECONDS + policy.friction_growth_seconds * max(0, earlier_opens_today)
    return max(BASE_COUNTDOWN_SECONDS, min(grown, policy.friction_cap_seconds))


def override_allowed(policy: RulePolicy, trigger: Trigger) -> bool:
    return not (policy.overrides_disabled_in_blocked_window and trigger is Trigger.BLOCKED_WINDOW)


def unlock_kind(
    decision: Decision, final_verdict: Verdict | None, *, emergency: bool, auto_dismissed: bool
) -> UnlockKind | None:
    """An emergency, an override, or going ahead on an allow unlocks the app; an auto-dismissed
    dialog (the user did nothing) never does. An allow forced by an urgent mention is an
    emergency unlock, and counts against the allowance like the button."""
    if decision is Decision.EMERGENCY:
        return UnlockKind.EMERGENCY
    if decision is Decision.OVERRIDE:
        return UnlockKind.OVERRIDE
    if decision is Decision.COMPLY and final_verdict is Verdict.ALLOW and not auto_dismissed:
        return UnlockKind.EMERGENCY if emergency else UnlockKind.ALLOW
    return None


def unlocked_until(closed_at: datetime, window_minutes: int, day_end: datetime, kind: UnlockKind) -> datetime:
    """The rule's window from the decision, never past the user's local midnight; an emergency
    gets at least EMERGENCY_MIN_UNLOCK_MINUTES whatever the rule and the hour."""
    until = min(closed_at + timedelta(minutes=window_minutes), max(day_end, closed_at))
    if kind is UnlockKind.EMERGENCY:
        until = max(until, closed_at + timedelta(minutes=EMERGENCY_MIN_UNLOCK_MINUTES))
    return until


def retry_after(closed_at: datetime, delay_minutes: int) -> datetime:
    return closed_at + timedelta(minutes=delay_minutes)


def over_allowance(emergencies_before: int, allowance: int) -> bool:
    """Whether one more emergency unlock this week goes past the allowance."""
    return emergencies_before >= allowance


def seconds_left(until: datetime, now: datetime) -> int:
    return max(1, math.ceil((until - now).total_seconds()))


def minutes_left(until: datetime, now: datetime) -> int:
    return max(1, math.ceil((until - now).total_seconds() / 60))
