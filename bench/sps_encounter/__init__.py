"""SPS encounter (`SpsEncounterFunction`): the transcript validator in-process on one core at 1,000 to
100,000 turns (validation.py), and patient turns through lambda_handler with the decision record
each one writes (turns.py). Round trips per request are `python -m bench.round_trips`'s. What is
measured and the targets: docs/benchmarks.md, "SPS encounter".

    python -m bench.sps_encounter [--quick] [--turns 1000] [--strict]
"""

from __future__ import annotations

import time
import warnings

from bench.harness.handler import (
    create_accounts,
    embedded_database,
    load_function_handler,
    release_handler_state,
)
from bench.harness.handler import function as harness_function
from bench.harness.report import Report, bench_main, ms, percentile, scenario_report, target
from bench.sps_encounter.corpus import (
    FUNCTION_ID,
    LINEAR_RATIO_TARGET,
    P50_TARGET_MS,
    QUICK,
    TARGET_TURNS,
    VALIDATE_TARGET_MS,
    Settings,
    catalog_cases,
)
from bench.sps_encounter.turns import measure_turns, turns_report
from bench.sps_encounter.validation import measure_validation, validation_report


def run(settings: Settings | None = None) -> Report:
    settings = settings or Settings()
    started = time.monotonic()
    # Powertools warns once when an invocation records no metric (the catalog read): not a finding.
    warnings.filterwarnings("ignore", message="No application metrics to publish", category=UserWarning)
    function = harness_function(FUNCTION_ID)
    from persona_rails_dev.lambda_runtime import put_on_path

    put_on_path(function)  # the function's modules, for the engine and the validator in-process
    from sps_encounter.artifacts import sps_config

    config = sps_config()
    refs = catalog_cases(config)
    validation = measure_validation(config, settings)
    with embedded_database() as database:
        owners = create_accounts(database.owner, settings.owners)
        handler = load_function_handler(function, database.url)
        try:
            turns = measure_turns(
                handler, function, owners=owners, database=database.owner, refs=refs, settings=settings
            )
        finally:
            release_handler_state()

    worst = validation.worst()
    best = min(validation.at(TARGET_TURNS), key=lambda row: row.median_ns)
    fast, linear = validation.passed()
    totals = turns.totals
    p50 = percentile(totals, 50)
    targets = [
        target(
            f"`validate_transcript` on a {TARGET_TURNS:,}-turn transcript ≤ {VALIDATE_TARGET_MS:g} ms (median, one "
            "core, every catalog case, with meta and text only)",
            f"worst {ms(worst.median_ns)} ms ({worst.label}); best {ms(best.median_ns)} ms ({best.label})",
            fast,
        ),
        target(
            f"growing linearly: per-turn cost at each larger size / at the smallest ≤ {LINEAR_RATIO_TARGET:g}",
            "worst "
            + ", ".join(
                f"{size:,} / {min(settings.sizes):,}: {ratio:.2f} ({row.label})"
                for size, (ratio, row) in sorted(validation.ratios().items())
            ),
            linear,
        ),
        target(
            f"patient turn through the handler, offline generator: p50 ≤ {P50_TARGET_MS:g} ms",
            f"p50 {ms(p50)} ms (p90 {ms(percentile(totals, 90))}, p99 {ms(percentile(totals, 99))}, "
            f"max {ms(max(totals))})",
            p50 <= P50_TARGET_MS * 1e6,
        ),
        target(
            "each patient turn is a stored decision record",
            f"{turns.records:,} written for {turns.answered:,} turns answered",
            turns.records == turns.answered,
        ),
    ]
    about = [
        f"catalog: {', '.join(ref.label for ref in refs)}.",
        "round trips per request (≤ 4; a turn 2): `python -m bench.round_trips`, every route of this function "
        "through the delaying proxy; tests/integration/sps_encounter/test_round_trips.py asserts each count.",
    ]
    sections = [validation_report(validation, settings), turns_report(turns, settings)]
    return scenario_report("SPS encounter", sections, targets, started=started, about=about, called="SPS")


def main(argv: list[str] | None = None) -> int:
    return bench_main(
        __doc__,
        argv,
        settings=(QUICK, Settings()),
        count=("turns", "turns", "measured patient turns in part 2"),
        quick_help="a smaller run (1,000 and 10,000 turns, default personas, 200 patient turns)",
        run=run,
    )
