"""One interviewer turn, in two pure steps around the (optional) LLM call.

`plan_turn` extracts the signals, routes, advances the loop, governs depth, applies the hard
stops and decides what the turn must do; `finish_turn` post-checks the candidate line (the
LLM's or the template's), replaces it if it breaks a constraint, adds the step-sideways option
and crisis guidance, measures it and builds the spec's turn contract with its telemetry.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from interview_turn.engine import depth as depth_governor
from interview_turn.engine.assisted import AssistedSignals, merge
from interview_turn.engine.config import InterviewConfig
from interview_turn.engine.depth import DepthDecision
from interview_turn.engine.evaluator import TokenCounter, measure
from interview_turn.engine.facts import remember
from interview_turn.engine.loops import advance
from interview_turn.engine.model import (
    DepthChange,
    HardStop,
    Language,
    Loop,
    Persona,
    Phase,
    Rule,
    SafetyAction,
    SessionState,
    TopicPlanItem,
    TopicState,
    TurnInput,
)
from interview_turn.engine.policy import Lines
from interview_turn.engine.render import (
    conflict_values,
    join,
    pick,
    pick_unsaid,
    remember_line,
    repeats_recent,
)
from interview_turn.engine.router import route
from interview_turn.engine.safety import attached_constraints, post_check
from interview_turn.engine.signals import PHASE_BY_DEPTH, Signals, extract
from persona_rails.errors import Conflict, Invalid

OPENING_RULE = "opening"
DEESCALATE_TACTIC = "stabilize_and_offer_choice"
REDIRECT_TACTIC = "redirect_topic"
PAUSE_TACTIC = "offer_a_pause"
OVERRIDE_TACTIC = "safe_fallback"
EMOTIONAL_MACHINE = "emotional_expansion"
HARD_STOP_TACTICS = {
    HardStop.STOP_REQUEST: "close_gracefully",
    HardStop.ACUTE_DISTRESS: "pause_and_ground",
    HardStop.SELF_HARM: "crisis_support",
}


@dataclass(frozen=True)
class Plan:
    """What the turn must do, decided before any text exists."""

    turn_no: int
    seed: int
    language: Language
    rule: str
    persona: Persona
    tactic: str
    lines: Lines
    values: dict[str, str]
    topic_id: str
    topic_changed: bool
    signals: Signals | None
    depth: DepthDecision | None
    depth_before: int
    depth_after: int
    phase: Phase
    loop_state: str | None
    loop_steps: int
    loop_capped: bool
    safety_action: SafetyAction
    hard_stop: HardStop | None
    step_sideways: bool
    crisis_guidance: str | None
    state_after: SessionState

    @property
    def uses_llm(self) -> bool:
        """Hard stops always speak the configured lines: crisis guidance is never improvised."""
        return self.hard_stop is None

    @property
    def said(self) -> tuple[str, ...]:
        """The session's lines before this turn (the plan's state already holds them)."""
        return self.state_after.said

    def offline_line(self) -> str:
        return pick_unsaid(self.lines, self.language, self.seed, self.values, self.said)


@dataclass(frozen=True)
class TurnOutcome:
    contract: dict[str, Any]
    signals: dict[str, Any] | None
    winning_rule: str
    telemetry: dict[str, Any]
    state_after: SessionState

    @property
    def closed_reason(self) -> str | None:
        hard_stop = self.telemetry["safety"]["hard_stop"]
        return str(hard_stop) if hard_stop else None


def topic_plan_item(state: SessionState, topic_id: str) -> TopicPlanItem | None:
    return next((item for item in state.topic_plan if item.topic_id == topic_id), None)


def topic_title(config: InterviewConfig, state: SessionState, topic_id: str) -> str:
    item = topic_plan_item(state, topic_id)
    if item is not None:
        return item.title
    if topic_id == config.router.session.default_topic_id:
        return config.router.session.default_topic_titles[state.language.value]
    return topic_id.replace("_", " ").replace("-", " ")


def next_topic(state: SessionState, current: str) -> str | None:
    """The next planned topic after `current` (wrapping), or None without another one to offer."""
    ids = [item.topic_id for item in state.topic_plan]
    if not ids or ids == [current]:
        return None
    start = ids.index(current) + 1 if current in ids else 0
    return ids[start % len(ids)] if ids[start % len(ids)] != current else ids[(start + 1) % len(ids)]


def resolve_topic(config: InterviewConfig, state: SessionState, requested: str | None) -> str:
    if requested is None or requested == state.topic_id:
        return state.topic_id
    if state.topic_plan and topic_plan_item(state, requested) is None:
        raise Invalid("unknown_topic", "topic_id is not in this session's topic plan", field="topic_id")
    if requested not in state.topics and len(state.topics) >= config.router.session.max_topics:
        raise Conflict(
            "topic_limit_reached",
            f"this session already has {config.router.session.max_topics} topics",
            state="topic_limit_reached",
        )
    return requested


def merged_signals(
    config: InterviewConfig, state: SessionState, turn: TurnInput, assisted: AssistedSignals
) -> Signals:
    """The heuristic signals of this answer with the model's scores merged in (assisted mode)."""
    topic_id = resolve_topic(config, state, turn.topic_id)
    topic = state.topic(topic_id)
    heuristic = extract(config, turn.user_text, topic_id=topic_id, topic=topic, turn_no=state.turn_no + 1)
    return merge(heuristic.signals, assisted, topic)


