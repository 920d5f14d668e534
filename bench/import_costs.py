"""What each candidate dependency adds to a cold start's imports, on top of FastAPI + Mangum.

Every sample is a fresh interpreter (`python -I -c ...`) that times `import fastapi, mangum`
plus at most one extra package, so nothing is already in sys.modules. Rounds interleave the
variants (rotating the order each round) so drift on a noisy machine hits all of them alike;
one untimed round first writes the bytecode caches.

This is the evidence behind pg8000 as the database client: the supabase and postgrest clients
(and psycopg) cost more to import, and each millisecond here is paid on every cold start.

    python -m bench.import_costs [--runs 15]

Packages that are not installed get a row saying so; install them with the bench extra.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bench.harness.report import Report, emit, median, ms

# Times the imports only: interpreter start-up is the same for every variant.
CHILD_SCRIPT = r"""
import time
started = time.perf_counter_ns()
import fastapi, mangum
import importlib, json, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
print(json.dumps({"import_ns": time.perf_counter_ns() - started, "modules": len(sys.modules)}))
"""


def child_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment without anything that changes how Python starts or imports."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("PYTHON") and not name.startswith("COVERAGE_")
    }
    env.update(extra or {})
    return env


@dataclass(frozen=True)
class ChildRun:
    spawned_ns: int  # perf_counter_ns() just before the spawn (CLOCK_MONOTONIC, shared by processes)
    wall_ns: int  # spawn to exit, as the parent sees it
    output: dict[str, Any]  # the JSON object the child printed last


def run_child(script: str, args: Sequence[str], env: dict[str, str], timeout: float = 120) -> ChildRun:
    """`python -I -c script args...`: isolated mode keeps cwd and PYTHON* variables off sys.path."""
    spawned = time.perf_counter_ns()
    completed = subprocess.run(
        [sys.executable, "-I", "-c", script, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    wall = time.perf_counter_ns() - spawned
    if completed.returncode != 0:
        raise RuntimeError(f"child failed ({completed.returncode}):\n{completed.stderr[-3000:]}")
    last_line = completed.stdout.strip().splitlines()[-1]
    return ChildRun(spawned, wall, json.loads(last_line))


MISSING = "not installed (pip install -e '.[bench]')"


@dataclass(frozen=True)
class Variant:
    label: str
    modules: tuple[str, ...]
    why: str

    @property
    def installed(self) -> bool:
        # A folder of the checkout (supabase/: the migrations) is a namespace package to this
        # process, whose cwd is on sys.path, but not to the isolated child: it has no origin.
        specs = [importlib.util.find_spec(name.split(".")[0]) for name in self.modules]
        return all(spec is not None and spec.origin is not None for spec in specs)


VARIANTS = (
    Variant("fastapi + mangum (baseline)", (), "every HTTP function imports these"),
    Variant("+ pg8000", ("pg8000",), "our Postgres driver (pure Python)"),
    Variant("+ psycopg", ("psycopg",), "the C-backed alternative driver"),
    Variant("+ postgrest", ("postgrest",), "Supabase's REST client"),
    Variant("+ supabase", ("supabase",), "the full Supabase client"),
    Variant("+ openai", ("openai",), "imported only when an LLM is configured"),
    Variant("+ aws_lambda_powertools.tracing", ("aws_lambda_powertools.tracing",), "the Tracer class"),
    Variant("+ aws_xray_sdk.core", ("aws_xray_sdk.core",), "what Tracer() loads when tracing is on"),
)


def measure(runs: int) -> dict[str, list[tuple[int, int]]]:
    """(import ns, module count) per run, for each installed variant."""
    env = child_environment()
    present = [variant for variant in VARIANTS if variant.installed]
    samples: dict[str, list[tuple[int, int]]] = {variant.label: [] for variant in present}
    for round_no in range(runs + 1):
        shift = round_no % len(present)
        for variant in present[shift:] + present[:shift]:
            output = run_child(CHILD_SCRIPT, variant.modules, env).output
            if round_no:  # round 0 only writes __pycache__
                samples[variant.label].append((int(output["import_ns"]), int(output["modules"])))
    return samples


def run(runs: int = 15) -> Report:
    samples = measure(runs)
    base = [ns for ns, _ in samples[VARIANTS[0].label]]
    base_median, base_min = median(base), min(base)
    rows = []
    for variant in VARIANTS:
        if variant.label not in samples:
            rows.append([variant.label, MISSING, "", "", "", "", variant.why])
            continue
        times = [ns for ns, _ in samples[variant.label]]
        modules = int(median([count for _, count in samples[variant.label]]))
        deltas = (
            ["", ""]
            if variant is VARIANTS[0]
            else [
                f"{(median(times) - base_median) / 1e6:+.2f}",
                f"{(min(times) - base_min) / 1e6:+.2f}",
            ]
        )
        rows.append(
            [
                variant.label,
                ms(median(times)),
                deltas[0],
                ms(min(times)),
                deltas[1],
                str(modules),
                variant.why,
            ]
        )
    return Report(
        title="Import costs over fastapi + mangum (fresh interpreter per sample)",
        headers=["imports", "median ms", "delta median", "min ms", "delta min", "modules", "role"],
        rows=rows,
        notes=[
            f"{runs} interleaved runs per row, after one untimed round; import time only, interpreter "
            "start-up excluded. On a shared machine the minimum is the steadier estimate of the "
            "cost itself; the median is what a typical cold start saw.",
        ],
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=15, help="timed runs per variant (at least 9)")
    args = parser.parse_args(argv)
    emit(run(args.runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
