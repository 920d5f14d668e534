"""1. `validate_transcript(transcript, case)` in-process, on one core, at three transcript sizes.

For every catalog scenario with every catalog persona of its language, one encounter is played
by the engine offline (`corpus.play`) to the largest size; the smaller transcripts are its first
1,000 and 10,000 turns (a turn is one utterance, learner or patient, as in §11). Each is timed
as this runtime produces it (patient turns carry `meta`) and with `meta` stripped (a transcript
from elsewhere: the text-only rules run). Rows are interleaved run by run, after one untimed run
of each; the case is compiled before timing (the service's `case_of` cache). The generation is
never timed.

Where the time goes: every part of the validator (its shape check, folding, sentence counting,
the learner turns, each patient rule, the final metrics) is timed from outside on the 10,000-turn
transcripts of one case per language, exclusive of the parts it calls; and the case's fact-conflict
patterns, the costliest rule, are timed one by one over the same patient texts.
"""

from __future__ import annotations

import gc
import random
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bench.harness.report import median
from bench.sps_encounter.corpus import (
    TARGET_TURNS,
    CaseRef,
    Settings,
    catalog_cases,
    compiled,
    play,
    without_meta,
)

if TYPE_CHECKING:
    from sps_encounter.artifacts import SpsConfig
    from sps_encounter.engine.case import ObjectiveSlot, Slot
    from sps_encounter.engine.compiled import Case

MODES = ("meta", "text")
MODE_LABEL = {"meta": "with meta (this runtime's)", "text": "text only (meta stripped)"}
MODE_SHORT = {"meta": "with meta", "text": "text only"}
PART_RUNS = 3  # runs of the decomposition, per language and mode
PATTERN_RUNS = 3

# The validator's parts, timed where it calls them: (label, where, attribute). `_Run` is the
# validator's private rule runner; a part the code no longer has is left out (the rest absorbs it).
RULES = (
    "numeric_leakage",
    "agenda",
    "clarification",
    "diagnosis",
    "dob_challenge",
    "contradictions",
    "opener_echo",
    "refusal",
    "disfluency",
    "narrative_length",
    "elaboration",
)


@dataclass
class Row:
    ref: CaseRef
    mode: str
    size: int
    turns: list[dict[str, Any]]
    runs: list[int] = field(default_factory=list)  # ns
    patient_turns: int = 0
    issues: dict[str, int] = field(default_factory=dict)  # by code
    metrics: dict[str, Any] = field(default_factory=dict)

    @property
    def median_ns(self) -> float:
        return median(self.runs)

    @property
    def per_thousand_ns(self) -> float:
        return self.median_ns / self.size * 1000


@dataclass(frozen=True)
class Part:
    label: str
    ns: float  # per run of the whole transcript, exclusive of the other parts it calls
    calls: int


@dataclass(frozen=True)
class Decomposition:
    ref: CaseRef
    mode: str
    total_ns: float  # the unwrapped validator, median (part 1)
    wrapped_ns: float  # the validator with every part wrapped, median: the parts' base
    parts: list[Part]
    clock_ns: float  # one clock read, subtracted per call from every part

    @property
    def rest_ns(self) -> float:
        return self.wrapped_ns - sum(part.ns for part in self.parts)


@dataclass(frozen=True)
class Patterns:
    ref: CaseRef
    texts: int  # patient turns of the 10,000-turn transcript
    union_us: float  # `case.conflicts.finditer` over a patient text, as the rule runs it, µs
    count: int
    costliest: list[tuple[str, str, float]]  # (slot, pattern, µs per text searched alone)
    sum_us: float  # every pattern searched alone, one after another


@dataclass
class CaseResult:
    ref: CaseRef
    seed: int
    rows: list[Row]
    learner_kinds: dict[str, int]
    patient_kinds: dict[str, int]
    question_types: dict[str, int]
    json_bytes_per_turn: float
    generation_s: float


@dataclass
class ValidationResults:
    cpu: int
    cases: list[CaseResult]
    decompositions: list[Decomposition]
    patterns: list[Patterns]
    # For part 2b: each scenario's default-persona transcripts, at the sizes the route is timed.
    kept: dict[str, tuple[CaseRef, dict[int, list[dict[str, Any]]]]]

    def rows(self, size: int | None = None, mode: str | None = None) -> list[Row]:
        return [
            row
            for case in self.cases
            for row in case.rows
            if (size is None or row.size == size) and (mode is None or row.mode == mode)
        ]


