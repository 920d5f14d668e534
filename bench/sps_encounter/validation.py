"""1. `validate_transcript(transcript, case)` in-process, on one core, at each transcript size, with
the engine's meta and stripped of it (docs/benchmarks.md, "SPS encounter")."""

from __future__ import annotations

import gc
import random
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bench.harness.handler import one_cpu
from bench.harness.report import Report, median, ms, target, verdict
from bench.sps_encounter import corpus
from bench.sps_encounter.corpus import LINEAR_RATIO_TARGET, SEED, TARGET_TURNS, VALIDATE_TARGET_MS

if TYPE_CHECKING:
    from sps_encounter.artifacts import SpsConfig

MODE_LABEL = {"meta": "with meta (this runtime's)", "text": "text only (meta stripped)"}


@dataclass
class Row:
    ref: corpus.CaseRef
    mode: str
    size: int
    turns: list[dict[str, Any]]
    runs: list[int] = field(default_factory=list)  # ns
    ratio: float = 1.0  # per-turn cost over the same case and mode's smallest size

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

    def worst_ratios(self) -> dict[int, Row]:
        """The row whose per-turn cost grew most, at each size above the smallest."""
        worst: dict[int, Row] = {}
        for rows in self.cases:
            for row in rows[1:]:
                if row.size not in worst or row.ratio > worst[row.size].ratio:
                    worst[row.size] = row
        return worst

    def worst(self) -> Row:
        return max(self.at(TARGET_TURNS), key=lambda row: row.median_ns)


def measure_validation(config: SpsConfig, settings: corpus.Settings) -> Validation:
    from sps_encounter.engine.validator import validate_transcript

    sizes = tuple(sorted(settings.sizes))
    if TARGET_TURNS not in sizes:
        raise ValueError(f"the sizes must include the target's {TARGET_TURNS:,} turns")
    runs_of = dict(zip(sorted(settings.sizes), settings.runs, strict=True))
    found = Validation(0, [], 0.0)
    refs = [ref for ref in corpus.catalog_cases(config) if settings.all_personas or ref.default]
    with one_cpu() as cpu:
        found.cpu = cpu
        for index, ref in enumerate(refs):
            own_sizes = sizes if ref.default or len(sizes) == 1 else sizes[:-1]
            rng = random.Random(SEED + index)
            engine_seed = rng.randrange(1, 2**32)
            started = time.monotonic()
            played = corpus.play(config, ref, engine_seed, own_sizes[-1] // 2, rng)
            found.generation_s += time.monotonic() - started
            case = corpus.compiled(config, ref)
            full = {"meta": played, "text": corpus.without_meta(played)}
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
            for mode_rows in by_mode:
                for row in mode_rows:
                    row.turns = []
                    row.ratio = row.per_thousand_ns / mode_rows[0].per_thousand_ns
            found.cases.extend(by_mode)
            del full, played
            gc.collect()
    return found


def size_cell(row: Row | None, worst: Row) -> str:
    """Median ms (per 1,000 turns), the worst at the target's size in bold."""
    if row is None:
        return "—"
    cell = f"{ms(row.median_ns)} ({ms(row.per_thousand_ns)})"
    return f"**{cell}**" if row is worst else cell


def validation_report(found: Validation, settings: corpus.Settings) -> Report:
    sizes = sorted({row.size for rows in found.cases for row in rows})
    worst = found.worst()
    table = []
    for rows in found.cases:
        chosen = {row.size: row for row in rows}
        cells = [size_cell(chosen.get(size), worst) for size in sizes]
        ratios = [f"{row.ratio:.2f}" for row in rows[1:]] + ["—"] * (len(sizes) - len(rows))
        met = chosen[TARGET_TURNS].median_ns <= VALIDATE_TARGET_MS * 1e6
        met = met and all(row.ratio <= LINEAR_RATIO_TARGET for row in rows)
        table.append([rows[0].ref.label, MODE_LABEL[rows[0].mode], *cells, *ratios, verdict(met)])
    runs = ", ".join(
        f"{size:,}: {runs}" for size, runs in zip(sorted(settings.sizes), settings.runs, strict=True)
    )
    return Report(
        title="SPS validator: `validate_transcript` in-process, one core (median ms, and ms per 1,000 turns)",
        headers=[
            "scenario / persona",
            "transcript",
            *(f"{size:,} turns: ms (per 1,000)" for size in sizes),
            *(f"per-turn cost {size:,} / {sizes[0]:,}" for size in sizes[1:]),
            f"{TARGET_TURNS:,} turns ≤ {VALIDATE_TARGET_MS:g} ms, linear (≤ {LINEAR_RATIO_TARGET:g})",
        ],
        rows=table,
        notes=[
            f"Transcripts played offline in {found.generation_s:.0f} s (never timed; corpus seed {SEED}); the process "
            f"pinned to CPU {found.cpu}; runs per size {runs} (medians).",
        ],
    )


def validation_targets(found: Validation, settings: corpus.Settings) -> list[list[str]]:
    worst = found.worst()
    best = min(found.at(TARGET_TURNS), key=lambda row: row.median_ns)
    ratios = ", ".join(
        f"{size:,} / {min(settings.sizes):,}: {row.ratio:.2f} ({row.label})"
        for size, row in sorted(found.worst_ratios().items())
    )
    return [
        target(
            f"`validate_transcript` on a {TARGET_TURNS:,}-turn transcript ≤ {VALIDATE_TARGET_MS:g} ms (median, one "
            "core, every catalog case, with meta and text only)",
            f"worst {ms(worst.median_ns)} ms ({worst.label}); best {ms(best.median_ns)} ms ({best.label})",
            worst.median_ns <= VALIDATE_TARGET_MS * 1e6,
        ),
        target(
            f"growing linearly: per-turn cost at each larger size / at the smallest ≤ {LINEAR_RATIO_TARGET:g}",
            f"worst {ratios}",
            all(row.ratio <= LINEAR_RATIO_TARGET for rows in found.cases for row in rows),
        ),
    ]
