"""Each handler imports within a budget, in the style of Powertools' tests/performance.

A child interpreter sees what Lambda would (tests/support/lambda_child: the function's CodeUri, the
layer and the installed packages, the template's environment without secret parameters) and times
`import <handler module>`, which also builds the app. The budget is a ratio to the hello-world
FastAPI + Mangum app (bench/baseline_app.py) imported by a child of the same kind, the two
alternating, so a loaded CI machine slows both sides alike: an absolute budget failed whenever
other work shared the 2 cores. The median of several pairs keeps one slow start from failing the
test; each budget is about twice the ratio measured, so it catches a heavy SDK or an eager import
creeping back in (boto3 alone is ~90 ms of imports, the X-Ray SDK with its patches 30-50 ms:
docs/benchmarks.md), not a few milliseconds of drift.

Measured 2026-11-23 on the CI-sized machine (x86_64, 2 CPUs, CPython 3.11 from the source tree,
warm bytecode caches, two runs of `python -m tests.infra.test_import_budget` under load from
other work): the median ratio of 5 pairs per handler, noted next to each budget.
The packaged artifact under python3.12 is measured by bench/cold_start_packaged.py.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from persona_rails_dev.template import functions
from tests.support.lambda_child import lambda_env, run_python

PAIRS = 5
BASELINE = Path(__file__).resolve().parents[2] / "bench" / "baseline_app.py"
# Budget per handler: its import time over the baseline's, ~2x the measured median (in the comment).
IMPORT_BUDGET_RATIO = {
    "ChairInterruptFunction": 2.4,  # measured 1.11-1.15
    "InterceptHousekeepingFunction": 1.0,  # 0.40 (2026-11-27)
    "InterceptSessionFunction": 2.8,  # 1.20-1.47
    "InterviewTurnFunction": 4.5,  # 2.19-2.26 (the tokenizer's ranks load at init: docs/benchmarks.md)
    "ModerationCheckFunction": 2.3,  # 1.00-1.15
    "SpsEncounterFunction": 4.0,  # 1.91-1.92
    "SpsHousekeepingFunction": 1.0,  # 0.51 (2026-11-27)
    "WeeklySummaryFunction": 1.0,  # 0.45-0.47
}
DEFAULT_BUDGET_RATIO = {
    "http": IMPORT_BUDGET_RATIO["ModerationCheckFunction"],
    "scheduled": IMPORT_BUDGET_RATIO["WeeklySummaryFunction"],
}
# Never on a handler's import path: the LLM SDK is imported by the first call that needs it, the
# Supabase SDK not at all, and boto3 only to read secret parameters (none are named here).
ABSENT = ("openai", "supabase", "postgrest", "boto3")

_PROBE = """
import time
started = time.perf_counter()
import importlib, json, runpy, sys
if sys.argv[1].endswith(".py"):
    runpy.run_path(sys.argv[1])
else:
    importlib.import_module(sys.argv[1])
elapsed = time.perf_counter() - started
print(json.dumps({"seconds": elapsed, "loaded": [n for n in sys.argv[2].split(",") if n in sys.modules]}))
"""


def _timed(target: str, env: dict[str, str]) -> dict:
    result = run_python(_PROBE, target, ",".join(ABSENT), env=env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def import_ratio(name: str) -> tuple[float, float, list[str]]:
    """The median ratio of the handler's import to the baseline's, the handler's median seconds,
    and the heavy SDKs it loaded."""
    function = functions()[name]
    env = lambda_env(function)
    ratios, seconds, loaded = [], [], set()
    for _ in range(PAIRS):
        baseline = _timed(str(BASELINE), env)["seconds"]
        report = _timed(function.module, env)
        ratios.append(report["seconds"] / baseline)
        seconds.append(report["seconds"])
        loaded.update(report["loaded"])
    return statistics.median(ratios), statistics.median(seconds), sorted(loaded)


def budget(name: str) -> float:
    """The function's own budget, or for a function not measured yet the tightest of its kind: a
    new HTTP function starts with the lightest HTTP function's, a scheduled one with the weekly
    summary's, until its measurement is noted here."""
    kind = "http" if functions()[name].routes else "scheduled"
    return IMPORT_BUDGET_RATIO.get(name, DEFAULT_BUDGET_RATIO[kind])


def test_every_budget_names_a_function_of_the_template():
    assert set(IMPORT_BUDGET_RATIO) <= set(functions())


@pytest.mark.parametrize("name", sorted(functions()))
def test_the_handler_imports_within_its_budget_without_heavy_sdks(name):
    ratio, seconds, loaded = import_ratio(name)
    assert loaded == []
    assert ratio <= budget(name), (
        f"{name} imports in {ratio:.2f}x the baseline's time ({seconds * 1000:.0f} ms, median of {PAIRS} pairs)"
    )


if __name__ == "__main__":  # python -m tests.infra.test_import_budget: the measurement behind the budgets
    for function_name in sorted(functions()):
        ratio, seconds, _ = import_ratio(function_name)
        print(f"{function_name:28} {ratio:5.2f}x  {seconds * 1000:6.0f} ms")
