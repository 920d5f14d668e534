"""1. `validate_transcript(transcript, case)` in-process, on one core, at three transcript sizes.

For every catalog scenario with every catalog persona of its language, one encounter is played
by the engine offline (`corpus.play`) to the largest size; the smaller transcripts are its first
1,000 and 10,000 turns (a turn is one utterance, learner or patient, as in §11), so every size has
the same mix. Each is timed as this runtime produces it (patient turns carry `meta`, which the
validator reads) and with `meta` stripped (a transcript from elsewhere: the text-only rules run).
Rows are interleaved run by run, after one untimed run of each; the case is compiled before timing
(the service's `case_of` cache). The generation is never timed.
"""

from __future__ import annotations

import gc
import random
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bench.harness.report import Report, median, ms, verdict
from bench.sps_encounter.corpus import (
    LINEAR_RATIO_TARGET,
    SEED,
    TARGET_TURNS,
    VALIDATE_TARGET_MS,
    CaseRef,
    Settings,
    catalog_cases,
    compiled,
    play,
    without_meta,
)

if TYPE_CHECKING:
    from sps_encounter.artifacts import SpsConfig

MODE_LABEL = {"meta": "with meta (this runtime's)", "text": "text only (meta stripped)"}


@dataclass
class Row:
    ref: CaseRef
    mode: str
    size: int
    turns: list[dict[str, Any]]
    runs: list[int] = field(default_factory=list)  # ns

    @property
    def median_ns(self) -> float:
        return median(self.runs)

    @property
    def per_thousand_ns(self) -> float:
        return self.median_ns / self.size * 1000

    @property
    def label(self) -> str:
        return f"{self.ref.label}, {MODE_LABEL[self.mode]}"


@dataclass
class Validation:
    cpu: int
    cases: list[list[Row]]  # per case and mode, its rows by size (smallest first)
    generation_s: float

    def at(self, size: int) -> list[Row]:
        return [row for rows in self.cases for row in rows if row.size == size]

    def ratios(self) -> dict[int, tuple[float, Row]]:
        """The worst per-turn cost at each size above the smallest, over the smallest's."""
        worst: dict[int, tuple[float, Row]] = {}
        for rows in self.cases:
            for row in rows[1:]:
                ratio = row.per_thousand_ns / rows[0].per_thousand_ns
                if row.size not in worst or ratio > worst[row.size][0]:
                    worst[row.size] = (ratio, row)
        return worst

    def worst(self) -> Row:
        return max(self.at(TARGET_TURNS), key=lambda row: row.median_ns)

    def passed(self) -> tuple[bool, bool]:
        """(the 10,000-turn target met, linear growth)."""
        linear = all(ratio <= LINEAR_RATIO_TARGET for ratio, _ in self.ratios().values())
        return self.worst().median_ns <= VALIDATE_TARGET_MS * 1e6, linear


def measure_validation(config: SpsConfig, settings: Settings) -> Validation:
    from bench.harness.handler import one_cpu
    from sps_encounter.engine.validator import validate_transcript

    sizes = tuple(sorted(settings.sizes))
    if TARGET_TURNS not in sizes:
        raise ValueError(f"the sizes must include the target's {TARGET_TURNS:,} turns")
    runs_of = dict(zip(sizes, settings.runs, strict=True))
    found = Validation(0, [], 0.0)
    refs = [ref for ref in catalog_cases(config) if settings.all_personas or ref.default]
    with one_cpu() as cpu:
        found.cpu = cpu
        for index, ref in enumerate(refs):
            own_sizes = sizes if ref.default or len(sizes) == 1 else sizes[:-1]
            rng = random.Random(SEED + index)
            engine_seed = rng.randrange(1, 2**32)
            started = time.monotonic()
            played = play(config, ref, engine_seed, own_sizes[-1] // 2, rng)
            found.generation_s += time.monotonic() - started
            case = compiled(config, ref)
            full = {"meta": played, "text": without_meta(played)}
            by_mode = [
                [Row(ref, mode, size, turns[:size]) for size in own_sizes] for mode, turns in full.items()
            ]
            rows = [row for size_rows in zip(*by_mode, strict=True) for row in size_rows]
            gc.collect()  # the generation's garbage, before anything is timed
            for row in rows[: len(full)]:  # one untimed run of each mode (caches, lazy compiles)
                validate_transcript(row.turns, case)
            for attempt in range(max(runs_of.values())):
                for row in rows:  # interleaved, so noise hits every row
                    if attempt < runs_of[row.size]:
                        started_ns = time.perf_counter_ns()
                        validate_transcript(row.turns, case)
                        row.runs.append(time.perf_counter_ns() - started_ns)
            for row in rows:
                row.turns = []
            found.cases.extend(by_mode)
            del full, played
            gc.collect()
    return found


def validation_report(found: Validation, settings: Settings) -> Report:
    sizes = sorted({row.size for rows in found.cases for row in rows})
    smallest, worst = sizes[0], found.worst()
    table = []
    for rows in found.cases:
        chosen = {row.size: row for row in rows}
        target = chosen[TARGET_TURNS]
        ratios = [row.per_thousand_ns / rows[0].per_thousand_ns for row in rows[1:]]
        cells = []
        for size in sizes:
            row = chosen.get(size)
            cell = f"{ms(row.median_ns)} ({ms(row.per_thousand_ns)})" if row else "—"
            cells.append(f"**{cell}**" if row is worst else cell)
        table.append(
            [
                rows[0].ref.label,
                MODE_LABEL[rows[0].mode],
                *cells,
                *(f"{ratio:.2f}" for ratio in ratios),
                *("—" for _ in range(len(sizes) - len(rows))),
                verdict(
                    target.median_ns <= VALIDATE_TARGET_MS * 1e6
                    and all(ratio <= LINEAR_RATIO_TARGET for ratio in ratios)
                ),
            ]
        )
    runs = ", ".join(
        f"{size:,}: {runs}" for size, runs in zip(sorted(settings.sizes), settings.runs, strict=True)
    )
    return Report(
        title="SPS validator: `validate_transcript` in-process, one core (median ms, and ms per 1,000 turns)",
        headers=[
            "scenario / persona",
            "transcript",
            *(f"{size:,} turns: ms (per 1,000)" for size in sizes),
            *(f"per-turn cost {size:,} / {smallest:,}" for size in sizes[1:]),
            f"{TARGET_TURNS:,} turns ≤ {VALIDATE_TARGET_MS:g} ms, linear (≤ {LINEAR_RATIO_TARGET:g})",
        ],
        rows=table,
        notes=[
            f"Each case's transcript is one encounter played by the engine offline to {sizes[-1]:,} turns (the "
            "scenario's default persona; its other personas to the next size; "
            f"{found.generation_s:.0f} s in all, never timed; corpus seed {SEED}); the smaller transcripts are its "
            "first turns, as JSON-decoded dicts (what the service passes). `with meta`: the patient turns carry the "
            "engine's meta, which the validator reads; `text only`: the same transcript with meta stripped, as an "
            "external tool would send it, so the text-only rules run.",
            f"The process pinned to CPU {found.cpu} (`sched_setaffinity`), garbage collector on; per case, one untimed "
            "run of each transcript at the smallest size, then runs interleaved row by row; the case compiled before "
            "timing (`case_of`, as the service's cache holds it). Timed around `validate_transcript(transcript, "
            f"case)` only. Runs per size {runs} (medians). A per-turn ratio of 1 is linear growth; the target "
            f"allows {LINEAR_RATIO_TARGET:g} (run-to-run noise on this VM is ±20 %).",
        ],
        passed=all(found.passed()),
    )
