"""The spec's extensibility hooks (§13) under the spec's names, for library use.

    runtime = SpsRuntime("chest-pain")                    # a catalog id, or a Scenario document
    state = runtime.initRuntimeState(seed=42)          # or ("talkative", 42), the spec's order
    learner = runtime.applyLearnerTurn(state, "What brings you in today?")
    reply = runtime.generatePatientResponse(state, learner)   # {"text": ..., "meta": ...}
    result = validateTranscript(transcript, "chest-pain", "en-reserved-brief")

The engine functions they wrap take the compiled case explicitly (`engine.learner`,
`engine.respond`, `engine.validator`); these bind it once. `generatePatientResponse`'s context
is what `applyLearnerTurn` returned for the same turn. Nothing here touches the network.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sps_encounter.artifacts import SpsConfig, Versioned, case_of, sps_config, validated
from sps_encounter.engine.case import Persona, Scenario
from sps_encounter.engine.compiled import Case
from sps_encounter.engine.learner import LearnerTurn, apply_learner_turn
from sps_encounter.engine.respond import generate_patient_response
from sps_encounter.engine.state import SPSRuntimeState, Verbosity, init_runtime_state
from sps_encounter.engine.validator import validate_transcript

ScenarioArg = str | Mapping[str, Any]


def _document(config: SpsConfig, value: ScenarioArg, kind: str) -> Versioned:
    if isinstance(value, str):
        catalog = config.scenarios if kind == "scenario" else config.personas
        if value not in catalog:
            raise KeyError(f"no {kind} {value!r} in the catalog")
        return catalog[value]
    return validated(dict(value), Scenario if kind == "scenario" else Persona, kind)


def case_for(scenario: ScenarioArg, persona: ScenarioArg | None = None) -> Case:
    """A catalog id or an inline document for each; the persona defaults to the scenario's."""
    config = sps_config()
    found = _document(config, scenario, "scenario")
    return case_of(config, found, _document(config, persona or found.value.default_persona, "persona"))


class SpsRuntime:
    def __init__(self, scenario: ScenarioArg, persona: ScenarioArg | None = None) -> None:
        self.case = case_for(scenario, persona)

    def initRuntimeState(
        self, personaVerbosity: Verbosity | str | None = None, seed: int | None = None
    ) -> SPSRuntimeState:
        """The spec's argument order, `(personaVerbosity, seed)`; the verbosity defaults to the
        persona's. The seed is required: a replay needs it."""
        if seed is None:
            raise TypeError("initRuntimeState needs a seed (1…4294967295)")
        return init_runtime_state(personaVerbosity or self.case.persona.verbosity, seed)

    def applyLearnerTurn(self, state: SPSRuntimeState, learnerText: str) -> LearnerTurn:
        """As the API does: a learner turn is a non-empty string."""
        if not isinstance(learnerText, str):
            raise TypeError(f"learnerText must be a string, not {type(learnerText).__name__}")
        if not learnerText.strip():
            raise ValueError("learnerText is empty")
        return apply_learner_turn(self.case, state, learnerText)

    def generatePatientResponse(self, state: SPSRuntimeState, context: LearnerTurn) -> dict[str, Any]:
        response = generate_patient_response(self.case, state, context)
        return {"text": response.text, "meta": response.meta}


def validateTranscript(
    transcript: Sequence[Mapping[str, Any]], scenario: ScenarioArg, persona: ScenarioArg | None = None
) -> dict[str, Any]:
    return validate_transcript(transcript, case_for(scenario, persona))
