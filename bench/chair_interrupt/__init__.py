"""Chair interrupt (`ChairInterruptFunction`): the quick check in-process on one core, evaluations
through lambda_handler (2b: against the length of `debate_so_far`), and round trips per request.
What each part measures and its targets: docs/benchmarks.md, "Chair interrupt".

    python -m bench.chair_interrupt [--quick] [--evaluations 1000] [--strict]
"""

from __future__ import annotations

import time

from bench.chair_interrupt.corpus import (
    FUNCTION_ID,
    LOG_LEVELS,
    P50_TARGET_MS,
    P99_TARGET_MS,
    QUICK,
    QUICK_TARGET_PER_SECOND,
    ROUND_TRIP_BUDGET,
    SEED,
    Settings,
    check_corpus,
    quick_corpus,
)
from bench.chair_interrupt.handler import EVALUATE_ROUTE, GATED, QUICK_ROUTE, RESET_ROUTE, STATS_ROUTE, Sample
from bench.chair_interrupt.mix import MixResults, measure_mix
from bench.chair_interrupt.quick import MIX, NO_TRIGGER, TRIGGER, measure_quick, quick_report, rate
from bench.chair_interrupt.round_trips import measure_pass, round_trip_report, trip_summary
from bench.chair_interrupt.sizes import measure_sizes, size_report
from bench.harness.handler import (
    create_accounts,
    embedded_database,
    load_function_handler,
    release_handler_state,
)
from bench.harness.handler import function as harness_function
from bench.harness.report import (
    LATENCY_HEADERS,
    Report,
    against_targets,
    bench_main,
    latency_cells,
    median,
    ms,
    p50_of,
    percentile,
    scenario_report,
    share,
    split_row,
    target,
    trips_cell,
    verdict,
)
from bench.harness.trips import both_passes

OUTCOMES = (
    "interrupt",
    "no_quick_trigger",
    "below_threshold",
    "on_cooldown",
    "no_eligible_chair",
    "disabled",
    "chair_interruptions_off",
)


# --- 2. the evaluations through the handler -------------------------------------------------------------


def _evaluation_row(label: str, samples: list[Sample]) -> list[str]:
    two = [s for s in samples if len(s.transactions) == 2]
    return [
        label,
        *latency_cells([sample.total for sample in samples]),
        p50_of(samples, "engine"),
        p50_of(samples, "hashing"),
        f"{p50_of(two, 'read')} / {p50_of(samples, 'write')}" if two else f"– / {p50_of(samples, 'write')}",
    ]


def _route_row(label: str, samples: list[Sample]) -> list[str]:
    return [label, *latency_cells([sample.total for sample in samples]), "", "", ""]


def headline(mix: MixResults) -> list[Sample]:
    return mix.of(EVALUATE_ROUTE, LOG_LEVELS[0])


