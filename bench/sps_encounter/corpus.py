"""The SPS benchmark's constants, its seeded corpus of learner questions, and transcripts played
by the real engine offline.

A learner takes a history from a simulated patient: questions about the presenting problem and
the usual history headings (onset, site, character, radiation, triggers, relief, associated
symptoms, history, medication, allergies, family, smoking, alcohol, work, concerns), asked in
several wordings, sometimes two at once, sometimes after "Okay," or "So,"; open and narrative
prompts; the opening question; vague prompts ("Anything else?"); empathy and dismissive remarks;
identity checks (name, date of birth); examinations and measurements; probes the case's
guardrails refuse (role breaks, invasive or intimate examinations, contraindicated actions);
ambiguous questions the case misreads and the reframes after them; and questions no case fact
answers. English and Chinese (a few Chinese questions in Traditional characters, a few English
ones with a typographic apostrophe). The questions are generic: every catalog scenario of the
language gets the same corpus, so a new scenario is measured without an edit here.

`play` runs the engine as the service does with no LLM configured (`phrasing.take_turn`, the
phrasing `phrasing.phrase` with unconfigured settings: the offline generator), so every patient
turn carries the engine's `meta`. A learner never sends the same text twice in a row (the service
would answer the second as a retry of the first).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bench.sps_encounter.texts import EN, EN_PREFIXES, ZH

if TYPE_CHECKING:
    from sps_encounter.artifacts import SpsConfig
    from sps_encounter.engine.compiled import Case
    from sps_encounter.engine.respond import Plan
    from sps_encounter.phrasing import Phrased

FUNCTION_ID = "SpsEncounterFunction"
SEED = 20261126

# Targets (issue 10, item 8).
VALIDATE_TARGET_MS = 200.0  # validate_transcript on a 10,000-turn transcript
TARGET_TURNS = 10_000
LINEAR_RATIO_TARGET = 1.25  # per-turn cost at the largest size over the smallest: "≈ 1"
P50_TARGET_MS = 5.0  # a patient turn through the handler, offline generator
ROUND_TRIP_BUDGET = 4
# What the function's repository promises (sps_encounter/repository.py, service.py).
EXPECTED_TRIPS = {
    "start": 2,
    "turn": 2,
    "retried turn": 1,
    "get": 1,
    "validate": 0,
    "validate, store": 1,
    "scenarios": 0,
}

LOG_LEVELS = ("WARNING", "INFO")
LANGUAGES = ("en", "zh")

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


def learner_stream(rng: random.Random, language: str, count: int) -> list[tuple[str, str]]:
    """`count` utterances, never the same text twice in a row; an ambiguous question is often
    followed by a reframe, as a learner does when the patient misreads it."""
    made: list[tuple[str, str]] = []
    while len(made) < count:
        if made and made[-1][0] == "misreading" and rng.random() < REFRAME_AFTER_MISREADING:
            kind, text = "reframe", rng.choice(CORPUS[language]["reframe"])
        else:
            kind, text = learner_text(rng, language)
        if made and made[-1][1] == text:
            continue
        made.append((kind, text))
    return made


# --- the catalog's cases ---------------------------------------------------------------------------------


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
        personas = [default, *others]
        found.extend(
            CaseRef(scenario_id, persona_id, language, persona_id == default) for persona_id in personas
        )
    if not {ref.language for ref in found} >= set(LANGUAGES):
        raise RuntimeError(f"the catalog lacks a scenario in {LANGUAGES}: {[r.label for r in found]}")
    return found


def compiled(config: SpsConfig, ref: CaseRef) -> Case:
    from sps_encounter.artifacts import case_of

    return case_of(config, config.scenarios[ref.scenario_id], config.personas[ref.persona_id])


# --- transcripts played by the engine ---------------------------------------------------------------------


@dataclass
class Played:
    """A transcript in §11's format as the validator receives it (JSON-decoded dicts), and what
    the engine did to make it."""

    ref: CaseRef
    seed: int
    turns: list[dict[str, Any]]
    learner_kinds: dict[str, int] = field(default_factory=dict)
    patient_kinds: dict[str, int] = field(default_factory=dict)
    question_types: dict[str, int] = field(default_factory=dict)
    json_bytes: int = 0


def play(config: SpsConfig, ref: CaseRef, seed: int, learner_turns: int, rng: random.Random) -> Played:
    """One encounter of `learner_turns` learner utterances (so twice as many transcript turns),
    the engine answering each offline, as the service does with no LLM configured."""
    from persona_rails.settings import LlmSettings
    from sps_encounter import phrasing
    from sps_encounter.engine.state import init_runtime_state

    case = compiled(config, ref)
    llm = LlmSettings.model_validate({})
    if llm.configured:
        raise RuntimeError("an LLM is configured: the benchmark plays the offline generator")
    state = init_runtime_state(case.persona.verbosity, seed)
    made = Played(ref, seed, [])
    turns: list[dict[str, Any]] = []
    for kind, text in learner_stream(rng, ref.language, learner_turns):

        def offline(plan: Plan, text: str = text) -> Phrased:
            return phrasing.phrase(case, llm, state, plan, text)

        taken = phrasing.take_turn(case, state, text, offline)
        meta = taken.response.meta
        turns.append({"turnIndex": taken.learner_index, "role": "learner", "text": text})
        turns.append(
            {"turnIndex": meta["turnIndex"], "role": "patient", "text": taken.response.text, "meta": meta}
        )
        made.learner_kinds[kind] = made.learner_kinds.get(kind, 0) + 1
        made.patient_kinds[meta["kind"]] = made.patient_kinds.get(meta["kind"], 0) + 1
        made.question_types[meta["questionType"]] = made.question_types.get(meta["questionType"], 0) + 1
    # As the service receives a transcript: decoded from JSON text, nothing shared with the engine.
    text = json.dumps(turns, ensure_ascii=False)
    made.json_bytes = len(text.encode())
    made.turns = json.loads(text)
    return made


def without_meta(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same transcript as an external tool would send it: text only, the text-only rules run."""
    return [{key: value for key, value in turn.items() if key != "meta"} for turn in turns]


# --- sizes of a run ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    # Part 1: transcript sizes (turns = utterances, learner and patient), timed runs per size.
    sizes: tuple[int, ...] = (1_000, 10_000, 100_000)
    runs: tuple[int, ...] = (11, 7, 3)
    # Every catalog persona of the scenario's language, or only its default persona; the largest
    # size is played for the default personas only (the other personas stop at the next size).
    all_personas: bool = True
    # Part 2: patient turns through the handler.
    turns: int = 1000  # measured per log level
    warmup: int = 100
    owners: int = 10
    open_encounters: int = 8  # in progress at once; turns rotate over them
    encounter_turns: tuple[int, int] = (10, 60)  # an encounter's learner turns, drawn uniformly
    store_every: int = 4  # every n-th validation of a finished encounter is stored
    # Part 2b: POST /sps/validate with part 1's transcripts of these sizes, timed requests each.
    route_sizes: tuple[int, ...] = (1_000, 10_000)
    route_requests: int = 3
    # Part 3: round trips.
    trip_encounters: int = 12
    trip_turns: int = 15
    delay_ms: float = 1.0


QUICK = Settings(
    sizes=(1_000, 10_000),
    runs=(5, 3),
    all_personas=False,
    turns=200,
    warmup=30,
    owners=4,
    open_encounters=4,
    encounter_turns=(10, 30),
    route_sizes=(1_000,),
    route_requests=2,
    trip_encounters=4,
    trip_turns=8,
)
