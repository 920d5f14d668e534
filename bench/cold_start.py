"""Cold start as a whole process: a new interpreter imports the handler and serves ONE request.

For each run the parent spawns `python -I -c CHILD_SCRIPT`, which sets sys.path the way Lambda
does (the function's CodeUri and the layer's ContentUri, read from template.yaml by the parent,
then the runtime's own paths; the editable install's entry is dropped), imports the handler
named in the template, answers one API Gateway v2 event and exits.

    ours      InterceptSessionFunction, a reason turn on a session the parent started for it
              (first request: JWT check, a new Postgres connection, two transactions)
    baseline  bench/baseline_app.py, hello-world FastAPI + Mangum, one POST route

Runs alternate between the two (baseline first on even runs, ours first on odd ones), after one
untimed run of each that writes the bytecode caches, so both sides start from warm .pyc files
and the same page cache. The child also records whether openai, supabase or postgrest got
imported: none of them may be on the path of a request that does not call an LLM.

    python -m bench.cold_start [--runs 21]

Target: median process time of ours <= 1.5 x the baseline's.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

from bench.harness.handler import (
    REASONS,
    REPO_ROOT,
    apply_handler_environment,
    create_users,
    embedded_database,
    handler_environment,
    intercept_function,
    load_intercept_handler,
    reason_event,
    release_handler_state,
    start_session,
    stdout_to_devnull,
)
from bench.harness.report import Report, emit, median, ms, verdict
from bench.harness.timing import ChildRun, child_environment, run_child

RATIO_TARGET = 1.5
FORBIDDEN_MODULES = ("openai", "supabase", "postgrest")
BASELINE_HANDLER = "baseline_app.lambda_handler"

# Runs in the fresh interpreter. argv[1] is a JSON spec: sys_path, handler, event, repo_root.
CHILD_SCRIPT = r"""
import time
started = time.perf_counter_ns()
import json, os, sys
spec = json.loads(sys.argv[1])
repo = spec["repo_root"].rstrip(os.sep) + os.sep
# Lambda's sys.path: the function code and each layer first, then the runtime's own entries.
# Anything else from the repository (the editable install's infra/) must not help an import;
# installed packages stay, even when the virtualenv lives inside the repository (.venv).
sys.path[:] = spec["sys_path"] + [
    entry for entry in sys.path
    if entry and ("site-packages" in entry or not os.path.abspath(entry).startswith(repo))
]
import importlib
module_name, _, attribute = spec["handler"].rpartition(".")
handler = getattr(importlib.import_module(module_name), attribute)
imported = time.perf_counter_ns()


class Context:
    function_name = spec["function_name"]
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:local:000000000000:function:" + function_name
    aws_request_id = "00000000-0000-4000-8000-0000000000cd"

    def get_remaining_time_in_millis(self):
        return 10_000