def evaluation_report(mix: MixResults) -> Report:
    warning = headline(mix)
    judged, passed = against_targets(
        [sample.total for sample in warning], P50_TARGET_MS, P99_TARGET_MS, "WARNING, all evaluations"
    )
    rows = [
        _evaluation_row(f"{level}, all evaluations", mix.of(EVALUATE_ROUTE, level)) for level in LOG_LEVELS
    ]
    for outcome in OUTCOMES:
        chosen = [s for s in warning if s.outcome == outcome]
        if chosen:
            rows.append(_evaluation_row(f"WARNING, outcome {outcome}", chosen))
    for language, name in (("en", "English"), ("zh", "Chinese")):
        rows.append(
            _evaluation_row(f"WARNING, {name} debates", [s for s in warning if s.language == language])
        )
    for caller, name in (("user", "the owner's token"), ("service", "the orchestrator's service-role token")):
        rows.append(_evaluation_row(f"WARNING, {name}", [s for s in warning if s.caller == caller]))
    short = [s for s in warning if s.debate_chars <= 3000]
    long = [s for s in warning if s.debate_chars > 9000]
    if short:
        rows.append(_evaluation_row("WARNING, `debate_so_far` ≤ 3,000 characters", short))
    if long:
        rows.append(_evaluation_row("WARNING, `debate_so_far` > 9,000 characters", long))
    for route, label in (
        (QUICK_ROUTE, "quick-check (POST), for comparison"),
        (STATS_ROUTE, "stats (GET)"),
        (RESET_ROUTE, "reset-cooldowns (POST)"),
    ):
        chosen = mix.of(route)
        if chosen:
            rows.append(_route_row(label, chosen))
    everything = mix.of(EVALUATE_ROUTE)
    outcomes = ", ".join(
        f"{outcome} {share(sum(s.outcome == outcome for s in everything), len(everything))}"
        for outcome in OUTCOMES
    )
    cooling = sum(s.on_cooldown > 0 for s in everything)
    by_aggressiveness = ", ".join(
        f"{level}: {share(sum(s.outcome == 'interrupt' for s in chosen), len(chosen))} of {len(chosen)}"
        for level in range(1, 6)
        if (chosen := [s for s in everything if s.aggressiveness == level and s.outcome not in GATED])
    )
    triggered = [s for s in everything if s.reason is not None]
    resets = mix.of(RESET_ROUTE)
    zero, zero_named = mix.zero_cooldown_resets
    chars = [s.debate_chars for s in everything]
    return Report(
        title="Chair interrupt: warm requests through lambda_handler (offline evaluator, no LLM; embedded Postgres)",
        headers=[
            *LATENCY_HEADERS,
            "p50 engine ms",
            "p50 hashing ms",
            "p50 read / write ms",
        ],
        rows=rows,
        notes=[
            f"{mix.warmup} warm-up evaluations, then {len(everything) // len(LOG_LEVELS)} measured evaluations per log "
            f"level (levels alternate evaluation by evaluation) over {mix.debates} debates of owners in rotation, "
            "several in progress at once; the quick-check, stats and reset rows are the requests those debates made "
            "along the way (WARNING). Timed around `lambda_handler(event, context)` only; in-process handler on this "
            "machine, embedded Postgres over its unix socket (not the packaged artifact); metrics on; stdout to "
            "/dev/null.",
            f"outcomes (decision records, both levels): {outcomes}; {share(cooling, len(everything))} of evaluations "
            f"found at least one chair on cooldown; {share(len(triggered), len(everything))} of chunks carried a "
            f"trigger. Interrupts per aggressiveness (of evaluations not gated off): {by_aggressiveness}. "
            f"`debate_so_far`: median {median(chars):,.0f}, max {max(chars):,} characters.",
            "engine = `quick_check` + `decide` (the offline evaluator) as the service calls them; hashing = "
            "`context_hash` + `fingerprint` (each a JSON dump of the whole request and a SHA-256); read / write = "
            "the evaluation's transactions (`Database.run_as_user`; a disabled evaluation has only the write).",
            f"stats checked against the interrupts the handler answered in every read; {len(resets)} resets named "
            f"{median([s.cleared for s in resets]) if resets else 0:g} chairs (median). Of {zero} resets of "
            f'debates whose cooldown is 0 s, {zero_named} still named chairs in `cleared` (documented as "the chairs '
            "whose cooldown was running\"; the route cannot know the debate's cooldown, so it names every chair that "
            "interrupted since the last reset).",
            *judged,
        ],
        passed=passed,
    )


def split_report(mix: MixResults) -> Report:
    warning = headline(mix)
    total = sum(sample.total for sample in warning)
    two = [s for s in warning if len(s.transactions) == 2]
    parts = (
        ("the whole handler call", "total", warning),
        ("engine: quick_check + decide (offline)", "engine", warning),
        ("hashing the request: context_hash + fingerprint", "hashing", warning),
        ("read transaction: the chairs on cooldown (1 round trip)", "read", two),
        ("write transaction: claim, log, decision record (1 round trip)", "write", warning),
        ("the rest: Mangum, FastAPI, JWT, models, JSON text, logs, EMF", "rest", warning),
    )
    rows = []
    rows = [split_row(label, [getattr(s, part) for s in chosen], total) for label, part, chosen in parts]
    return Report(
        title=f"Chair interrupt: where an evaluation's time goes (WARNING, {len(warning)} evaluations of part 2)",
        headers=["part", "p50 ms", "p90 ms", "p99 ms", "share of all evaluation time"],
        rows=rows,
        notes=[
            "Each part is timed from outside with a clock read either side of the wrapped call; the rest is the "
            "handler's time minus the other parts. Shares are of the summed time of all evaluations; the read row "
            f"covers the {len(two)} evaluations that read (not the gated-off ones).",
        ],
    )