def crisis_guidance(config: InterviewConfig, state: SessionState) -> str:
    """The locale's line when it is written in the session's language (zh-CN for a Chinese
    session), else the language's own generic line: never a line the narrator cannot read."""
    guidance = config.constraints.crisis_guidance
    locale = state.locale or ""
    if locale.partition("-")[0] == state.language.value and locale in guidance:
        return guidance[locale]
    return guidance[state.language.value]


def initial_state(config: InterviewConfig, state: SessionState) -> SessionState:
    """A new session starts on its first planned topic, at depth 0."""
    topic = state.topic_plan[0].topic_id if state.topic_plan else config.router.session.default_topic_id
    return replace(state, topic_id=topic, topics={topic: TopicState()})


def plan_opening(config: InterviewConfig, state: SessionState, seed: int) -> Plan:
    lines = config.personas.personas[Persona.EMPATHY_BASE].tactics["warm_open"]
    values = {"name": state.narrator_name or "", "topic": topic_title(config, state, state.topic_id)}
    return Plan(
        turn_no=0,
        seed=seed,
        language=state.language,
        rule=OPENING_RULE,
        persona=Persona.EMPATHY_BASE,
        tactic="warm_open",
        lines=lines,
        values=values,
        topic_id=state.topic_id,
        topic_changed=False,
        signals=None,
        depth=None,
        depth_before=0,
        depth_after=0,
        phase=Phase.WARMUP,
        loop_state=None,
        loop_steps=0,
        loop_capped=False,
        safety_action=SafetyAction.NONE,
        hard_stop=None,
        step_sideways=False,
        crisis_guidance=None,
        state_after=state,
    )


def _base_tactic(decision: DepthDecision) -> str:
    if decision.escalated and decision.after >= 3:
        return "sensitive_with_consent"
    if decision.escalated and decision.after >= 2:
        return "invite_reflection"
    return "narrative_facilitation"


@dataclass(frozen=True)
class _Choice:
    """Who speaks and how: the persona, tactic and lines, the safety action and the loop."""

    persona: Persona
    tactic: str
    lines: Lines
    safety: SafetyAction
    next_topic_id: str | None = None
    loop_after: Loop | None = None
    loop_state: str | None = None
    loop_steps: int = 0
    loop_capped: bool = False


