"""`applyLearnerTurn` (spec §13): read the learner's utterance and update trigger tracking.

It classifies the question (closed, open, narrative), finds what it asks for (case facts,
measurements, examinations, identity), what it triggers (guardrails, hidden agenda,
misunderstandings) and how it treats the patient (empathy cues, dismissive interruptions), and
moves rapport (§6). What the patient says back is `respond`'s job.
"""

from __future__ import annotations

from dataclasses import dataclass

from sps_encounter.engine.compiled import Case
from sps_encounter.engine.state import RAPPORT_ORDER, QuestionType, SPSRuntimeState


@dataclass(frozen=True)
class LearnerTurn:
    turn_index: int
    question_type: QuestionType
    slots: tuple[str, ...]
    objective: tuple[str, ...]
    scripts: tuple[str, ...]
    measurement: bool
    identity_request: bool
    age_request: bool
    opening: bool
    vague: bool
    reframe: bool
    role_question: bool
    empathy_cues: tuple[str, ...]
    dismissive: bool
    guardrails: tuple[str, ...]
    agenda_triggered: tuple[str, ...]
    misunderstanding: str | None
    rapport_shift: str | None

    def to_json(self) -> dict[str, object]:
        return {
            "turnIndex": self.turn_index,
            "questionType": self.question_type.value,
            "slots": list(self.slots),
            "objective": list(self.objective),
            "scripts": list(self.scripts),
            "measurement": self.measurement,
            "identityRequest": self.identity_request,
            "ageRequest": self.age_request,
            "opening": self.opening,
            "vague": self.vague,
            "reframe": self.reframe,
            "roleQuestion": self.role_question,
            "empathyCues": list(self.empathy_cues),
            "dismissive": self.dismissive,
            "guardrails": list(self.guardrails),
            "agendaTriggered": list(self.agenda_triggered),
            "misunderstanding": self.misunderstanding,
            "rapportShift": self.rapport_shift,
        }


def question_type(case: Case, folded: str) -> QuestionType:
    """Narrative, else closed, else open, by the lexicon's patterns; closed when none matches."""
    found = case.lexicon.question_kinds.first(folded)
    return QuestionType(found[0]) if found is not None else QuestionType.CLOSED


def guardrails_hit(case: Case, folded: str) -> tuple[str, ...]:
    """The scenario's guardrails the turn hits (what the validator counts as unsafe requests)."""
    return case.guardrails.names(folded)


def refused_requests(case: Case, folded: str) -> tuple[str, ...]:
    """What the patient declines: the scenario's guardrails, then the lexicon's requests no case
    allows (take a tablet now, skip the examination, read another patient's notes)."""
    return tuple(dict.fromkeys((*case.guardrails.names(folded), *case.lexicon.unsafe_requests(folded))))


def empathy_cues(case: Case, folded: str) -> tuple[str, ...]:
    lexicon = case.lexicon
    if lexicon.empathy is None:
        return ()
    return tuple(
        dict.fromkeys(
            lexicon.empathy_ids[int(match.lastgroup[1:])]
            for match in lexicon.empathy.finditer(folded)
            if match.lastgroup
        )
    )


def _shift_rapport(case: Case, state: SPSRuntimeState) -> str | None:
    """§6: two distinct empathy cues since the last shift upgrade, two dismissive interruptions
    degrade, with two turns of cooldown between shifts. Cues and dismissals gathered during the
    cooldown count once it is over. When both are due, the dismissals win: a patient who was
    just cut off twice does not warm up."""
    rules = case.policy.rapport
    tracking = state.tracking
    if tracking.turns_since_rapport_shift <= rules.cooldown_turns:
        return None
    level = RAPPORT_ORDER.index(state.rapport)
    shift = None
    if tracking.dismissals >= rules.dismissals_to_degrade and level > 0:
        state.rapport, shift = RAPPORT_ORDER[level - 1], "down"
    elif len(tracking.empathy_cues) >= rules.empathy_cues_to_upgrade and level < len(RAPPORT_ORDER) - 1:
        state.rapport, shift = RAPPORT_ORDER[level + 1], "up"
    if shift is not None:
        tracking.empathy_cues.clear()
        tracking.dismissals = 0
        tracking.turns_since_rapport_shift = 0
    return shift


def apply_learner_turn(case: Case, state: SPSRuntimeState, learner_text: str) -> LearnerTurn:
    """Update `state` for the learner's utterance (it takes `turnIndex`, then the index moves on)."""
    folded = case.lexicon.fold(learner_text)
    lexicon = case.lexicon
    tracking = state.tracking
    turn_index = state.turn_index
    state.turn_index += 1
    state.draws = []

    guardrails = refused_requests(case, folded)
    cues = empathy_cues(case, folded)
    dismissive = bool(lexicon.dismissive.search(folded))
    tracking.turns_since_rapport_shift += 1
    for cue in cues:
        if cue not in tracking.empathy_cues:
            tracking.empathy_cues.append(cue)
    if dismissive:
        tracking.dismissals += 1
    shift = _shift_rapport(case, state)

    # §7: a trigger counts only on a turn without a safety refusal, and only once per item.
    triggered: tuple[str, ...] = ()
    if not guardrails:
        triggered = tuple(
            item_id
            for item_id, pattern in case.agenda_triggers
            if item_id not in state.agenda_revealed
            and item_id not in tracking.agenda_pending
            and pattern.search(folded)
        )
        tracking.agenda_pending.extend(triggered)

    # A patient who misread a question once and was put right does not misread it again.
    misunderstanding = next(
        (
            item_id
            for item_id, triggers, _ in case.misreading_triggers
            if item_id not in tracking.misread and triggers.search(folded)
        ),
        None,
    )
    pending = tracking.misunderstanding_pending
    reframes = next((extra for item_id, _, extra in case.misreading_triggers if item_id == pending), None)
    reframe = bool(lexicon.reframe.search(folded) or (reframes is not None and reframes.search(folded)))

    measurement = bool(lexicon.measurement.search(folded))
    objective = tuple(slot_id for slot_id, pattern in case.objective_match if pattern.search(folded))
    scripts = tuple(script_id for script_id, pattern in case.script_match if pattern.search(folded))
    # A learner measuring or examining is not taking history: "I'll check your blood pressure"
    # asks for the reading, not for the history slot that mentions blood pressure.
    examining = measurement and bool(objective or scripts)
    slots = (
        () if examining else tuple(slot_id for slot_id, pattern in case.slot_match if pattern.search(folded))
    )
    return LearnerTurn(
        turn_index=turn_index,
        question_type=question_type(case, folded),
        slots=slots,
        objective=objective,
        scripts=scripts,
        measurement=measurement,
        # §8: after the challenge, insisting ("it's hospital policy") is a clear re-ask too.
        identity_request=bool(
            lexicon.identity.search(folded)
            or (tracking.dob_challenge_pending and lexicon.reask.search(folded))
        ),
        age_request=bool(lexicon.age.search(folded)),
        opening=bool(lexicon.opening.search(folded)),
        vague=bool(lexicon.vague.search(folded)),
        reframe=reframe,
        role_question=bool(lexicon.role_question.search(folded)),
        empathy_cues=cues,
        dismissive=dismissive,
        guardrails=guardrails,
        agenda_triggered=triggered,
        misunderstanding=misunderstanding,
        rapport_shift=shift,
    )