# --- 2b. the length of debate_so_far ----------------------------------------------------------------------------


# --- 3. round trips -------------------------------------------------------------------------------------------


# --- everything --------------------------------------------------------------------------------------------------


def run(settings: Settings | None = None) -> Report:
    settings = settings or Settings()
    started = time.monotonic()
    function = harness_function(FUNCTION_ID)
    from persona_rails_dev.lambda_runtime import put_on_path

    put_on_path(function)  # the function's modules for the in-process quick check
    chunks = quick_corpus(settings.texts, SEED)
    check_corpus(chunks)
    quick = measure_quick(chunks, settings.passes)
    with embedded_database() as database:
        owners = create_accounts(database.owner, settings.owners)
        handler = load_function_handler(function, database.url)
        try:
            mix = measure_mix(
                handler,
                function=function,
                owners=owners,
                owner=database.owner,
                settings=settings,
                seed=SEED + 1,
            )
            sizes = measure_sizes(handler, function=function, owners=owners, settings=settings, seed=SEED + 3)
        finally:
            release_handler_state()
        passes = both_passes(
            measure_pass,
            settings.delay_ms,
            database.url,
            function=function,
            owners=owners,
            owner=database.owner,
            settings=settings,
            seed=SEED + 2,
        )

    sections = [
        quick_report(quick, settings.passes),
        evaluation_report(mix),
        split_report(mix),
        size_report(sizes),
        round_trip_report(passes, settings),
    ]
    warning = [s.total for s in headline(mix)]
    trips = trip_summary(passes)
    mix_rate = rate(quick, MIX)
    p50, p99 = percentile(warning, 50), percentile(warning, 99)
    targets = [
        target(
            f"quick check ≥ {QUICK_TARGET_PER_SECOND:,} texts/s on one core, 300-character chunks (the mix)",
            f"{mix_rate:,.0f}/s (trigger-free {rate(quick, NO_TRIGGER):,.0f}/s, trigger {rate(quick, TRIGGER):,.0f}/s)",
            mix_rate >= QUICK_TARGET_PER_SECOND,
        ),
        target(
            f"evaluate p50 ≤ {P50_TARGET_MS:g} ms (offline evaluator, embedded Postgres)",
            f"{ms(p50)} ms",
            p50 <= P50_TARGET_MS * 1e6,
        ),
        target(f"evaluate p99 ≤ {P99_TARGET_MS:g} ms", f"{ms(p99)} ms", p99 <= P99_TARGET_MS * 1e6),
        target(
            f"≤ {ROUND_TRIP_BUDGET} round trips per evaluation (expected 2; disabled 1; stats 1; reset 1)",
            f"{trips_cell(trips.evaluation)} (disabled {trips_cell(trips.by_key.get('disabled evaluation', [0]))}, "
            f"stats {trips_cell(trips.by_key['stats'])}, reset {trips_cell(trips.by_key['reset'])}, quick check "
            f"{trips_cell(trips.by_key['quick check'])}); {'as expected' if trips.as_expected else 'NOT as expected'}",
            max(trips.evaluation) <= ROUND_TRIP_BUDGET,
        ),
    ]
    largest = max(size for _, size in sizes.samples)
    at_largest = {
        language: percentile([s.total for s in samples], 50)
        for (language, size), samples in sizes.samples.items()
        if size == largest
    }
    targets.append(
        [
            f"(beyond the issue) evaluate p50 ≤ {P50_TARGET_MS:g} ms with a {largest:,}-character `debate_so_far`",
            f"English {ms(at_largest['en'])} ms, Chinese {ms(at_largest['zh'])} ms",
            f"{verdict(max(at_largest.values()) <= P50_TARGET_MS * 1e6)} (not counted)",
        ]
    )
    return scenario_report("Chair interrupt", sections, targets, started=started)


def main(argv: list[str] | None = None) -> int:
    return bench_main(
        __doc__,
        argv,
        settings=(QUICK, Settings()),
        count=("evaluations", "evaluations", "measured evaluations per log level in part 2"),
        quick_help="a smaller run (fewer texts, evaluations, passes)",
        run=run,
    )
