"""The SPS benchmark's targets and sizes, its seeded learner utterances (texts.py), and transcripts
played by the real engine offline (docs/benchmarks.md, "SPS encounter"). A learner never sends the
same text twice in a row: the service would answer the second as a retry of the first."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from bench.sps_encounter.texts import EN, EN_PREFIXES, ZH

if TYPE_CHECKING:
    from sps_encounter.artifacts import SpsConfig
    from sps_encounter.engine.compiled import Case

FUNCTION_ID = "SpsEncounterFunction"
SEED = 20261126

# Targets (issue 10, item 8).
VALIDATE_TARGET_MS = 200.0  # validate_transcript on a 10,000-turn transcript
TARGET_TURNS = 10_000
LINEAR_RATIO_TARGET = 1.25  # per-turn cost at a larger size over the smallest: "≈ 1"
P50_TARGET_MS = 5.0  # a patient turn through the handler, offline generator

# How often each kind of learner utterance comes up.
KIND_WEIGHTS = {
    "history": 0.44,
    "narrative": 0.07,
    "opening": 0.03,
    "vague": 0.06,
    "empathy": 0.06,
    "dismissive": 0.03,
    "identity": 0.03,
    "exam": 0.08,
    "guardrail": 0.04,
    "misreading": 0.03,
    "reframe": 0.03,
    "off_catalog": 0.10,
}
COMPOUND_SHARE = 0.12  # of history questions, two asked at once
PREFIX_SHARE = 0.15  # of English questions, after "Okay," / "So," ...
CURLY_SHARE = 0.2  # of English texts with an apostrophe, typed with ’ instead
REFRAME_AFTER_MISREADING = 0.6  # of ambiguous questions, followed by a reframe
CORPUS = {"en": EN, "zh": ZH}


def learner_text(rng: random.Random, language: str) -> tuple[str, str]:
    """One learner utterance: (kind, text)."""
    kinds, weights = zip(*KIND_WEIGHTS.items(), strict=True)
    kind = rng.choices(kinds, weights)[0]
    pool = CORPUS[language][kind]
    text = rng.choice(pool)
    if kind == "history" and rng.random() < COMPOUND_SHARE:
        second = rng.choice(pool)
        if second != text:
            text = f"{text} {second}" if language == "en" else text + second
    if language == "en":
        if rng.random() < PREFIX_SHARE:
            text = rng.choice(EN_PREFIXES) + text[0].lower() + text[1:]
        if "'" in text and rng.random() < CURLY_SHARE:
            text = text.replace("'", "\u2019")
    return kind, text


def learner_stream(rng: random.Random, language: str, count: int) -> list[str]:
    """`count` utterances, never the same text twice in a row; an ambiguous question is often
    followed by a reframe, as a learner does when the patient misreads it."""
    made: list[tuple[str, str]] = []
    while len(made) < count:
        if made and made[-1][0] == "misreading" and rng.random() < REFRAME_AFTER_MISREADING:
            kind, text = "reframe", rng.choice(CORPUS[language]["reframe"])
        else:
            kind, text = learner_text(rng, language)
        if not made or made[-1][1] != text:
            made.append((kind, text))
    return [text for _, text in made]


@dataclass(frozen=True)
class CaseRef:
    scenario_id: str
    persona_id: str
    language: str
    default: bool  # the scenario's default persona

    @property
    def label(self) -> str:
        return f"{self.scenario_id} / {self.persona_id}"


def catalog_cases(config: SpsConfig) -> list[CaseRef]:
    """Every catalog scenario with every catalog persona of its language, the default first."""
    found: list[CaseRef] = []
    for scenario_id, scenario in config.scenarios.items():
        language = scenario.value.language.value
        default = scenario.value.default_persona
        others = sorted(
            persona_id
            for persona_id, persona in config.personas.items()
            if persona.value.language.value == language and persona_id != default
        )
        found.extend(
            CaseRef(scenario_id, persona_id, language, persona_id == default)
            for persona_id in (default, *others)
        )
    if not {ref.language for ref in found} >= set(CORPUS):
        raise RuntimeError(f"the catalog lacks a scenario in {set(CORPUS)}: {[r.label for r in found]}")
    return found


def compiled(config: SpsConfig, ref: CaseRef) -> Case:
    from sps_encounter.artifacts import case_of

    return case_of(config, config.scenarios[ref.scenario_id], config.personas[ref.persona_id])


def play(
    config: SpsConfig, ref: CaseRef, seed: int, learner_turns: int, rng: random.Random
) -> list[dict[str, Any]]:
    """A transcript in §11's format as the validator receives it (JSON-decoded dicts): one
    encounter of `learner_turns` learner utterances (so twice as many transcript turns), the
    engine answering each offline, as the service does with no LLM configured."""
    from persona_rails.settings import LlmSettings
    from sps_encounter import phrasing
    from sps_encounter.engine.state import init_runtime_state

    case = compiled(config, ref)
    llm = LlmSettings.model_validate({})
    if llm.configured:
        raise RuntimeError("an LLM is configured: the benchmark plays the offline generator")
    state = init_runtime_state(case.persona.verbosity, seed)
    turns: list[dict[str, Any]] = []
    for text in learner_stream(rng, ref.language, learner_turns):
        offline = partial(phrasing.phrase, case, llm, state, learner_text=text)
        taken = phrasing.take_turn(case, state, text, offline)
        meta = taken.response.meta
        turns.append({"turnIndex": taken.learner_index, "role": "learner", "text": text})
        turns.append(
            {"turnIndex": meta["turnIndex"], "role": "patient", "text": taken.response.text, "meta": meta}
        )
    # As the service receives a transcript: decoded from JSON text, nothing shared with the engine.
    return json.loads(json.dumps(turns, ensure_ascii=False))


def without_meta(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same transcript as an external tool would send it: text only, the text-only rules run."""
    return [{key: value for key, value in turn.items() if key != "meta"} for turn in turns]


@dataclass(frozen=True)
class Settings:
    # 1. Transcript sizes (turns = utterances, learner and patient) and timed runs per size; every
    # catalog persona of the scenario's language, or only its default persona. The largest size
    # is played for the default personas only (the others stop at the next size).
    sizes: tuple[int, ...] = (1_000, 10_000, 100_000)
    runs: tuple[int, ...] = (11, 7, 3)
    all_personas: bool = True
    # 2. Patient turns through the handler.
    turns: int = 1000  # measured
    warmup: int = 100
    owners: int = 10
    open_encounters: int = 8  # in progress at once; turns rotate over them
    encounter_turns: tuple[int, int] = (10, 60)  # an encounter's learner turns, drawn uniformly


QUICK = Settings(
    sizes=(1_000, 10_000),
    runs=(5, 3),
    all_personas=False,
    turns=200,
    warmup=30,
    owners=4,
    open_encounters=4,
    encounter_turns=(10, 30),
)
