"""Chair interrupt (`ChairInterruptFunction`): the quick check in-process on one core, and debates
played through lambda_handler (offline evaluator, embedded Postgres). What is measured and the
targets: docs/benchmarks.md, "Chair interrupt"; round trips are `python -m bench.round_trips`'s."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass

from bench.chair_interrupt.corpus import SEED, TEXT_CHARS, Chunk, check_corpus, quick_corpus
from bench.chair_interrupt.debates import FUNCTION_ID, debates_report, debates_targets, measure_mix
from bench.harness.handler import function, one_cpu
from bench.harness.report import Report, bench_main, median, scenario_report, target, verdict
from bench.harness.scenario import passes, rate_cells, rate_headers, serving

QUICK_TARGET_PER_SECOND = 50_000
QUICK_ROW = "`quick_check`, the mix"
QUICK_HEADERS = ["what is timed", "chunks", *rate_headers("text"), "target", "verdict"]


@dataclass(frozen=True)
class Settings:
    texts: int = 10_000  # quick-check corpus
    passes: int = 9  # timed passes over it
    evaluations: int = 1000  # measured evaluations
    warmup: int = 100  # evaluations before measuring
    owners: int = 10
    open_debates: int = 12  # debates in progress at once; evaluations rotate over them
    debate_chunks: tuple[int, int] = (20, 60)  # a debate's length in evaluations, drawn uniformly
    round_chunks: int = 12  # evaluations per round: stats read and cooldowns reset between rounds


QUICK = Settings(
    texts=2_000, passes=3, evaluations=200, warmup=30, owners=4, open_debates=6, debate_chunks=(10, 30)
)


def measure_quick(chunks: list[Chunk], count: int) -> tuple[list[float], int]:
    """`quick_check(chair_config(), text)` over every chunk, as the service calls it: texts per
    second of each timed pass, and the CPU it was pinned to."""
    from chair_interrupt.artifacts import chair_config
    from chair_interrupt.engine.quick import quick_check

    config = chair_config()
    cases = [(config, item.text) for item in chunks]
    with one_cpu() as cpu:
        return passes({QUICK_ROW: (quick_check, cases)}, count)[QUICK_ROW], cpu


def quick_part(chunks: list[Chunk], rates: list[float], cpu: int) -> tuple[Report, list[str]]:
    """The quick check's table and its target row."""
    rate = median(rates)
    met = rate >= QUICK_TARGET_PER_SECOND
    counted = Counter(item.reason for item in chunks if item.reason is not None)
    reasons = ", ".join(f"{name} {count / counted.total():.0%}" for name, count in counted.most_common())
    row = [QUICK_ROW, f"{len(chunks):,}", *rate_cells(rates), f"≥ {QUICK_TARGET_PER_SECOND:,}", verdict(met)]
    report = Report(
        title="Chair interrupt: the quick check in-process, one core",
        headers=QUICK_HEADERS,
        rows=[row],
        notes=[f"trigger reasons: {reasons}; {len(rates)} timed passes on CPU {cpu}."],
    )
    label = f"quick check ≥ {QUICK_TARGET_PER_SECOND:,} texts/s on one core, {TEXT_CHARS}-character chunks (the mix)"
    return report, target(label, f"{rate:,.0f}/s", met)


def run(settings: Settings | None = None) -> Report:
    settings = settings or Settings()
    started = time.monotonic()
    from persona_rails_dev.lambda_runtime import put_on_path

    put_on_path(function(FUNCTION_ID))  # the function's modules for the in-process quick check
    chunks = quick_corpus(settings.texts, SEED)
    check_corpus(chunks)
    rates, cpu = measure_quick(chunks, settings.passes)
    with serving(FUNCTION_ID, settings.owners) as served:
        samples, driver = measure_mix(served, settings, seed=SEED + 1)
    quick, quick_target = quick_part(chunks, rates, cpu)
    sections = [quick, debates_report(samples, driver, settings)]
    return scenario_report(
        "Chair interrupt", sections, [quick_target, *debates_targets(samples)], started=started
    )


def main(argv: list[str] | None = None) -> int:
    count = ("evaluations", "measured evaluations")
    quick = "a smaller run (fewer texts, passes and evaluations)"
    return bench_main(__doc__, argv, settings=(QUICK, Settings()), count=count, quick_help=quick, run=run)
