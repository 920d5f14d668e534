"""What the dialog's use cases read back from its rows: the engine's views of a session and a
rule, the persona as the session met it, the counts a start answers with, and the not-found errors
a row the caller cannot see becomes."""

from __future__ import annotations

from typing import Any

from intercept_session.engine import state_machine
from intercept_session.engine.access import RulePolicy
from intercept_session.engine.model import RuleContext, State, Verdict
from intercept_session.personas import Persona, personas
from intercept_session.schemas import AttemptCounts, PersonaOut
from persona_rails.errors import NotFound

Row = dict[str, Any]


def rule_context(rule: Row) -> RuleContext:
    return RuleContext(
        summary=rule["summary"],
        app_display_name=rule["app_display_name"],
        next_action=rule["next_action"],
        remaining_minutes=rule["remaining_minutes"],
        delay_minutes=rule["delay_minutes"],
    )


def session_view(session: Row) -> state_machine.SessionView:
    verdict = session["final_verdict"]
    return state_machine.SessionView(
        state=State(session["state"]),
        evaluation_turns=session["evaluation_turns"],
        final_verdict=Verdict(verdict) if verdict else None,
    )


def persona_view(persona: Persona, version: int) -> PersonaOut:
    return PersonaOut(
        key=persona.key,
        display_name=persona.display_name,
        avatar_asset_key=persona.avatar_asset_key,
        version=version,
    )


def persona_out(session: Row) -> PersonaOut:
    """The persona as the session met it: its version is the session's, not today's file's."""
    return persona_view(personas().get(session["persona_key"]), session["persona_version"])


def found_session(rows: list[Row], session_id: str) -> Row:
    if not rows:
        # A foreign session is invisible under RLS and reads exactly like an unknown one.
        raise NotFound("session_not_found", f"no session {session_id}", field="session_id")
    return rows[0]


def found_rule(rows: list[Row], rule_id: Any) -> Row:
    if not rows:
        raise NotFound("rule_not_found", f"no rule {rule_id} for this user", field="rule_id")
    return rows[0]


def rule_policy(rule: Row) -> RulePolicy:
    return RulePolicy(
        remaining_minutes=rule["remaining_minutes"],
        unlock_minutes=rule["unlock_minutes"],
        friction_growth_seconds=rule["friction_growth_seconds"],
        friction_cap_seconds=rule["friction_cap_seconds"],
        overrides_disabled_in_blocked_window=rule["overrides_disabled_in_blocked_window"],
        emergency_reason_required_past_allowance=rule["emergency_reason_required_past_allowance"],
    )


def attempt_counts(context: Row, *, opens_today: int) -> AttemptCounts:
    return AttemptCounts(
        opens_today=opens_today,
        overrides_today=context["overrides_today"],
        streak_days=context["streak_days"],
        emergencies_this_week=context["emergencies_this_week"],
        emergency_allowance=context["emergency_allowance"],
    )
