"""A golden 40-turn encounter per sample scenario, replayed deterministically.

Each file in `golden/` holds a scenario, a persona, a seed and 40 learner turns, and what the
engine answered when the file was written: every patient text and turn kind, and a digest of the
full meta (every variation decision and RNG draw). The tests check that:
- two plays from fresh states give an identical transcript and meta (determinism);
- a play whose state goes through its stored JSON between turns gives the same (what the
  service does: the state lives in Postgres between invocations);
- the answers are still the golden ones (an unintended change in the engine, the lexicon, the
  scenario or the persona shows here, turn by turn);
- the golden encounter validates with no error, no warning and no info, with and without meta.

After an intended change, rewrite the expected answers and read the diff before committing:

    SPS_GOLDEN_WRITE=1 .venv/bin/pytest tests/unit/sps_encounter/test_golden.py
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from sps_encounter.engine.learner import apply_learner_turn
from sps_encounter.engine.respond import generate_patient_response
from sps_encounter.engine.state import SPSRuntimeState, init_runtime_state
from sps_encounter.engine.validator import validate_transcript
from tests.unit.sps_encounter.support import catalog_case

GOLDEN_DIR = Path(__file__).parent / "golden"
GOLDEN_FILES = sorted(GOLDEN_DIR.glob("*.json"))
TURNS = 40


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def play(golden: dict[str, Any], *, through_json: bool = False) -> list[dict[str, Any]]:
    case = catalog_case(golden["scenario"], golden["persona"])
    state = init_runtime_state(case.persona.verbosity, golden["seed"])
    transcript: list[dict[str, Any]] = []
    for text in golden["learner_turns"]:
        if through_json:
            state = SPSRuntimeState.from_json(json.loads(json.dumps(state.to_json())))
        learner = apply_learner_turn(case, state, text)
        transcript.append({"turnIndex": learner.turn_index, "role": "learner", "text": text})
        response = generate_patient_response(case, state, learner)
        transcript.append(
            {
                "turnIndex": response.meta["turnIndex"],
                "role": "patient",
                "text": response.text,
                "meta": response.meta,
            }
        )
    return transcript


def digest(meta: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(meta, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


def expected_of(transcript: list[dict[str, Any]]) -> list[dict[str, str]]:
    return [
        {"text": turn["text"], "kind": turn["meta"]["kind"], "meta": digest(turn["meta"])}
        for turn in transcript
        if turn["role"] == "patient"
    ]


def test_there_is_a_golden_encounter_for_every_sample_scenario():
    from sps_encounter.artifacts import sps_config

    covered = {_load(path)["scenario"] for path in GOLDEN_FILES}
    assert covered == set(sps_config().scenarios)


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=[path.stem for path in GOLDEN_FILES])
def test_the_golden_encounter_replays_deterministically(path):
    golden = _load(path)
    assert len(golden["learner_turns"]) == TURNS
    first = play(golden)
    assert play(golden) == first
    assert play(golden, through_json=True) == first
    if os.environ.get("SPS_GOLDEN_WRITE"):
        golden["expected"] = expected_of(first)
        path.write_text(json.dumps(golden, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    expected = golden["expected"]
    assert len(expected) == TURNS
    for index, (got, want) in enumerate(zip(expected_of(first), expected, strict=True)):
        assert got == want, f"patient turn {index} (after: {golden['learner_turns'][index]!r})"


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=[path.stem for path in GOLDEN_FILES])
def test_the_golden_encounter_validates_clean_with_and_without_meta(path):
    golden = _load(path)
    transcript = play(golden)
    case = catalog_case(golden["scenario"], golden["persona"])
    for turns in (transcript, [{k: v for k, v in turn.items() if k != "meta"} for turn in transcript]):
        result = validate_transcript(turns, case)
        assert (result["errors"], result["warnings"], result["info"]) == ([], [], [])
        assert result["summaryMetrics"]["totalPatientTurns"] == TURNS
    kinds = {turn["meta"]["kind"] for turn in transcript if turn["role"] == "patient"}
    # The golden encounters exercise the rules, not only plain answers.
    assert {"dob_challenge", "identity", "refusal", "answer", "resolved"} <= kinds
    assert any(turn["meta"]["agendaRevealed"] for turn in transcript if turn["role"] == "patient")