def _summarise(row: Row, result: dict[str, Any]) -> None:
    issues: dict[str, int] = {}
    for issue in (*result["errors"], *result["warnings"], *result["info"]):
        issues[issue["code"]] = issues.get(issue["code"], 0) + 1
    row.issues = issues
    row.metrics = result["summaryMetrics"]
    row.patient_turns = result["summaryMetrics"]["totalPatientTurns"]


# --- where the time goes ------------------------------------------------------------------------------------


class _Clock:
    """Exclusive time per wrapped callable: a part's time excludes the wrapped parts it calls."""

    def __init__(self) -> None:
        self.exclusive: dict[str, int] = {}
        self.calls: dict[str, int] = {}
        self._stack: list[list[int]] = []

    def wrap(self, label: str, original: Callable[..., Any]) -> Callable[..., Any]:
        stack, exclusive, calls = self._stack, self.exclusive, self.calls
        clock = time.perf_counter_ns

        def call(*args: Any, **kwargs: Any) -> Any:
            inner = [0]
            stack.append(inner)
            started = clock()
            try:
                return original(*args, **kwargs)
            finally:
                elapsed = clock() - started
                stack.pop()
                exclusive[label] = exclusive.get(label, 0) + elapsed - inner[0]
                calls[label] = calls.get(label, 0) + 1
                if stack:
                    stack[-1][0] += elapsed

        return call

    def reset(self) -> None:
        self.exclusive.clear()
        self.calls.clear()


def _targets() -> list[tuple[str, Any, str]]:
    from sps_encounter.engine import validator
    from sps_encounter.engine.compiled import CompiledLanguage

    found: list[tuple[str, Any, str]] = []
    if hasattr(validator, "check_shape"):
        found.append(("`check_shape`: roles, indexes, types", validator, "check_shape"))
    found.append(("`fold` every text (casefold, apostrophes, Simplified)", CompiledLanguage, "fold"))
    if hasattr(validator, "sentence_count"):
        found.append(("`sentence_count` of every patient text", validator, "sentence_count"))
    runner = getattr(validator, "_Run", None)
    if runner is not None:
        if hasattr(runner, "learner"):
            found.append(("learner turns: question type, measuring, vague, guardrails", runner, "learner"))
        found.extend((f"rule `{name}`", runner, name) for name in RULES if hasattr(runner, name))
        if hasattr(runner, "finish"):
            found.append(("`finish`: rates and summary metrics", runner, "finish"))
    return found


@contextmanager
def _wrapped(clock: _Clock) -> Iterator[None]:
    originals = []
    for label, owner, attribute in _targets():
        original = owner.__dict__[attribute] if isinstance(owner, type) else getattr(owner, attribute)
        originals.append((owner, attribute, original))
        setattr(owner, attribute, clock.wrap(label, original))
    try:
        yield
    finally:
        for owner, attribute, original in originals:
            setattr(owner, attribute, original)


def _clock_read_ns() -> float:
    clock = time.perf_counter_ns
    samples = []
    for _ in range(5):
        started = clock()
        for _ in range(10_000):
            clock()
        samples.append((clock() - started) / 10_000)
    return median(samples)


def decompose(
    case: Case, ref: CaseRef, mode: str, turns: list[dict[str, Any]], total_ns: float
) -> Decomposition:
    from sps_encounter.engine.validator import validate_transcript

    clock = _Clock()
    clock_ns = _clock_read_ns()
    runs: dict[str, list[int]] = {}
    calls: dict[str, int] = {}
    wrapped: list[int] = []
    with _wrapped(clock):
        validate_transcript(turns, case)  # untimed
        for _ in range(PART_RUNS):
            clock.reset()
            started = time.perf_counter_ns()
            validate_transcript(turns, case)
            wrapped.append(time.perf_counter_ns() - started)
            for label, ns in clock.exclusive.items():
                runs.setdefault(label, []).append(ns)
            calls = dict(clock.calls)
    parts = [
        Part(label, max(0.0, median(values) - calls[label] * clock_ns), calls[label])
        for label, values in runs.items()
    ]
    return Decomposition(ref, mode, total_ns, median(wrapped), parts, clock_ns)


