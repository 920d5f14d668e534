"""Replay a stored patient turn (decision kind `sps.patient_turn`) with no network.

The engine runs again from the recorded state (seed included) on the same scenario and persona:
a catalog document is found by id and must still hash the same; an inline one, or a catalog
version that had already changed when the turn ran, was recorded whole. An LLM phrasing is
replayed from the recorded reply, checked again as it was then.
"""

from __future__ import annotations

from typing import Any

from persona_rails.decisions import DecisionRecord, NotReplayable
from sps_encounter import phrasing
from sps_encounter.artifacts import SpsConfig, Versioned, case_of, sps_config, validated
from sps_encounter.engine.case import Persona, Scenario
from sps_encounter.engine.state import SPSRuntimeState


def _document(config: SpsConfig, ref: dict[str, Any], kind: str) -> Versioned:
    if "document" in ref:
        return validated(ref["document"], Scenario if kind == "scenario" else Persona, kind)
    catalog = config.scenarios if kind == "scenario" else config.personas
    found = catalog.get(ref["id"])
    if found is None:
        raise NotReplayable(f"the {kind} {ref['id']} is no longer in the catalog")
    if found.content_hash != ref["hash"]:
        raise NotReplayable(f"the {kind} {ref['id']} has changed since this turn (was {ref['hash'][:12]})")
    return found


def replay(record: DecisionRecord) -> dict[str, Any]:
    config = sps_config()
    inputs = record.inputs
    case = case_of(
        config,
        _document(config, inputs["scenario"], "scenario"),
        _document(config, inputs["persona"], "persona"),
    )
    state = SPSRuntimeState.from_json(inputs["state"])
    reason = record.output.get("meta", {}).get("fallbackReason")
    taken = phrasing.take_turn(
        case,
        state,
        inputs["learner_text"],
        lambda plan: phrasing.replayed(case, plan, record.raw_reply, reason),
    )
    return {"text": taken.response.text, "meta": taken.response.meta}