result = handler(spec["event"], Context())
answered = time.perf_counter_ns()
sys.stdout.write("\n" + json.dumps({
    "status": result["statusCode"],
    "started_ns": started,
    "answered_ns": answered,
    "import_ns": imported - started,
    "request_ns": answered - imported,
    "modules": len(sys.modules),
    "forbidden": sorted(name for name in spec["forbidden"] if name in sys.modules),
    "module_files": {name: getattr(sys.modules.get(name), "__file__", None) for name in spec["check_files"]},
}) + "\n")
"""


@dataclass(frozen=True)
class Target:
    """One side of the comparison: what the child puts on sys.path and which handler it calls."""

    name: str
    function_name: str
    sys_path: list[str]
    handler: str
    expected_status: int
    check_files: tuple[str, ...] = ()


@dataclass
class Sample:
    run: ChildRun

    @property
    def process_ns(self) -> int:
        return self.run.wall_ns

    @property
    def to_response_ns(self) -> int:
        # perf_counter is CLOCK_MONOTONIC on Linux, one clock for parent and child.
        return int(self.run.output["answered_ns"]) - self.run.spawned_ns


def lambda_targets() -> tuple[Target, Target]:
    function = intercept_function()
    # Exactly what Lambda would have: CodeUri, then each layer's content (read from template.yaml).
    ours = Target(
        name="ours (InterceptSessionFunction, reason turn)",
        function_name=function.logical_id,
        sys_path=[str(function.code_uri.resolve()), *(str(path.resolve()) for path in function.layer_paths)],
        handler=function.handler,
        expected_status=200,
        check_files=("intercept_session", "persona_rails"),
    )
    baseline = Target(
        name="baseline (hello-world FastAPI + Mangum)",
        function_name="HelloWorldBaseline",
        sys_path=[str(Path(__file__).resolve().parent)],
        handler=BASELINE_HANDLER,
        expected_status=200,
    )
    return ours, baseline


def baseline_event() -> dict[str, object]:
    from persona_rails_dev.apigw import http_event
    from persona_rails_dev.template import Route

    body = json.dumps({"reason_text": REASONS[0]}, ensure_ascii=False)
    headers = {"content-type": "application/json", "user-agent": "persona-rails-bench"}
    return http_event(Route("POST", "/hello"), "/hello", {}, method="POST", headers=headers, body=body)


def spawn(target: Target, event: dict[str, object], env: dict[str, str]) -> Sample:
    spec = {
        "sys_path": target.sys_path,
        "handler": target.handler,
        "function_name": target.function_name,
        "event": event,
        "repo_root": str(REPO_ROOT),
        "forbidden": list(FORBIDDEN_MODULES),
        "check_files": list(target.check_files),
    }
    run = run_child(CHILD_SCRIPT, [json.dumps(spec, ensure_ascii=False)], env)
    if run.output["status"] != target.expected_status:
        raise RuntimeError(f"{target.name}: status {run.output['status']}")
    for name, path in run.output["module_files"].items():
        # Proof that the child imported our code from CodeUri/the layer and nothing else.
        if path is None or not any(str(path).startswith(entry) for entry in target.sys_path):
            raise RuntimeError(f"{target.name}: {name} came from {path}, not from {target.sys_path}")
    return Sample(run)


def measure(runs: int) -> tuple[list[Sample], list[Sample]]:
    ours, baseline = lambda_targets()
    ours_samples: list[Sample] = []
    baseline_samples: list[Sample] = []
    with embedded_database() as database:
        apply_handler_environment(database.url)
        env = child_environment(handler_environment(database.url))
        user = create_users(database.owner, 1)[0]
        function = intercept_function()
        # Each child needs its own fresh session; the parent starts them all through the handler
        # (in this process, untimed) before any child is spawned.
        handler = load_intercept_handler()
        try:
            with stdout_to_devnull():
                session_ids = [start_session(handler, function, user) for _ in range(runs + 1)]
        finally:
            release_handler_state()
        events = [reason_event(function, user, sid, REASONS[0]) for sid in session_ids]
        hello = baseline_event()
        # Untimed: writes __pycache__ for both sides and warms the page cache.
        spawn(baseline, hello, env)
        spawn(ours, events.pop(), env)
        for index in range(runs):
            pair = [(baseline, hello, baseline_samples), (ours, events[index], ours_samples)]
            if index % 2:
                pair.reverse()
            for target, event, samples in pair:
                samples.append(spawn(target, event, env))
    return ours_samples, baseline_samples


def _row(name: str, samples: list[Sample]) -> list[str]:
    outputs = [sample.run.output for sample in samples]
    return [
        name,
        str(len(samples)),
        ms(median([s.process_ns for s in samples])),
        ms(min(s.process_ns for s in samples)),
        ms(median([s.to_response_ns for s in samples])),
        ms(median([o["import_ns"] for o in outputs])),
        ms(median([o["request_ns"] for o in outputs])),
        str(int(median([o["modules"] for o in outputs]))),
    ]


def run(runs: int = 21) -> Report:
    ours_samples, baseline_samples = measure(runs)
    ours, baseline = lambda_targets()
    process_ratio = median([s.process_ns for s in ours_samples]) / median(
        [s.process_ns for s in baseline_samples]
    )
    response_ratio = median([s.to_response_ns for s in ours_samples]) / median(
        [s.to_response_ns for s in baseline_samples]
    )
    min_ratio = min(s.process_ns for s in ours_samples) / min(s.process_ns for s in baseline_samples)
    leaked = sorted({name for s in ours_samples for name in s.run.output["forbidden"]})
    ratio_ok = process_ratio <= RATIO_TARGET
    return Report(
        title="Cold start: new process, import handler, one request, exit",
        headers=[
            "handler",
            "runs",
            "median process ms",
            "min process ms",
            "median spawn→response ms",
            "median import ms",
            "median first request ms",
            "modules loaded",
        ],
        rows=[_row(ours.name, ours_samples), _row(baseline.name, baseline_samples)],
        notes=[
            "process = spawn to exit as the parent sees it; spawn→response = until the handler returned "
            "(no interpreter teardown); import and first request are timed inside the child.",
            f"ratio ours/baseline, process: {process_ratio:.2f}x vs target {RATIO_TARGET}x: "
            f"{verdict(ratio_ok)}",
            f"ratio ours/baseline, spawn→response: {response_ratio:.2f}x; of the minimum process times: "
            f"{min_ratio:.2f}x (informational)",
            f"openai/supabase/postgrest in sys.modules after our first request: "
            f"{', '.join(leaked) if leaked else f'absent in all {len(ours_samples)} runs'}: "
            f"{verdict(not leaked)}",
        ],
        passed=ratio_ok and not leaked,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=21, help="timed runs of each side (at least 15)")
    args = parser.parse_args(argv)
    emit(run(args.runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
