"""Issue 24's target: no server error and no request over 1 s in a schemathesis run of 30,000 requests
over the five OpenAPI documents, every phase, as a user and as a service-role backend, against the
local stack as `rails serve` runs it. Method: docs/benchmarks.md, "Hostile requests"."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bench.harness.handler import REPO_ROOT, embedded_database
from bench.harness.report import cli, option

CHECKS = (
    "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,"
    "negative_data_rejection"
)
# Shared with the contract test: a 413 counts as refusing negative data.
CONFIG = REPO_ROOT / "tests" / "integration" / "tooling" / "schemathesis.toml"
QUIET = {"POWERTOOLS_LOG_LEVEL": "WARNING", "POWERTOOLS_METRICS_DISABLED": "true"}
TARGET_REQUESTS = 30_000
MAX_SECONDS = 1.0


@dataclass(frozen=True)
class Run:
    document: str
    caller: str
    seed: int
    requests: int
    server_errors: int
    over_limit: int
    median_ms: float
    max_ms: float
    failures: str  # schemathesis's own verdict line, "" when it passed


def _schemathesis(base: str, document: str, token: str, *, examples: int, seed: int, har: Path) -> str:
    options = (
        f"--url {base} --checks {CHECKS} --phases examples,coverage,fuzzing,stateful --mode all "
        f"--max-examples {examples} --seed {seed} --workers 1 --request-timeout 30 --no-color --report har"
    ).split()
    st = str(Path(sys.executable).with_name("st"))
    command = [st, "--config-file", str(CONFIG), "run", f"{base}/openapi/{document}.json", *options]
    completed = subprocess.run(
        [*command, "--report-har-path", str(har), "--header", f"Authorization: Bearer {token}"],
        cwd=har.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode == 0:
        return ""
    tail = [line for line in completed.stdout.splitlines() if line.strip()][-12:]
    return "\n".join(tail)


def _summary(document: str, caller: str, seed: int, har: Path, failures: str) -> Run:
    entries = json.loads(har.read_text(encoding="utf-8"))["log"]["entries"]
    times = [float(entry["time"]) for entry in entries]
    return Run(
        document,
        caller,
        seed,
        len(entries),
        sum(1 for entry in entries if entry["response"]["status"] >= 500),
        sum(1 for t in times if t > MAX_SECONDS * 1000),
        statistics.median(times) if times else 0.0,
        max(times, default=0.0),
        failures,
    )


def main(argv: list[str] | None = None) -> int:
    # Schemathesis stops generating once an operation's inputs are exhausted: a second seed reaches
    # the 30,000 requests where more examples per operation would not.
    options = [
        option("--examples", type=int, default=300, help="schemathesis --max-examples per operation"),
        option("--seeds", type=int, nargs="+", default=[20261127, 20261128]),
    ]
    return cli(__doc__, argv, options, fuzz)


def fuzz(args: argparse.Namespace) -> int:
    with embedded_database(seed=True) as database:
        os.environ["DATABASE_URL"] = database.url
        from persona_rails_dev import local_env
        from persona_rails_dev.server import make_server, serve_in_background, worker_api
        from persona_rails_dev.template import functions, http_api_cors

        local_env.prepare(seed=False)
        api, pools = worker_api(functions().values(), lambda _: QUIET, 2, http_api_cors())
        server = make_server(api, port=0)
        serve_in_background(server)
        base = f"http://127.0.0.1:{server.server_port}"
        tokens = {
            "user": local_env.mint_token(ttl_seconds=86_400),
            "service": local_env.mint_service_token(ttl_seconds=86_400),
        }
        runs = []
        try:
            with tempfile.TemporaryDirectory(prefix="api-fuzz-") as scratch:
                for seed in args.seeds:
                    for function in (f for f in functions().values() if f.routes):
                        for caller, token in tokens.items():
                            har = Path(scratch) / f"{function.kebab_name}-{caller}-{seed}.har"
                            failures = _schemathesis(
                                base, function.kebab_name, token, examples=args.examples, seed=seed, har=har
                            )
                            run = _summary(function.kebab_name, caller, seed, har, failures)
                            runs.append(run)
                            print(
                                f"{run.document} as {run.caller}, seed {seed}: {run.requests} requests, "
                                f"{run.server_errors} 5xx, {run.over_limit} over {MAX_SECONDS:g} s, "
                                f"max {run.max_ms:.0f} ms",
                                file=sys.stderr,
                            )
        finally:
            server.shutdown()
            for pool in pools:
                pool.close()

    seeds = " ".join(map(str, args.seeds))
    print(f"`python -m bench.api_fuzz --examples {args.examples} --seeds {seeds}`\n")
    print("| document | caller | seed | requests | 5xx | over 1 s | median ms | max ms | schemathesis |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|")
    for run in runs:
        verdict = "passed" if not run.failures else "FAILED"
        print(
            f"| {run.document} | {run.caller} | {run.seed} | {run.requests:,} | {run.server_errors} | {run.over_limit} | "
            f"{run.median_ms:.1f} | {run.max_ms:.0f} | {verdict} |"
        )
    total = sum(run.requests for run in runs)
    errors = sum(run.server_errors for run in runs)
    slow = sum(run.over_limit for run in runs)
    print(
        f"\n**{total:,} requests** (target ≥ {TARGET_REQUESTS:,}), **{errors} × 5xx**, **{slow} over 1 s**."
    )
    for run in runs:
        if run.failures:
            print(f"\n{run.document} as {run.caller}, seed {run.seed}:\n```\n{run.failures}\n```")
    met = total >= TARGET_REQUESTS and errors == 0 and slow == 0 and not any(run.failures for run in runs)
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
