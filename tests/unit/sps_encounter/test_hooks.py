"""The spec's §13 hooks under the spec's names (`sps_encounter.hooks`), as a library user calls
them: the argument order of `initRuntimeState(personaVerbosity, seed)`, input checked up front
(not a KeyError turns later), and the same answers the engine gives."""

from __future__ import annotations

import pytest

from sps_encounter.engine.rng import ZeroSeed
from sps_encounter.engine.state import Verbosity
from sps_encounter.hooks import SpsRuntime, validateTranscript


def test_init_runtime_state_takes_the_spec_order_and_defaults_to_the_persona():
    runtime = SpsRuntime("chest-pain", "en-reserved-brief")
    spec_order = runtime.initRuntimeState("talkative", 42)
    assert spec_order.persona_verbosity is Verbosity.TALKATIVE
    assert spec_order.rng_seed == 42
    assert runtime.initRuntimeState(seed=42).persona_verbosity is Verbosity.BRIEF


@pytest.mark.parametrize("verbosity", ["chatty", "BRIEF", "", 3])
def test_an_unknown_verbosity_is_refused_at_once(verbosity):
    runtime = SpsRuntime("chest-pain")
    with pytest.raises(ValueError, match="personaVerbosity must be one of brief, balanced, talkative"):
        runtime.initRuntimeState(verbosity or "none", 4)


def test_the_seed_is_required_and_never_zero():
    runtime = SpsRuntime("chest-pain")
    with pytest.raises(TypeError, match="needs a seed"):
        runtime.initRuntimeState()
    with pytest.raises(ZeroSeed):
        runtime.initRuntimeState(seed=0)
    with pytest.raises(ZeroSeed):
        runtime.initRuntimeState(seed=2**32)
    with pytest.raises(TypeError, match="seed must be an integer"):
        runtime.initRuntimeState(seed=1.5)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_an_empty_learner_text_is_refused_as_the_api_refuses_it(text):
    runtime = SpsRuntime("chest-pain")
    state = runtime.initRuntimeState(seed=7)
    with pytest.raises(ValueError, match="learnerText is empty"):
        runtime.applyLearnerTurn(state, text)
    assert state.turn_index == 0


def test_a_learner_text_that_is_not_a_string_is_refused():
    runtime = SpsRuntime("chest-pain")
    with pytest.raises(TypeError, match="learnerText must be a string"):
        runtime.applyLearnerTurn(runtime.initRuntimeState(seed=7), None)  # type: ignore[arg-type]


def test_a_short_encounter_through_the_hooks_validates_clean_and_replays():
    def play() -> list[dict]:
        runtime = SpsRuntime("headache")
        state = runtime.initRuntimeState(seed=99)
        transcript: list[dict] = []
        for text in ["What brings you in today?", "When did they start?", "Any allergies?", "Tell me more."]:
            learner = runtime.applyLearnerTurn(state, text)
            transcript.append({"turnIndex": len(transcript), "role": "learner", "text": text})
            reply = runtime.generatePatientResponse(state, learner)
            transcript.append({"turnIndex": len(transcript), "role": "patient", **reply})
        return transcript

    transcript = play()
    assert transcript == play()
    result = validateTranscript(transcript, "headache")
    assert result["errors"] == []
    assert result["warnings"] == []
    assert result["summaryMetrics"]["totalPatientTurns"] == 4