def conflict_patterns(case: Case, ref: CaseRef, turns: list[dict[str, Any]]) -> Patterns | None:
    """The fact-conflict patterns as the contradiction rule runs them (each behind its literal
    gate), and each pattern alone with no gate."""
    from sps_encounter.engine.text import FLAGS

    gated = case.conflicts
    if not gated:
        return None
    fold = case.lexicon.fold
    texts = [fold(turn["text"]) for turn in turns if turn["role"] == "patient"]

    def timed(run: Callable[[], object]) -> float:
        samples = []
        for _ in range(PATTERN_RUNS):
            started = time.perf_counter_ns()
            run()
            samples.append(time.perf_counter_ns() - started)
        return median(samples) / len(texts) / 1e3

    def scan() -> None:
        for text in texts:
            for _ in gated.matches(text):
                pass

    scan()
    union_us = timed(scan)
    scenario = case.scenario
    slots: list[Slot | ObjectiveSlot] = [*scenario.subjective_catalog, *scenario.objective_catalog]
    alone: list[tuple[str, str, float]] = []
    for slot in slots:
        for pattern in slot.conflicts:
            compiled_pattern = re.compile(pattern, FLAGS)

            def search_all(search: Callable[[str], object] = compiled_pattern.search) -> None:
                for text in texts:
                    search(text)

            alone.append((slot.id, pattern, timed(search_all)))
    alone.sort(key=lambda item: -item[2])
    return Patterns(ref, len(texts), union_us, len(alone), alone[:5], sum(item[2] for item in alone))


# --- the measurement --------------------------------------------------------------------------------------------


def measure_validation(
    config: SpsConfig, settings: Settings, seed: int, route_sizes: tuple[int, ...]
) -> ValidationResults:
    from bench.moderation.rules import one_cpu
    from sps_encounter.engine.validator import validate_transcript

    sizes = tuple(sorted(settings.sizes))
    if TARGET_TURNS not in sizes:
        raise ValueError(f"the sizes must include the target's {TARGET_TURNS:,} turns")
    runs_of = dict(zip(sizes, settings.runs, strict=True))
    results = ValidationResults(0, [], [], [], {})
    cases = [ref for ref in catalog_cases(config) if settings.all_personas or ref.default]
    with one_cpu() as cpu:
        results.cpu = cpu
        for index, ref in enumerate(cases):
            own_sizes = sizes if ref.default or len(sizes) == 1 else sizes[:-1]
            rng = random.Random(seed + index)
            engine_seed = rng.randrange(1, 2**32)
            started = time.monotonic()
            played = play(config, ref, engine_seed, own_sizes[-1] // 2, rng)
            generation = time.monotonic() - started
            case = compiled(config, ref)
            full = {"meta": played.turns, "text": without_meta(played.turns)}
            rows = [Row(ref, mode, size, full[mode][:size]) for size in own_sizes for mode in MODES]
            gc.collect()  # the generation's garbage, before anything is timed
            for row in rows:  # one untimed run of each mode (caches, lazy compiles), at the smallest size
                if row.size == own_sizes[0]:
                    validate_transcript(row.turns, case)
            for attempt in range(max(runs_of.values())):
                for row in rows:  # interleaved, so noise hits every row
                    if attempt >= runs_of[row.size]:
                        continue
                    started_ns = time.perf_counter_ns()
                    result = validate_transcript(row.turns, case)
                    row.runs.append(time.perf_counter_ns() - started_ns)
                    if attempt == 0:
                        _summarise(row, result)
                    del result
            results.cases.append(
                CaseResult(
                    ref,
                    engine_seed,
                    rows,
                    played.learner_kinds,
                    played.patient_kinds,
                    played.question_types,
                    played.json_bytes / len(played.turns),
                    generation,
                )
            )
            if ref.default:  # where the time goes, per scenario
                for mode in MODES:
                    target = next(r for r in rows if r.mode == mode and r.size == TARGET_TURNS)
                    results.decompositions.append(decompose(case, ref, mode, target.turns, target.median_ns))
                found = conflict_patterns(case, ref, full["meta"][:TARGET_TURNS])
                if found is not None:
                    results.patterns.append(found)
                results.kept[ref.scenario_id] = (ref, {size: played.turns[:size] for size in route_sizes})
            for row in rows:
                row.turns = []
            del full, played
            gc.collect()
    return results
