"""What each candidate dependency adds to a cold start's imports on top of FastAPI + Mangum, one
fresh `python -I` per sample, variants interleaved (the evidence behind pg8000). Method:
docs/benchmarks.md, "What exactly is measured"; install missing packages with the bench extra."""

from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass

from bench.harness.handler import run_child
from bench.harness.report import Report, cli, emit, median, ms, option

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
    # This process's environment without anything that changes how Python starts or imports.
    env = {name: value for name, value in os.environ.items() if not name.startswith(("PYTHON", "COVERAGE_"))}
    present = [variant for variant in VARIANTS if variant.installed]
    samples: dict[str, list[tuple[int, int]]] = {variant.label: [] for variant in present}
    for round_no in range(runs + 1):
        shift = round_no % len(present)
        for variant in present[shift:] + present[:shift]:
            # Isolated mode keeps cwd and PYTHON* variables off sys.path.
            argv = [sys.executable, "-I", "-c", CHILD_SCRIPT, *variant.modules]
            output = run_child(variant.label, argv, env).output
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
        modules = str(int(median([count for _, count in samples[variant.label]])))
        first = variant is VARIANTS[0]
        delta_median = "" if first else f"{(median(times) - base_median) / 1e6:+.2f}"
        delta_min = "" if first else f"{(min(times) - base_min) / 1e6:+.2f}"
        rows.append(
            [variant.label, ms(median(times)), delta_median, ms(min(times)), delta_min, modules, variant.why]
        )
    return Report(
        title="Import costs over fastapi + mangum (fresh interpreter per sample)",
        headers=["imports", "median ms", "delta median", "min ms", "delta min", "modules", "role"],
        rows=rows,
        notes=[
            f"{runs} interleaved runs per row after one untimed round; the minimum is the steadier estimate."
        ],
    )


def main(argv: list[str] | None = None) -> int:
    options = [option("--runs", type=int, default=15, help="timed runs per variant (at least 9)")]
    return cli(__doc__, argv, options, lambda args: emit(run(args.runs)))


if __name__ == "__main__":
    raise SystemExit(main())
