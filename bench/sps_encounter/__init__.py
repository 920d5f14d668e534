"""SPS encounter (`SpsEncounterFunction`): the transcript validator in-process on one core at 1,000 to
100,000 turns, and patient turns through lambda_handler with their decision records. What is
measured and the targets: docs/benchmarks.md, "SPS encounter"."""

from __future__ import annotations

import time
import warnings

from bench.harness.handler import function
from bench.harness.report import Report, bench_main, scenario_report
from bench.harness.scenario import serving
from bench.sps_encounter.corpus import FUNCTION_ID, QUICK, Settings, catalog_cases
from bench.sps_encounter.turns import measure_turns, turns_report, turns_targets
from bench.sps_encounter.validation import measure_validation, validation_report, validation_targets


def run(settings: Settings | None = None) -> Report:
    settings = settings or Settings()
    started = time.monotonic()
    # Powertools warns once when an invocation records no metric (the catalog read): not a finding.
    warnings.filterwarnings("ignore", message="No application metrics to publish", category=UserWarning)
    from persona_rails_dev.lambda_runtime import put_on_path

    put_on_path(function(FUNCTION_ID))  # the engine and the validator, in-process
    from sps_encounter.artifacts import sps_config

    config = sps_config()
    refs = catalog_cases(config)
    validation = measure_validation(config, settings)
    with serving(FUNCTION_ID, settings.owners) as served:
        turns = measure_turns(served, refs, settings)

    targets = validation_targets(validation, settings) + turns_targets(turns)
    about = [f"catalog: {', '.join(ref.label for ref in refs)}."]
    sections = [validation_report(validation, settings), turns_report(turns, settings)]
    return scenario_report("SPS encounter", sections, targets, started=started, about=about, called="SPS")


def main(argv: list[str] | None = None) -> int:
    count = ("turns", "measured patient turns in part 2")
    quick = "a smaller run (1,000 and 10,000 turns, default personas, 200 patient turns)"
    return bench_main(__doc__, argv, settings=(QUICK, Settings()), count=count, quick_help=quick, run=run)
