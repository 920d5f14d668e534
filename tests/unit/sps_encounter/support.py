"""Shared builders for the SPS engine's unit tests.

- `catalog_case` compiles a catalog scenario with a catalog persona, exactly as the service
  does (`sps_config()` and `case_of`).
- `inline_case` starts from a catalog document, applies an edit (a dict deep-merged into it, or
  a function), validates it as an inline document (`validated`) and compiles it: the way to get
  a scenario or persona with special data (agenda stacking, no DOB challenge, rates of 1.0).
- `bare_case` builds a `Case` without `compile_case`'s persona checks, for reaching the engine
  paths those checks make unreachable (anti-echo's filler trim).
- `Encounter` drives the pure engine turn by turn (`apply_learner_turn`, then
  `generate_patient_response`) and keeps the §11 transcript it produces.
- `copy_config` copies the engine's artifacts and a chosen subset of the catalog to a temporary
  directory, to break one thing per test; copying a subset keeps these tests independent of
  other catalog entries being added.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema_rs import Draft202012Validator

from sps_encounter.artifacts import CONFIG_DIR, SpsConfig, case_of, sps_config, validated
from sps_encounter.engine.case import Persona, Scenario
from sps_encounter.engine.compiled import Case, CompiledLanguage
from sps_encounter.engine.learner import LearnerTurn, apply_learner_turn
from sps_encounter.engine.respond import PatientResponse, generate_patient_response
from sps_encounter.engine.state import SPSRuntimeState, Verbosity, init_runtime_state

SEED = 20260501
SCENARIO = "chest-pain"
RESERVED = "en-reserved-brief"
TALKATIVE = "en-anxious-talkative"
SCHEMA_DIR = CONFIG_DIR / "schemas"

Edit = dict[str, Any] | Callable[[dict[str, Any]], None] | None


def config() -> SpsConfig:
    return sps_config()


def catalog_case(scenario: str = SCENARIO, persona: str = RESERVED) -> Case:
    cfg = config()
    return case_of(cfg, cfg.scenarios[scenario], cfg.personas[persona])


def scenario_document(scenario: str = SCENARIO) -> dict[str, Any]:
    return copy.deepcopy(config().scenarios[scenario].document)


def persona_document(persona: str = RESERVED) -> dict[str, Any]:
    return copy.deepcopy(config().personas[persona].document)


def _merge(document: dict[str, Any], changes: dict[str, Any]) -> None:
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(document.get(key), dict):
            _merge(document[key], value)
        else:
            document[key] = value


def _edited(document: dict[str, Any], edit: Edit) -> dict[str, Any]:
    if callable(edit):
        edit(document)
    elif edit:
        _merge(document, edit)
    return document


def inline_case(
    scenario: Edit = None,
    persona: Edit = None,
    *,
    scenario_id: str = SCENARIO,
    persona_id: str = RESERVED,
) -> Case:
    """A catalog scenario and persona with `scenario` and `persona` edits applied, validated as
    inline documents are and compiled with the shipped lexicon, policy and baseline rules."""
    cfg = config()
    scenario_doc = _edited(scenario_document(scenario_id), scenario)
    persona_doc = _edited(persona_document(persona_id), persona)
    return case_of(
        cfg, validated(scenario_doc, Scenario, "scenario"), validated(persona_doc, Persona, "persona")
    )


def bare_case(scenario: Edit = None, persona: Edit = None) -> Case:
    """A `Case` built directly, skipping `compile_case`'s persona checks (openers, disfluencies)."""
    cfg = config()
    scenario_value = Scenario.model_validate(_edited(scenario_document(), scenario))
    persona_value = Persona.model_validate(_edited(persona_document(), persona))
    language = CompiledLanguage.of(scenario_value.language, cfg.lexicon.languages[scenario_value.language])
    return Case(
        scenario_value, persona_value, cfg.policy, language, cfg.gold[scenario_value.language], "bare"
    )


def fresh_state(case: Case, seed: int = SEED, verbosity: Verbosity | None = None) -> SPSRuntimeState:
    return init_runtime_state(verbosity or case.persona.verbosity, seed)


