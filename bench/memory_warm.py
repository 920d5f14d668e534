"""Memory of a warm function: 1,000 requests to one handler in one process, RSS sampled as they go.

Each function runs in its own `python3.12 -I -B` process on the x86_64 twin of the packaged artifact,
with the environment of bench/cold_start_packaged.py (template variables, secrets from a local SSM
endpoint, no LLM, embedded Postgres with supabase/seed.sql, tracing as deployed). The process imports
the handler and sends its events/ fixture 1,000 times (a repeated start is a retry of the first), and
reports the resident set size after the first request, after 500 and after 1,000, and its peak.

    python -m bench.memory_warm [--requests 1000] [--function ...]   (after bench.cold_start_packaged
                                                                      has built .build-x86_64/)

Targets: peak RSS <= 160 MB; flat across the second half (RSS at 1,000 - RSS at 500 <= 4 MB).
"""

from __future__ import annotations

import argparse
import json
import subprocess
from typing import Any

from bench.cold_start_packaged import FIRST_REQUEST, function_sides
from bench.harness.handler import REPO_ROOT, embedded_database
from bench.harness.report import Report, emit, machine_summary, verdict
from persona_rails_dev.lambda_twin import CHILD_PRELUDE, TWIN, build_twin, real_interpreter

PEAK_TARGET_MB = 160
FLAT_TARGET_MB = 4

CHILD_SCRIPT = (
    r"""
import json, resource, sys
spec = json.loads(sys.argv[1])
"""
    + CHILD_PRELUDE
    + r"""
import importlib
module_name, _, attribute = spec["handler"].rpartition(".")
handler = getattr(importlib.import_module(module_name), attribute)


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
    "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}) + "\n")
"""
)


def measure(logical_id: str, database_url: str, python: list[str], requests: int) -> dict[str, Any]:
    with function_sides(logical_id, database_url) as side_list:
        side = side_list[0]  # as deployed
        spec = {
            "sys_path": side.sys_path,
            "handler": side.handler,
            "function_name": side.function_name,
            "event": side.event,
            "requests": requests,
        }
        completed = subprocess.run(
            [*python, "-B", "-c", CHILD_SCRIPT, json.dumps(spec, ensure_ascii=False)],
            env=side.env,
            cwd="/",
            capture_output=True,
            text=True,
            timeout=1800,
            check=False,
        )
    if completed.returncode != 0:
        raise RuntimeError(f"{logical_id} failed:\n{completed.stderr[-3000:]}")
    output: dict[str, Any] = json.loads(completed.stdout.strip().splitlines()[-1])
    return output


def main(argv: list[str] | None = None) -> int:
    from persona_rails_dev.package import python312

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--function", action="append", choices=sorted(FIRST_REQUEST), help="default: all")
    args = parser.parse_args(argv)
    if not TWIN.exists():
        build_twin()
    python = real_interpreter(python312())
    print(machine_summary())
    rows, passed = [], True
    half, full = args.requests // 2, args.requests
    with embedded_database() as database:
        with database.owner.as_owner() as tx:
            tx.execute((REPO_ROOT / "supabase" / "seed.sql").read_text(encoding="utf-8"))
        for logical_id in args.function or list(FIRST_REQUEST):
            output = measure(logical_id, database.url, python, args.requests)
            rss = {int(key): float(value) for key, value in output["rss_mb"].items()}
            peak = float(output["peak_mb"])
            growth = rss[full] - rss[half]
            ok = peak <= PEAK_TARGET_MB and growth <= FLAT_TARGET_MB
            passed &= ok
            rows.append(
                [
                    logical_id,
                    FIRST_REQUEST[logical_id],
                    ",".join(map(str, output["statuses"])),
                    f"{rss[1]:.1f}",
                    f"{rss[half]:.1f}",
                    f"{rss[full]:.1f}",
                    f"{growth:+.1f}",
                    f"{peak:.1f}",
                    verdict(ok),
                ]
            )
    emit(
        Report(
            title=f"Warm memory: {args.requests} requests per function in one process (x86_64 twin, python3.12)",
            headers=[
                "function",
                "fixture",
                "statuses",
                "RSS MB after request 1",
                f"after {half}",
                f"after {full}",
                f"{full} − {half}",
                "peak MB",
                f"peak ≤ {PEAK_TARGET_MB}, flat ≤ {FLAT_TARGET_MB}",
            ],
            rows=rows,
            passed=passed,
        )
    )
    return 0 if passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
