"""What a SnapStart init builds (`build_catalog_cases`, handler.py under `snapstart.snapshotting`)
leaves a restored copy's first validation nothing to compile: the catalog cases and the
validator's text rules of each language are compiled before the snapshot."""

from __future__ import annotations

import re
from re import _compiler as sre_compiler  # type: ignore[attr-defined]

import pytest

from sps_encounter.artifacts import build_catalog_cases, case_of, sps_config
from sps_encounter.engine.text_rules import text_rules
from sps_encounter.engine.validator import validate_transcript

# A reading asked for and a remembered one said, with a number in words: the text rules,
# the reading requests and the spoken-number rewriting all run.
TURNS = {
    "chest-pain": (
        "Can I check your blood pressure?",
        "Sure. It was one forty over ninety last week at the chemist.",
    ),
    "abdominal-pain-zh": ("我给您量一下血压。", "好的。上周在药店量是一百四十。"),
}


def test_after_the_snapshot_build_a_first_validation_compiles_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = sps_config()
    text_rules.cache_clear()
    re.purge()
    build_catalog_cases(config)
    compiled: list[str] = []
    real = sre_compiler.compile

    def counting(pattern, flags=0):  # type: ignore[no-untyped-def]
        compiled.append(pattern if isinstance(pattern, str) else pattern.pattern)
        return real(pattern, flags)

    monkeypatch.setattr(sre_compiler, "compile", counting)
    for scenario_id, (learner, patient) in TURNS.items():
        scenario = config.scenarios[scenario_id]
        case = case_of(config, scenario, config.personas[scenario.value.default_persona])
        transcript = [
            {"turnIndex": 0, "role": "learner", "text": learner},
            {"turnIndex": 1, "role": "patient", "text": patient},
        ]
        validate_transcript(transcript, case)
    assert compiled == []