def _choose(
    config: InterviewConfig,
    state: SessionState,
    signals: Signals,
    rule: Rule,
    decision: DepthDecision,
    *,
    topic_id: str,
    same_topic: bool,
    given: frozenset[str] = frozenset(),
) -> _Choice:
    safety_lines = config.constraints
    if rule is Rule.SAFETY_OVERRIDE:
        persona = Persona.SAFETY_FALLBACK
        if signals.hard_stop is not None:
            stop = signals.hard_stop
            return _Choice(
                persona,
                HARD_STOP_TACTICS[stop],
                getattr(safety_lines.hard_stops, stop.value),
                SafetyAction.STOP,
            )
        if signals.pause_requested:
            return _Choice(persona, PAUSE_TACTIC, safety_lines.pause, SafetyAction.DEESCALATE)
        landing = next_topic(state, topic_id) if signals.topic_change_requested else None
        if landing is not None:
            return _Choice(persona, REDIRECT_TACTIC, safety_lines.redirect, SafetyAction.REDIRECT, landing)
        return _Choice(persona, DEESCALATE_TACTIC, safety_lines.deescalate, SafetyAction.DEESCALATE)
    if signals.emotion_score >= config.depth.distress_hard_stop_threshold:
        # Past the distress threshold, stabilize and offer a choice instead of probing further
        # (spec: Failure Handling); the winning rule stays on record, the depth holds.
        stabilize = config.machines.machines[EMOTIONAL_MACHINE].exit.fallback
        return _Choice(stabilize.persona, stabilize.tactic, stabilize.templates, SafetyAction.DEESCALATE)
    machine = config.router.routes[rule.value].state_machine
    if machine is None:
        tactic = _base_tactic(decision)
        return _Choice(
            Persona.EMPATHY_BASE,
            tactic,
            config.personas.personas[Persona.EMPATHY_BASE].tactics[tactic],
            SafetyAction.NONE,
        )
    step = advance(config.machines, machine, state.loop, same_topic=same_topic, given=given)
    return _Choice(
        step.persona,
        step.tactic,
        step.lines,
        SafetyAction.NONE,
        loop_after=step.loop_after,
        loop_state=step.loop_state,
        loop_steps=step.step,
        loop_capped=step.capped,
    )


def plan_turn(
    config: InterviewConfig,
    state: SessionState,
    turn: TurnInput,
    seed: int,
    signals: Signals | None = None,
) -> Plan:
    """`signals` replaces the heuristic extraction when the LLM-assisted mode merged its own."""
    if state.closed:
        raise Conflict("session_closed", "this interview session is closed", state="closed")
    if state.turn_no >= config.router.session.max_turns:
        raise Conflict(
            "turn_limit_reached", "this session has reached its turn limit", state="turn_limit_reached"
        )
    topic_id = resolve_topic(config, state, turn.topic_id)
    sensitive_consent = state.sensitive_consent if turn.sensitive_consent is None else turn.sensitive_consent
    topic = state.topic(topic_id)
    turn_no = state.turn_no + 1
    extraction = extract(config, turn.user_text, topic_id=topic_id, topic=topic, turn_no=turn_no)
    signals = signals or extraction.signals
    rule = route(signals, config.router.thresholds)
    governor = config.depth
    budget = depth_governor.budget_for(governor, topic_plan_item(state, topic_id), sensitive_consent)
    decision = depth_governor.govern(
        governor,
        signals,
        rule,
        topic,
        budget,
        last_turn_increased=state.last_increase,
        go_deeper=turn.go_deeper,
    )
    values = {
        "name": state.narrator_name or "",
        "topic": topic_title(config, state, topic_id),
        **conflict_values(signals.contradiction, state.language),
    }
    same_topic = topic_id == state.topic_id
    given_now = tuple(dict.fromkeys(fact.kind.value for fact in extraction.facts))
    choice = _choose(
        config,
        state,
        signals,
        rule,
        decision,
        topic_id=topic_id,
        same_topic=same_topic,
        given=frozenset((*given_now, *state.last_given)),
    )
    persona, tactic, lines, safety = choice.persona, choice.tactic, choice.lines, choice.safety
    hard_stop, next_topic_id = signals.hard_stop, choice.next_topic_id
    if next_topic_id is not None:
        values["next_topic"] = topic_title(config, state, next_topic_id)
    step_sideways = (
        hard_stop is None
        and persona is not Persona.SAFETY_FALLBACK
        and signals.emotion_score >= governor.step_sideways_emotion_threshold
    )

    clarified = topic.clarified
    if rule is Rule.CONTRADICTION_RESOLUTION and signals.contradiction is not None:
        clarified = (*clarified, signals.contradiction.key)[-config.lexicon.thresholds.max_facts_per_topic :]
    updated_topic = TopicState(
        depth=decision.after,
        escalations=topic.escalations + (1 if decision.escalated else 0),
        facts=remember(topic.facts, extraction.facts, config.lexicon.thresholds.max_facts_per_topic),
        clarified=clarified,
    )
    state_after = replace(
        state.with_topic(topic_id, updated_topic),
        sensitive_consent=sensitive_consent,
        topic_id=topic_id,
        turn_no=turn_no,
        last_increase=decision.escalated,
        loop=choice.loop_after,
        closed=hard_stop is not None,
        last_given=given_now,
    )
    depth_after = decision.after
    if next_topic_id is not None:
        # A redirect lands on the new topic no deeper than the refusal left the old one.
        landing = state_after.topic(next_topic_id)
        depth_after = min(landing.depth, decision.after)
        state_after = replace(
            state_after.with_topic(next_topic_id, replace(landing, depth=depth_after)), topic_id=next_topic_id
        )
    phase = Phase.CLOSE if hard_stop else PHASE_BY_DEPTH[depth_after]
    if signals.reflective and depth_after >= 1 and not hard_stop:
        phase = Phase.REFLECTION
    return Plan(
        turn_no=turn_no,
        seed=seed,
        language=state.language,
        rule=rule.value,
        persona=persona,
        tactic=tactic,
        lines=lines,
        values=values,
        topic_id=topic_id,
        topic_changed=not same_topic,
        signals=signals,
        depth=decision,
        depth_before=decision.before,
        depth_after=depth_after,
        phase=phase,
        loop_state=choice.loop_state,
        loop_steps=choice.loop_steps,
        loop_capped=choice.loop_capped,
        safety_action=safety,
        hard_stop=hard_stop,
        step_sideways=step_sideways,
        crisis_guidance=crisis_guidance(config, state) if hard_stop is HardStop.SELF_HARM else None,
        state_after=state_after,
    )