def clone(state: SPSRuntimeState) -> SPSRuntimeState:
    """An independent copy, through the stored form (JSON text) the service keeps."""
    return SPSRuntimeState.from_json(json.loads(json.dumps(state.to_json())))


@dataclass
class Encounter:
    """One encounter played through the pure engine with the offline generator."""

    case: Case
    state: SPSRuntimeState
    transcript: list[dict[str, Any]] = field(default_factory=list)
    learners: list[LearnerTurn] = field(default_factory=list)
    responses: list[PatientResponse] = field(default_factory=list)

    def say(self, learner_text: str) -> PatientResponse:
        learner = apply_learner_turn(self.case, self.state, learner_text)
        response = generate_patient_response(self.case, self.state, learner)
        self.learners.append(learner)
        self.responses.append(response)
        self.transcript.append({"turnIndex": learner.turn_index, "role": "learner", "text": learner_text})
        self.transcript.append(
            {
                "turnIndex": response.meta["turnIndex"],
                "role": "patient",
                "text": response.text,
                "meta": response.meta,
            }
        )
        return response

    def play(self, learner_texts: Iterable[str]) -> list[PatientResponse]:
        return [self.say(text) for text in learner_texts]

    @property
    def learner(self) -> LearnerTurn:
        return self.learners[-1]

    def without_meta(self) -> list[dict[str, Any]]:
        return [{key: value for key, value in turn.items() if key != "meta"} for turn in self.transcript]


def encounter(case: Case | None = None, seed: int = SEED) -> Encounter:
    case = case or catalog_case()
    return Encounter(case, fresh_state(case, seed))


def folded(text: str) -> str:
    return text.casefold().replace("\u2019", "'")


def says_one_of(text: str, phrases: Iterable[str]) -> str | None:
    """The stored phrase `text` says (case-insensitively: an opener lowercases the first letter)."""
    body = folded(text)
    return next((phrase for phrase in phrases if folded(phrase) in body), None)


_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")


def first_two_words(text: str) -> str:
    """An utterance's opening bigram in English, computed here rather than by the engine."""
    return " ".join(_WORD.findall(folded(text))[:2])


def transcript(*turns: tuple[str, str] | tuple[str, str, dict[str, Any]]) -> list[dict[str, Any]]:
    """§11 turns from (role, text[, meta]) tuples, indexed 0, 1, 2, … in order."""
    built = []
    for index, turn in enumerate(turns):
        item: dict[str, Any] = {"turnIndex": index, "role": turn[0], "text": turn[1]}
        if len(turn) == 3:
            item["meta"] = turn[2]
        built.append(item)
    return built


def dialogue(*pairs: tuple[str, str]) -> list[dict[str, Any]]:
    """Learner/patient exchanges as a transcript: pair k gives turns 2k and 2k+1."""
    return transcript(
        *(turn for learner, patient in pairs for turn in (("learner", learner), ("patient", patient)))
    )


def load_schema(name: str) -> dict[str, Any]:
    return json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8"))


def schema_errors(schema: dict[str, Any], document: Any) -> list[str]:
    return [str(error) for error in Draft202012Validator(schema).iter_errors(document)]


def copy_config(
    destination: Path,
    scenarios: tuple[str, ...] = (SCENARIO,),
    personas: tuple[str, ...] = (RESERVED, TALKATIVE),
) -> Path:
    """The engine's artifacts and the named catalog entries, copied under `destination`."""
    target = destination / "config"
    (target / "scenarios").mkdir(parents=True)
    (target / "personas").mkdir()
    for name in ("lexicon.json", "policy.json", "gold-standard.json"):
        shutil.copyfile(CONFIG_DIR / name, target / name)
    for name in scenarios:
        shutil.copyfile(CONFIG_DIR / "scenarios" / f"{name}.json", target / "scenarios" / f"{name}.json")
    for name in personas:
        shutil.copyfile(CONFIG_DIR / "personas" / f"{name}.json", target / "personas" / f"{name}.json")
    return target


def edit_json(path: Path, change: Callable[[Any], None]) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    change(document)
    path.write_text(json.dumps(document, ensure_ascii=False, indent=2), encoding="utf-8")
