"""`generatePatientResponse` (spec §13): the patient's answer to the learner's turn, `{text, meta}`.

The answer is planned layer by layer in the precedence order of §1, higher layers first:

1. safety and contraindications: a guarded request gets a boundary, and nothing else happens;
2. scenario facts: the catalogs, the objective scripts, the presenting problem;
3. persona: privacy declines below the persona's rapport, tone and verbosity;
4. hidden agenda and one-off challenges (DOB challenge, misunderstanding);
5. baseline rules (`GOLD_STANDARD_SPS_INSTRUCTIONS`), which the offline phrasings obey by
   construction and the LLM is given;
6. stylistic variation: elaboration, disfluency, openers and anti-echo.

Conflict rule: a lower layer never states a fact the case does not hold. A question the case
has no fact for gets the persona's uncertainty, not an invention; an LLM phrasing that
contradicts a fact is replaced by the offline one (see `factcheck`).

`plan_response` draws the core (layers 1–4) and `finish_response` adds layers 4 and 6 around
it; between them the service may have the LLM phrase the core. Every draw before anti-echo is
the same with or without the LLM; anti-echo's depend on how the answer opens. A replay phrases
with the recorded reply, so it matches draw for draw.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from sps_encounter.engine.compiled import Case
from sps_encounter.engine.learner import LearnerTurn
from sps_encounter.engine.rng import choose, next_rng
from sps_encounter.engine.state import RAPPORT_ORDER, QuestionType, SPSRuntimeState
from sps_encounter.engine.variation import (
    STAGE_DIRECTION,
    ElaborationDecision,
    choose_fresh,
    disfluency_prefix,
    open_utterance,
    should_elaborate,
)


class Kind(StrEnum):
    REFUSAL = "refusal"
    DOB_CHALLENGE = "dob_challenge"
    IDENTITY = "identity"
    MISREADING = "misreading"
    RESOLVED = "resolved"
    ANSWER = "answer"
    DECLINE = "decline"
    OPENING = "opening"
    NARRATIVE = "narrative"
    CLARIFICATION = "clarification"
    ACKNOWLEDGEMENT = "acknowledgement"
    UNCERTAIN = "uncertain"
    IN_ROLE = "in_role"


# Replies that open themselves ("Oh, you mean…", "Sorry, what do you mean?", "Yeah. Thanks."):
# no opener is put before them unless anti-echo needs one.
SELF_OPENING = frozenset({Kind.RESOLVED, Kind.CLARIFICATION, Kind.ACKNOWLEDGEMENT})
# Answers that state case facts: the LLM may phrase them, and agenda clauses and elaborations
# ride on them.
FACTUAL = frozenset({Kind.ANSWER, Kind.RESOLVED, Kind.OPENING, Kind.NARRATIVE})


@dataclass
class Plan:
    learner: LearnerTurn
    kind: Kind
    core: str
    learner_text: str = ""
    facts: dict[str, str] = field(default_factory=dict)
    answered: tuple[str, ...] = ()
    declined: tuple[str, ...] = ()
    refusal: str | None = None
    clarification: str | None = None
    misunderstanding: dict[str, str] | None = None
    layers: list[dict[str, Any]] = field(default_factory=list)

    @property
    def phrasable(self) -> bool:
        return self.kind in FACTUAL


@dataclass(frozen=True)
class PatientResponse:
    text: str
    meta: dict[str, Any]


def _join(parts: list[str], case: Case) -> str:
    return ("" if case.language.value == "zh" else " ").join(part for part in parts if part)


def _rapport_at_least(state: SPSRuntimeState, level: str) -> bool:
    return RAPPORT_ORDER.index(state.rapport) >= [r.value for r in RAPPORT_ORDER].index(level)


def _facts(
    case: Case, state: SPSRuntimeState, learner: LearnerTurn, plan: Plan, extra_slots: tuple[str, ...] = ()
) -> list[str]:
    """Layer 2 (with layer 3's privacy): the phrasings of the facts asked for."""
    parts: list[str] = []
    persona = case.persona
    wanted = tuple(dict.fromkeys((*extra_slots, *learner.slots)))[: case.policy.max_slots_per_answer]
    answered: list[str] = []
    declined: list[str] = []
    unsure: list[str] = []
    if learner.age_request:
        templates = case.scenario.age_answers or case.lexicon.age_answers
        age = str(case.scenario.demographics.age)
        parts.append(choose(state, "other", templates, "age").format(age=age))
        plan.facts["age"] = age
        answered.append("age")
    for slot_id in wanted:
        slot = case.slot(slot_id)
        if slot.category in persona.privacy.guarded_categories and not _rapport_at_least(
            state, persona.privacy.open_at.value
        ):
            declined.append(slot_id)
            continue
        parts.append(choose(state, "other", slot.answers, f"answer:{slot_id}"))
        plan.facts[slot_id] = slot.value
        answered.append(slot_id)
    for slot_id in learner.objective[: case.policy.max_slots_per_answer]:
        objective = next(o for o in case.scenario.objective_catalog if o.id == slot_id)
        if learner.measurement:
            parts.append(objective.finding)
            plan.facts[slot_id] = objective.value
            answered.append(slot_id)
        elif objective.lay_answers:
            parts.append(choose(state, "other", objective.lay_answers, f"lay:{slot_id}"))
            answered.append(slot_id)
        else:
            window = state.tracking.recent_phrases
            parts.append(
                choose_fresh(state, "other", persona.pools.uncertain, window, f"uncertain:{slot_id}")
            )
            unsure.append(slot_id)
    for script_id in learner.scripts:
        script = next(s for s in case.scenario.objective_scripts if s.id == script_id)
        parts.append(choose(state, "other", script.lines, f"script:{script_id}"))
        answered.append(script_id)
    if declined:
        window = state.tracking.recent_phrases
        parts.append(choose_fresh(state, "decl", persona.pools.declines, window, "privacy_decline"))
        plan.layers.append({"layer": 3, "rule": "privacy", "slots": declined, "rapport": state.rapport.value})
    plan.answered = tuple(answered)
    plan.declined = tuple(declined)
    if answered:
        plan.layers.append({"layer": 2, "rule": "case_facts", "slots": answered})
    if unsure:
        plan.layers.append(
            {"layer": 1, "rule": "conflict_rule", "slots": unsure, "effect": "not known: uncertainty"}
        )
    return parts


def _refusal(case: Case, state: SPSRuntimeState, learner: LearnerTurn) -> Plan:
    """Layer 1: a boundary from the pool, outside the last 3 used."""
    pool = case.persona.pools.boundaries
    phrase = choose_fresh(state, "bound", pool, state.last_boundaries, "boundary")
    state.tracking.last_refusal = phrase
    layers: list[dict[str, Any]] = [{"layer": 1, "rule": "guardrail", "ids": list(learner.guardrails)}]
    return Plan(learner, Kind.REFUSAL, phrase, refusal=phrase, layers=layers)


def _in_role(case: Case, state: SPSRuntimeState, learner: LearnerTurn) -> Plan:
    """Layer 1: "Are you an actor?" is answered by the patient, puzzled, not by a refusal (which
    would confirm an exam); nothing else the turn asks for is answered or done."""
    line = choose(state, "other", case.lexicon.source.role_answers, "role_answer")
    state.tracking.last_refusal = None
    layers: list[dict[str, Any]] = [{"layer": 1, "rule": "stay_in_role", "ids": list(learner.guardrails)}]
    return Plan(learner, Kind.IN_ROLE, line, layers=layers)


def _identity(case: Case, state: SPSRuntimeState, learner: LearnerTurn) -> Plan:
    """§8: the first identity request meets the DOB challenge (if the case has one), once; the
    next request gets full compliance: name and date of birth."""
    scenario = case.scenario
    tracking = state.tracking
    challenge = scenario.dob_challenge
    if challenge is not None and not state.dob_challenge_used:
        line = choose(state, "decl", challenge.lines, "dob_challenge")
        state.dob_challenge_used = True
        tracking.dob_challenge_pending = True
        layers: list[dict[str, Any]] = [{"layer": 4, "rule": "dob_challenge", "style": challenge.style.value}]
        return Plan(learner, Kind.DOB_CHALLENGE, line, layers=layers)
    template = choose(state, "other", scenario.identity_answers, "identity")
    demographics = scenario.demographics
    state.identity_verified = True
    reasked = tracking.dob_challenge_pending
    tracking.dob_challenge_pending = False
    return Plan(
        learner,
        Kind.IDENTITY,
        template.format(name=demographics.name, dob=demographics.dob_spoken),
        facts={"name": demographics.name, "date_of_birth": demographics.date_of_birth.isoformat()},
        layers=[{"layer": 2, "rule": "identity", "after_challenge": reasked}],
    )


def _resolved(case: Case, state: SPSRuntimeState, learner: LearnerTurn, pending: str) -> Plan:
    """§8: the learner reframed after a misreading: realize, then answer what was meant."""
    item = next(m for m in case.scenario.misunderstandings if m.id == pending)
    plan = Plan(learner, Kind.RESOLVED, "", misunderstanding={"id": pending, "phase": "resolved"})
    realization = choose(state, "other", case.persona.pools.realizations, "realization")
    parts = _facts(case, state, learner, plan, extra_slots=(item.intended_slot,))
    plan.core = _join([realization, *parts], case)
    plan.layers.insert(0, {"layer": 4, "rule": "misunderstanding_resolved", "id": pending})
    return plan


def _misreading(case: Case, state: SPSRuntimeState, learner: LearnerTurn, item_id: str) -> Plan:
    item = next(m for m in case.scenario.misunderstandings if m.id == item_id)
    line = choose(state, "other", item.misreadings, "misreading")
    state.tracking.misunderstanding_pending = item.id
    state.tracking.misread.append(item.id)
    state.tracking.turns_since_misunderstanding = 0
    return Plan(
        learner,
        Kind.MISREADING,
        line,
        misunderstanding={"id": item.id, "phase": "misread"},
        layers=[{"layer": 4, "rule": "misunderstanding", "id": item.id}],
    )


def _without_facts(case: Case, state: SPSRuntimeState, plan: Plan) -> Plan:
    """Nothing in the catalogs was asked for: the presenting problem, a clarification, an
    acknowledgement, or (the conflict rule) uncertainty instead of an invented fact."""
    scenario, persona, learner = case.scenario, case.persona, plan.learner
    if learner.opening or (learner.question_type is QuestionType.NARRATIVE and not learner.vague):
        opening = learner.opening
        pool = (
            scenario.presenting_problem.opening_statements
            if opening
            else scenario.presenting_problem.narrative
        )
        plan.kind = Kind.OPENING if opening else Kind.NARRATIVE
        plan.core = choose(state, "other", pool, plan.kind.value)
        plan.facts["chief_complaint"] = scenario.presenting_problem.chief_complaint
        plan.layers.append({"layer": 2, "rule": "presenting_problem"})
    elif learner.vague:
        pool = persona.pools.clarifications
        phrase = choose_fresh(state, "clar", pool, state.last_clarifications, "clarification")
        plan.kind, plan.core, plan.clarification = Kind.CLARIFICATION, phrase, phrase
        plan.layers.append({"layer": 5, "rule": "clarify_vague_prompt"})
    elif learner.empathy_cues or learner.dismissive:
        # A remark that asks nothing: thanks for empathy, a short deferral to a dismissal.
        purpose = "deferral" if learner.dismissive else "acknowledgement"
        pool = persona.pools.deferrals if learner.dismissive else persona.pools.acknowledgements
        plan.kind = Kind.ACKNOWLEDGEMENT
        plan.core = choose_fresh(state, "other", pool, state.tracking.recent_phrases, purpose)
        plan.layers.append({"layer": 3, "rule": f"{purpose}_of_remark"})
    else:
        plan.kind = Kind.UNCERTAIN
        plan.core = choose_fresh(
            state, "other", persona.pools.uncertain, state.tracking.recent_phrases, "uncertain"
        )
        plan.layers.append(
            {"layer": 1, "rule": "conflict_rule", "effect": "no such fact: uncertainty, not invention"}
        )
    return plan


def plan_response(case: Case, state: SPSRuntimeState, learner: LearnerTurn, learner_text: str = "") -> Plan:
    """Layers 1–4: what the patient says at the core of this turn, highest layer first."""
    plan = _plan(case, state, learner)
    plan.learner_text = learner_text
    return plan


def _plan(case: Case, state: SPSRuntimeState, learner: LearnerTurn) -> Plan:
    tracking = state.tracking
    pending = tracking.misunderstanding_pending
    tracking.misunderstanding_pending = None
    if learner.role_question:
        return _in_role(case, state, learner)
    if learner.guardrails:
        return _refusal(case, state, learner)
    tracking.last_refusal = None
    if learner.identity_request:
        return _identity(case, state, learner)
    if pending is not None and learner.reframe:
        return _resolved(case, state, learner, pending)
    gap = case.policy.misunderstanding_gap_turns
    if learner.misunderstanding is not None and tracking.turns_since_misunderstanding >= gap:
        return _misreading(case, state, learner, learner.misunderstanding)
    plan = Plan(learner, Kind.ANSWER, "")
    parts = _facts(case, state, learner, plan)
    if not parts:
        return _without_facts(case, state, plan)
    plan.core = _join(parts, case)
    plan.kind = Kind.ANSWER if plan.answered else (Kind.DECLINE if plan.declined else Kind.UNCERTAIN)
    return plan


def _agenda(case: Case, state: SPSRuntimeState, plan: Plan) -> list[tuple[str, str]]:
    """§7: the pending items this answer is relevant to, one per turn unless the scenario
    allows stacking; never on a refusal (refusals are not factual), each item once."""
    if plan.kind not in FACTUAL:
        return []
    told: list[tuple[str, str]] = []
    tracking = state.tracking
    for item in case.scenario.hidden_agenda:
        if item.id not in tracking.agenda_pending or item.id in state.agenda_revealed:
            continue
        if item.relevant_slots and not set(item.relevant_slots) & set(plan.answered):
            continue
        # Layer 3 over layer 4: a clause in a category the persona guards waits for rapport.
        if item.category in case.persona.privacy.guarded_categories and not _rapport_at_least(
            state, case.persona.privacy.open_at.value
        ):
            continue
        clause = choose(state, "other", item.variants, f"agenda:{item.id}")
        told.append((item.id, clause))
        state.agenda_revealed.add(item.id)
        tracking.agenda_pending.remove(item.id)
        if not case.scenario.allow_agenda_stacking:
            break
    return told


def _elaboration(
    case: Case, state: SPSRuntimeState, plan: Plan, decision: ElaborationDecision, *, after_agenda: bool
) -> tuple[str | None, str | None]:
    """The elaboration told, or None and why not (when one was drawn for)."""
    if not decision.elaborate:
        return None, None
    if plan.kind not in FACTUAL:
        return None, "not_a_factual_answer"
    # An agenda clause is this answer's one addition (layer 4 over layer 6): an elaboration on top
    # would pile a second aside onto it, often about the same thing.
    if after_agenda:
        return None, "agenda_clause_told"
    allowance = case.policy.rapport.emotional_adjectives[state.rapport.value]
    material = [
        e.text
        for slot_id in plan.answered
        if slot_id in case.slots
        for e in case.slot(slot_id).elaborations
        if allowance > 0 or not e.emotional
    ] + [q.text for q in case.persona.quirks if allowance > 0 or not q.emotional]
    if not material:
        return None, "no_material"
    state.tracking.elaborated_turns += 1
    return choose(state, "other", material, "elaboration_text"), None


def finish_response(
    case: Case,
    state: SPSRuntimeState,
    plan: Plan,
    core: str,
    *,
    source: str = "offline",
    fact_check: dict[str, Any] | None = None,
    fallback_reason: str | None = None,
) -> PatientResponse:
    """Layers 4 and 6 around the core (the offline phrasing, or the LLM's once checked), then
    the state moves on: the patient's utterance takes `turnIndex`."""
    persona = case.persona
    learner = plan.learner
    tracking = state.tracking
    told = _agenda(case, state, plan)
    decision = should_elaborate(case, state, learner.question_type)
    elaboration, unsaid = _elaboration(case, state, plan, decision, after_agenda=bool(told))

    hedges: list[str] = []
    # No hesitation before a stage direction ("(Blood pressure: …)"): it is not the patient talking.
    may_hesitate = (
        persona.pools.disfluencies
        and not plan.core.startswith(STAGE_DIRECTION)
        and state.turns_since_hesitation >= case.policy.hesitation_gap_turns
    )
    if may_hesitate and next_rng(state, "disfluency") < persona.rates.disfluency:
        token = choose(state, "other", persona.pools.disfluencies, "disfluency_token")
        hedges.append(disfluency_prefix(token, case.language))
    state.turns_since_hesitation = 0 if hedges else state.turns_since_hesitation + 1

    body = _join([core, *(clause for _, clause in told), elaboration or ""], case)
    opening = open_utterance(case, state, hedges, body, voluntary=plan.kind not in SELF_OPENING)
    if told:
        plan.layers.append({"layer": 4, "rule": "hidden_agenda", "ids": [item for item, _ in told]})
    if elaboration:
        plan.layers.append({"layer": 6, "rule": "elaboration"})

    turn_index = state.turn_index
    state.turn_index += 1
    tracking.turns_since_misunderstanding += 1
    meta = {
        "turnIndex": turn_index,
        "kind": plan.kind.value,
        "questionType": learner.question_type.value,
        "eligible": decision.eligible,
        "elaborated": elaboration is not None,
        "elaboration": {**decision.to_json(), "unsaid": unsaid},
        "slots": dict(plan.facts),
        "answered": list(plan.answered),
        "declined": list(plan.declined),
        "refusal": plan.refusal,
        "guardrails": list(learner.guardrails),
        "clarification": plan.clarification,
        "agendaRevealed": [item for item, _ in told],
        "dobChallenge": plan.kind is Kind.DOB_CHALLENGE,
        "identityVerified": state.identity_verified,
        "misunderstanding": plan.misunderstanding,
        "disfluencies": [token.rstrip(",，") for token in hedges],
        "opening": opening.to_json(),
        "rapport": state.rapport.value,
        "rapportShift": learner.rapport_shift,
        "layers": plan.layers,
        "learner": learner.to_json(),
        "rng": list(state.draws),
        "source": source,
        "factCheck": fact_check,
        "fallbackReason": fallback_reason,
    }
    return PatientResponse(opening.text, meta)


def generate_patient_response(case: Case, state: SPSRuntimeState, learner: LearnerTurn) -> PatientResponse:
    """The offline generator: the patient's answer straight from the catalogs and pools."""
    plan = plan_response(case, state, learner)
    return finish_response(case, state, plan, plan.core)
