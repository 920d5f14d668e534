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
from dataclasses import dataclass

from bench.harness.report import Report, emit, median, ms
from bench.harness.timing import child_environment, run_child

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
        return all(importlib.util.find_spec(name.split(".")[0]) is not None for name in self.modules)


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
