"""The layered prompt of the LLM path: the precedence order of §1, written out for the model.

The engine has already decided what this answer says (which facts, in which persona, at which
rapport); the model only phrases that core. Everything around it (agenda clause, elaboration,
hesitation, opener) is added afterwards from stored phrases, so the variation rules hold with
or without the model, and a replay draws the same numbers.
"""

from __future__ import annotations

import json

from pydantic import BaseModel, ConfigDict, Field

from sps_encounter.engine.case import Language
from sps_encounter.engine.compiled import Case
from sps_encounter.engine.respond import Kind, Plan
from sps_encounter.engine.state import SPSRuntimeState

MAX_TOKENS = 300
TEMPERATURE = 0.4
REPLY_MAX_CHARS = 600
_SPOKEN = {Language.EN: "English", Language.ZH: "Simplified Chinese"}


class PatientReply(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1, max_length=REPLY_MAX_CHARS)


def _lines(items: list[str]) -> str:
    return "\n".join(f"- {item}" for item in items) if items else "- (none)"


def messages(case: Case, state: SPSRuntimeState, plan: Plan, learner_text: str) -> list[dict[str, str]]:
    scenario, persona = case.scenario, case.persona
    demographics = scenario.demographics
    guardrails = [
        g.note for g in (*scenario.guardrails, *scenario.objective_guardrails, *scenario.contraindications)
    ]
    facts = [f"{slot}: {value}" for slot, value in plan.facts.items()]
    allowance = case.policy.rapport.emotional_adjectives[state.rapport.value]
    challenge = (
        ["The learner has just cleared up a question you misheard: start by showing you now understand."]
        if plan.kind is Kind.RESOLVED
        else []
    )
    system = f"""You are the patient in a medical-education history-taking encounter. Six layers follow, highest first. A higher layer always wins: if a lower layer conflicts with a higher one, leave the lower one out. Never state a fact that contradicts or goes beyond CASE FACTS; when you cannot answer without inventing, say you are not sure.

LAYER 1: SAFETY AND CONTRAINDICATIONS
{_lines(guardrails)}

LAYER 2: CASE FACTS (the only facts this answer may state)
- Presenting problem: {scenario.presenting_problem.chief_complaint}
{_lines(facts)}
- The case's own phrasing of this answer: {json.dumps(plan.core, ensure_ascii=False)}

LAYER 3: PERSONA
- {demographics.name}, {demographics.age}, {demographics.sex}{", " + demographics.occupation if demographics.occupation else ""}.
- Tone: {persona.tone.value}. Verbosity: {persona.verbosity.value}. Quirks: {"; ".join(q.text for q in persona.quirks) or "none"}.
- Rapport with the learner: {state.rapport.value}. Use at most {allowance} emotional adjective(s).

LAYER 4: THIS TURN
{_lines(challenge)}

LAYER 5: BASELINE RULES
{_lines([rule.text for rule in case.gold_rules])}

LAYER 6: STYLE
- At most {persona.answer_sentences} sentence(s), in {_SPOKEN[case.language]}, first person.
- No hesitation sounds and no opening filler word: those are added separately.

Reply with JSON only: {{"text": "<the patient's answer>"}}."""
    return [{"role": "system", "content": system}, {"role": "user", "content": learner_text}]
