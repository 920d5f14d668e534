"""Each handler imports within a budget, in the style of Powertools' tests/performance.

A child interpreter sees what Lambda would (tests/support/lambda_child: the function's CodeUri, the
layer and the installed packages, the template's environment without secret parameters) and times
`import <handler module>`, which also builds the app. The median of several children keeps a noisy
2-core CI machine from failing the test on one slow start; the budget is about twice the median
measured on such a machine, so it catches a heavy SDK or an eager import creeping back in (boto3
alone is ~90 ms of imports, the X-Ray SDK with its patches 30-50 ms: docs/benchmarks.md), not a few
milliseconds of drift.

Measured 2026-11-23 on the CI-sized machine (x86_64, 2 CPUs, CPython 3.11 from the source tree,
warm bytecode caches, two runs of `python -m tests.infra.test_import_budget`): median of 5 imports
per handler, in ms, noted next to each budget.
The packaged artifact under python3.12 is measured by bench/cold_start_packaged.py.
"""

from __future__ import annotations

import json
import statistics

import pytest

from persona_rails_dev.template import functions
from tests.support.lambda_child import lambda_env, run_python

RUNS = 5
# Budget in seconds per handler: ~2x the measured median (in the comment).
IMPORT_BUDGET_SECONDS = {
    "ChairInterruptFunction": 0.75,  # measured 357-360 ms
    "InterceptSessionFunction": 0.80,  # 388-399 ms
    "InterviewTurnFunction": 1.30,  # 643-654 ms (the tokenizer's ranks load at init: docs/benchmarks.md)
    "ModerationCheckFunction": 0.65,  # 305-325 ms
    "SpsEncounterFunction": 1.20,  # 582-599 ms
    "WeeklySummaryFunction": 0.35,  # 134-147 ms
}
# Never on a handler's import path: the LLM SDK is imported by the first call that needs it, the
# Supabase SDK not at all, and boto3 only to read secret parameters (none are named here).
ABSENT = ("openai", "supabase", "postgrest", "boto3")

_PROBE = """
import time
started = time.perf_counter()
import importlib, json, sys
importlib.import_module(sys.argv[1])
elapsed = time.perf_counter() - started
print(json.dumps({"seconds": elapsed, "loaded": [n for n in sys.argv[2].split(",") if n in sys.modules]}))
"""


def import_seconds(name: str) -> tuple[float, list[str]]:
    function = functions()[name]
    env = lambda_env(function)
    seconds, loaded = [], set()
    for _ in range(RUNS):
        result = run_python(_PROBE, function.module, ",".join(ABSENT), env=env)
        assert result.returncode == 0, result.stderr
        report = json.loads(result.stdout.strip().splitlines()[-1])
        seconds.append(report["seconds"])
        loaded.update(report["loaded"])
    return statistics.median(seconds), sorted(loaded)


def test_every_function_has_a_budget():
    assert set(IMPORT_BUDGET_SECONDS) == set(functions())


@pytest.mark.parametrize("name", sorted(functions()))
def test_the_handler_imports_within_its_budget_without_heavy_sdks(name):
    median, loaded = import_seconds(name)
    assert loaded == []
    assert median <= IMPORT_BUDGET_SECONDS[name], (
        f"{name} imports in {median * 1000:.0f} ms (median of {RUNS})"
    )


if __name__ == "__main__":  # python -m tests.infra.test_import_budget: the measurement behind the budgets
    for function_name in sorted(functions()):
        print(f"{function_name:28} {import_seconds(function_name)[0] * 1000:6.0f} ms")
