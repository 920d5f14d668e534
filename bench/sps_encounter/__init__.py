"""SPS encounter (`SpsEncounterFunction`): the transcript validator in-process on one core at 1,000 to
100,000 turns, patient turns through lambda_handler (2b: the validate route with large transcripts),
and round trips and decision records per request. What each part measures and its targets:
docs/benchmarks.md, "SPS encounter".

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
from bench.harness.report import (
    Report,
    bench_main,
    ms,
    percentile,
    scenario_report,
    trips_cell,
    verdict,
)
from bench.harness.trips import both_passes
from bench.sps_encounter.corpus import (
    FUNCTION_ID,
    LINEAR_RATIO_TARGET,
    P50_TARGET_MS,
    QUICK,
    ROUND_TRIP_BUDGET,
    SEED,
    TARGET_TURNS,
    VALIDATE_TARGET_MS,
    Settings,
    catalog_cases,
)
from bench.sps_encounter.handler import TURN_ROUTE
from bench.sps_encounter.mix import measure_mix
from bench.sps_encounter.round_trips import (
    measure_pass,
    round_trip_report,
    trip_summary,
)
from bench.sps_encounter.turn_report import headline, mix_report, split_report
from bench.sps_encounter.validate_route import measure_route_sizes, route_size_report
from bench.sps_encounter.validation import (
    MODE_LABEL,
    measure_validation,
)
from bench.sps_encounter.validation_report import (
    _worst,
    linear_summary,
    linearity_report,
    parts_report,
    validation_report,
)


def function_fingerprint() -> str:
    """SHA-256 (12 hex) over the function's source and config files (functions/sps_encounter/),
    so a report names the code it measured even when the tree has uncommitted changes."""
    import hashlib

    from bench.harness.handler import REPO_ROOT

    root = REPO_ROOT / "functions" / "sps_encounter"
    digest = hashlib.sha256()
    files = sorted(
        path
        for path in root.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix in (".py", ".json")
    )
    for path in files:
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return f"{digest.hexdigest()[:12]} ({len(files)} files)"


# --- 1. the validator in-process ---------------------------------------------------------------------------


# --- 2. turns through the handler ----------------------------------------------------------------------------


# --- 3. round trips ---------------------------------------------------------------------------------------------


# --- everything --------------------------------------------------------------------------------------------------


def run(settings: Settings | None = None) -> Report:
    settings = settings or Settings()
    started = time.monotonic()
    code_at_start = function_fingerprint()
    # Powertools warns once when an invocation records no metric (the catalog read): not a finding.
    warnings.filterwarnings("ignore", message="No application metrics to publish", category=UserWarning)
    function = harness_function(FUNCTION_ID)
    from persona_rails_dev.lambda_runtime import put_on_path

    put_on_path(function)  # the function's modules, for the engine and the validator in-process
    from sps_encounter.artifacts import sps_config

    config = sps_config()
    cases = catalog_cases(config)
    validation = measure_validation(config, settings, SEED, settings.route_sizes)
    with embedded_database() as database:
        owners = create_accounts(database.owner, settings.owners)
        handler = load_function_handler(function, database.url)
        try:
            mix = measure_mix(
                handler,
                function=function,
                owners=owners,
                owner=database.owner,
                cases=cases,
                settings=settings,
                seed=SEED + 1,
            )
            route_sizes = measure_route_sizes(
                handler,
                function=function,
                owners=owners,
                kept=validation.kept,
                requests=settings.route_requests,
            )
        finally:
            release_handler_state()
        validation.kept.clear()
        passes = both_passes(
            measure_pass,
            settings.delay_ms,
            database.url,
            function=function,
            owners=owners,
            owner=database.owner,
            cases=cases,
            settings=settings,
            seed=SEED + 2,
        )

    sections = [
        validation_report(validation, settings),
        linearity_report(validation),
        parts_report(validation),
        mix_report(mix),
        split_report(mix),
        route_size_report(route_sizes),
        round_trip_report(passes, settings),
    ]
    target = validation.rows(TARGET_TURNS)
    worst = _worst(target)
    best = min(target, key=lambda row: row.median_ns)
    sizes = sorted(settings.sizes)
    linear = linear_summary(validation)
    per_thousand = {size: [row.per_thousand_ns for row in validation.rows(size)] for size in sizes}
    warning = [s.total for s in headline(mix)]
    trips = trip_summary(passes)
    records_ok = mix.missing_records == 0 and all(r == 1 for r in trips.records)
    targets = [
        [
            f"`validate_transcript` on a {TARGET_TURNS:,}-turn transcript ≤ {VALIDATE_TARGET_MS:g} ms (median, one "
            "core, every catalog case, with meta and text only)",
            f"worst {ms(worst.median_ns)} ms ({worst.ref.label}, {MODE_LABEL[worst.mode]}); best {ms(best.median_ns)} "
            f"ms ({best.ref.label}, {MODE_LABEL[best.mode]})",
            verdict(worst.median_ns <= VALIDATE_TARGET_MS * 1e6),
        ],
        [
            "growing linearly: per-turn cost at "
            + " and ".join(f"{size:,}" for size in reversed(sizes[1:]))
            + f" turns / at {sizes[0]:,} ≤ {LINEAR_RATIO_TARGET:g}",
            "worst "
            + ", ".join(
                f"{size:,} / {sizes[0]:,}: {ratio:.2f} ({row.ref.label}, {MODE_LABEL[row.mode]})"
                for size, (ratio, row) in sorted(linear.items())
            )
            + "; ms per 1,000 turns "
            + ", ".join(
                f"at {size:,} {ms(min(values))}–{ms(max(values))}" for size, values in per_thousand.items()
            ),
            verdict(all(ratio <= LINEAR_RATIO_TARGET for ratio, _ in linear.values())),
        ],
        [
            f"patient turn through the handler, offline generator: p50 ≤ {P50_TARGET_MS:g} ms",
            f"p50 {ms(percentile(warning, 50))} ms (p90 {ms(percentile(warning, 90))}, p99 "
            f"{ms(percentile(warning, 99))}, max {ms(max(warning))})",
            verdict(percentile(warning, 50) <= P50_TARGET_MS * 1e6),
        ],
        [
            f"≤ {ROUND_TRIP_BUDGET} round trips per turn (expected 2; start 2; GET 1; validate 0, stored 1)",
            f"turn {trips_cell(trips.turn)} (start {trips_cell(trips.by_key['start'])}, GET "
            f"{trips_cell(trips.by_key['get'])}, validate {trips_cell(trips.by_key['validate'])}, stored "
            f"{trips_cell(trips.by_key['validate, store'])}, catalog {trips_cell(trips.by_key['scenarios'])}"
            + (
                f", retried turn {trips_cell(trips.by_key['retried turn'])}"
                if trips.by_key.get("retried turn")
                else ""
            )
            + f"); {'as expected' if trips.as_expected else 'NOT as expected'} with 1 ms of delay",
            verdict(max(trips.turn) <= ROUND_TRIP_BUDGET),
        ],
        [
            "each patient turn is a stored decision record",
            f"{trips_cell(trips.records)} written per turn (part 3); every one of part 2's "
            f"{len(mix.of(TURN_ROUTE)):,} measured turns has exactly one ({mix.missing_records} without)",
            verdict(records_ok),
        ],
    ]
    code_at_end = function_fingerprint()
    about = [
        f"functions/sps_encounter/ (.py and .json): {code_at_start} at the start, "
        + (
            "the same at the end."
            if code_at_end == code_at_start
            else f"**{code_at_end} at the end: it changed during the run**, the numbers mix two versions."
        ),
        f"catalog: {', '.join(ref.label for ref in cases)}.",
    ]
    return scenario_report("SPS encounter", sections, targets, started=started, about=about, called="SPS")


def main(argv: list[str] | None = None) -> int:
    return bench_main(
        __doc__,
        argv,
        settings=(QUICK, Settings()),
        count=("turns", "turns", "measured patient turns per log level in part 2"),
        quick_help="a smaller run (smaller transcripts, fewer turns)",
        run=run,
    )