def finish_turn(
    config: InterviewConfig, plan: Plan, candidate: str, count_tokens: TokenCounter
) -> TurnOutcome:
    persona, tactic, safety = plan.persona, plan.tactic, plan.safety_action
    sideways = (
        pick(config.constraints.step_sideways, plan.language, plan.seed) if plan.step_sideways else None
    )
    line = candidate.strip()
    # A generated line the session said within the last few turns gives way to an unsaid template.
    repeat_replaced = repeats_recent(plan.said, line) and plan.uses_llm
    if repeat_replaced:
        line = plan.offline_line()
    # What the narrator reads is checked whole: the candidate with the lines the engine adds.
    text = join(plan.language, line, sideways, plan.crisis_guidance)
    metrics = measure(text, count_tokens)
    violations = post_check(config, text, persona, metrics)
    if violations:
        persona, tactic, safety = Persona.SAFETY_FALLBACK, OVERRIDE_TACTIC, SafetyAction.OVERRIDE
        fallbacks = config.constraints.fallbacks[violations[0].fallback]
        line = pick_unsaid(fallbacks, plan.language, plan.seed, plan.values, plan.said)
        text = join(plan.language, line, sideways, plan.crisis_guidance)
        metrics = measure(text, count_tokens)
    contract = {
        "persona_used": persona.value,
        "topic_id": plan.state_after.topic_id,
        "conversation_phase": plan.phase.value,
        "depth_level_before": plan.depth_before,
        "depth_level_after": plan.depth_after,
        "tactic_used": tactic,
        "loop_state": plan.loop_state,
        "safety_action": safety.value,
        "metrics": metrics.contract(),
        "response_text": text,
    }
    decision = plan.depth
    telemetry = {
        "routing": {
            "winning_rule": plan.rule,
            "planned_persona": plan.persona.value,
            "answered_topic_id": plan.topic_id,
            "topic_changed": plan.topic_changed,
        },
        "depth": {
            "before": plan.depth_before,
            "after": plan.depth_after,
            "decision": (decision.change if decision else DepthChange.HOLD).value,
            "reason": decision.reason if decision else OPENING_RULE,
            "max_depth": decision.budget.max_depth if decision else None,
            "max_escalations": decision.budget.max_escalations if decision else None,
            "escalations_used": plan.state_after.topic(plan.topic_id).escalations,
        },
        "safety": {
            "action": safety.value,
            "hard_stop": plan.hard_stop.value if plan.hard_stop else None,
            "violated_rule_ids": [v.rule_id for v in violations],
            "constraints_attached": [c.rule_id for c in attached_constraints(config, plan.persona)],
            "step_sideways_offered": plan.step_sideways,
            "crisis_guidance": plan.crisis_guidance is not None,
            "repeat_replaced": repeat_replaced,
        },
        "verbosity": metrics.verbosity(config.personas.personas[persona].verbosity.target_response_tokens),
        "loop": {"state": plan.loop_state, "steps_executed": plan.loop_steps, "capped": plan.loop_capped},
    }
    return TurnOutcome(
        contract=contract,
        signals=plan.signals.as_dict() if plan.signals else None,
        winning_rule=plan.rule,
        telemetry=telemetry,
        state_after=replace(plan.state_after, said=remember_line(plan.said, line)),
    )
