"""Memory of a warm function: its events/ fixture sent 1,000 times to one handler in one process on the
x86_64 twin (build it with bench.cold_start_packaged first); targets: peak RSS <= 160 MB, RSS at
1,000 - RSS at 500 <= 4 MB. Method: docs/benchmarks.md, "Warm memory"."""

from __future__ import annotations

import argparse
from typing import Any

from bench.cold_start_packaged import FIRST_REQUEST, LOAD_HANDLER, PEAK_KB, function_sides
from bench.harness.handler import embedded_database, run_child
from bench.harness.report import Report, cli, emit, machine_summary, option, verdict
from persona_rails_dev.lambda_twin import TWIN, build_twin, real_interpreter

PEAK_TARGET_MB = 160
FLAT_TARGET_MB = 4

CHILD_SCRIPT = (
    LOAD_HANDLER
    + PEAK_KB
    + r"""import resource


def rss_mb():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize() / 2**20


samples, statuses = {}, set()
for number in range(1, spec["requests"] + 1):
    result = handler(spec["event"], Context())
    statuses.add(result.get("statusCode", 200) if isinstance(result, dict) else 200)
    if number in (1, spec["requests"] // 2, spec["requests"]):
        samples[number] = rss_mb()
sys.stdout.write("\n" + json.dumps({
    "statuses": sorted(statuses),
    "rss_mb": samples,
    "peak_mb": peak_kb() / 1024,
}) + "\n")
"""
)


def measure(logical_id: str, database_url: str, python: list[str], requests: int) -> dict[str, Any]:
    with function_sides(logical_id, database_url) as side_list:
        side = side_list[0]  # as deployed
        return run_child(
            logical_id, side.argv(python, CHILD_SCRIPT, requests=requests), side.env, 1800, cwd="/"
        ).output


def main(argv: list[str] | None = None) -> int:
    options = [
        option("--requests", type=int, default=1000),
        option("--function", action="append", choices=sorted(FIRST_REQUEST), help="default: all"),
    ]
    return cli(__doc__, argv, options, run)


def run(args: argparse.Namespace) -> int:
    from persona_rails_dev.package import python312

    if not TWIN.exists():
        build_twin()
    python = real_interpreter(python312())
    print(machine_summary())
    rows, passed = [], True
    half, full = args.requests // 2, args.requests
    with embedded_database(seed=True) as database:
        for logical_id in args.function or list(FIRST_REQUEST):
            output = measure(logical_id, database.url, python, args.requests)
            rss = {int(key): float(value) for key, value in output["rss_mb"].items()}
            peak = float(output["peak_mb"])
            growth = rss[full] - rss[half]
            ok = peak <= PEAK_TARGET_MB and growth <= FLAT_TARGET_MB
            passed &= ok
            sizes = [f"{value:.1f}" for value in (rss[1], rss[half], rss[full])]
            cells = [*sizes, f"{growth:+.1f}", f"{peak:.1f}", verdict(ok)]
            statuses = ",".join(map(str, output["statuses"]))
            rows.append([logical_id, FIRST_REQUEST[logical_id], statuses, *cells])
    title = f"Warm memory: {args.requests} requests per function in one process (x86_64 twin, python3.12)"
    columns = (
        f"function|fixture|statuses|RSS MB after request 1|after {half}|after {full}|{full} − {half}|peak MB"
    )
    headers = [*columns.split("|"), f"peak ≤ {PEAK_TARGET_MB}, flat ≤ {FLAT_TARGET_MB}"]
    return emit(Report(title=title, headers=headers, rows=rows, passed=passed), strict=True)


if __name__ == "__main__":
    raise SystemExit(main())
