"""Chair interrupt (`ChairInterruptFunction`): 1. the quick check in-process on one core; 2. the
evaluate route through lambda_handler (offline evaluator, embedded Postgres) in debates that also
read their stats and reset their cooldowns. Round trips per request are measured by
`bench.round_trips`, which plays every route of this function behind the 1 ms delay proxy.
What is measured and the targets: docs/benchmarks.md, "Chair interrupt".

    python -m bench.chair_interrupt [--quick] [--evaluations 1000] [--strict]
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from bench.chair_interrupt.corpus import SEED, TEXT_CHARS, TRIGGER_SHARE, Chunk, check_corpus, quick_corpus
from bench.chair_interrupt.debates import EVALUATE, FUNCTION_ID, RESET, STATS, measure_mix
from bench.harness.handler import (
    create_accounts,
    embedded_database,
    load_function_handler,
    one_cpu,
    release_handler_state,
)
from bench.harness.handler import function as harness_function
from bench.harness.report import (
    LATENCY_HEADERS,
    Report,
    against_targets,
    bench_main,
    counts_cell,
    latency_cells,
    median,
    ms,
    percentile,
    scenario_report,
    share,
    target,
)

QUICK_TARGET_PER_SECOND = 50_000
P50_TARGET_MS, P99_TARGET_MS = 5.0, 20.0


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


def measure_quick(chunks: list[Chunk], passes: int) -> tuple[list[float], int]:
    """`quick_check(chair_config(), text)` over every chunk, exactly as the service calls it: the
    texts per second of each timed pass (after one untimed pass), and the CPU it was pinned to."""
    from chair_interrupt.artifacts import chair_config
    from chair_interrupt.engine.quick import quick_check

    config = chair_config()
    texts = [item.text for item in chunks]
    rates = []
    with one_cpu() as cpu:
        for index in range(passes + 1):
            started = time.perf_counter_ns()
            for text in texts:
                quick_check(config, text)
            if index:  # the first pass warms caches and lazy compiles
                rates.append(len(texts) / ((time.perf_counter_ns() - started) / 1e9))
    return rates, cpu


def quick_report(chunks: list[Chunk], rates: list[float], cpu: int) -> Report:
    rate = median(rates)
    reasons = counts_cell([item.reason for item in chunks if item.reason is not None])
    return Report(
        title="Chair interrupt: the quick check in-process, one core",
        headers=[
            "what is timed",
            "chunks",
            "median texts/s",
            "range over passes",
            "µs/text",
            "target",
            "verdict",
        ],
        rows=[
            [
                "`quick_check`, the mix",
                f"{len(chunks):,}",
                f"{rate:,.0f}",
                f"{min(rates):,.0f}–{max(rates):,.0f}",
                f"{1e6 / rate:.1f}",
                f"≥ {QUICK_TARGET_PER_SECOND:,}",
                "PASS" if rate >= QUICK_TARGET_PER_SECOND else "FAIL",
            ]
        ],
        notes=[
            f"{len(chunks):,} chunks of exactly {TEXT_CHARS} characters (seed {SEED}), English and Chinese "
            f"alternating; {TRIGGER_SHARE:.0%} carry one trigger sentence ({reasons}), the rest none; the "
            "function's own quick check agreed with every label before timing.",
            f"{len(rates)} timed passes after one untimed pass; the process pinned to CPU {cpu} "
            "(`sched_setaffinity`); garbage collector on.",
        ],
        passed=rate >= QUICK_TARGET_PER_SECOND,
    )


def handler_report(
    samples: dict[str, list[int]], interrupts: int, debates: int, settings: Settings
) -> Report:
    evaluations = samples[EVALUATE]
    judged, passed = against_targets(evaluations, P50_TARGET_MS, P99_TARGET_MS, "evaluate")
    labels = {EVALUATE: "evaluate (POST)", STATS: "stats (GET)", RESET: "reset-cooldowns (POST)"}
    return Report(
        title="Chair interrupt: warm requests through lambda_handler (offline evaluator, no LLM; embedded Postgres)",
        headers=LATENCY_HEADERS,
        rows=[[label, *latency_cells(samples[route])] for route, label in labels.items() if samples[route]],
        notes=[
            f"{settings.warmup} warm-up evaluations, then {len(evaluations)} measured over {debates} debates "
            f"(warm-up included) of {settings.owners} owners, {settings.open_debates} in progress at once; the "
            "stats and reset rows are the requests those debates made along the way. WARNING log level, metrics "
            "on, stdout to /dev/null; in-process handler, embedded Postgres over its unix socket.",
            f"{share(interrupts, len(evaluations) + settings.warmup)} of evaluations interrupted; every stats "
            "read counted exactly the interrupts the handler had answered.",
            *judged,
        ],
        passed=passed,
    )


def run(settings: Settings | None = None) -> Report:
    settings = settings or Settings()
    started = time.monotonic()
    function = harness_function(FUNCTION_ID)
    from persona_rails_dev.lambda_runtime import put_on_path

    put_on_path(function)  # the function's modules for the in-process quick check
    chunks = quick_corpus(settings.texts, SEED)
    check_corpus(chunks)
    rates, cpu = measure_quick(chunks, settings.passes)
    with embedded_database() as database:
        owners = create_accounts(database.owner, settings.owners)
        handler = load_function_handler(function, database.url)
        try:
            samples, driver = measure_mix(handler, function, owners, settings, seed=SEED + 1)
        finally:
            release_handler_state()

    rate, evaluations = median(rates), samples[EVALUATE]
    p50, p99 = percentile(evaluations, 50), percentile(evaluations, 99)
    targets = [
        target(
            f"quick check ≥ {QUICK_TARGET_PER_SECOND:,} texts/s on one core, {TEXT_CHARS}-character chunks (the mix)",
            f"{rate:,.0f}/s",
            rate >= QUICK_TARGET_PER_SECOND,
        ),
        target(
            f"evaluate p50 ≤ {P50_TARGET_MS:g} ms (offline evaluator, embedded Postgres)",
            f"{ms(p50)} ms",
            p50 <= P50_TARGET_MS * 1e6,
        ),
        target(f"evaluate p99 ≤ {P99_TARGET_MS:g} ms", f"{ms(p99)} ms", p99 <= P99_TARGET_MS * 1e6),
    ]
    return scenario_report(
        "Chair interrupt",
        [
            quick_report(chunks, rates, cpu),
            handler_report(samples, driver.interrupts, driver.started, settings),
        ],
        targets,
        started=started,
        notes=[
            "≤ 4 round trips per request (2 per evaluation): `python -m bench.round_trips`, every route of this function."
        ],
    )


def main(argv: list[str] | None = None) -> int:
    return bench_main(
        __doc__,
        argv,
        settings=(QUICK, Settings()),
        count=("evaluations", "evaluations", "measured evaluations"),
        quick_help="a smaller run (fewer texts, passes and evaluations)",
        run=run,
    )
