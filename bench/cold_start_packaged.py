"""Cold start of the packaged artifact (an x86_64 twin, python3.12), per function, as deployed and with
Tracing=Active, against a hello-world packaged the same way; target: as deployed <= 1.5 x the
baseline's median. What it runs, exactly: docs/benchmarks.md, "Cold start as deployed"."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from bench.harness.handler import REPO_ROOT, ChildRun, embedded_database, run_child
from bench.harness.report import Report, cli, emit, machine_summary, median, ms, option, verdict
from persona_rails_dev.lambda_twin import CHILD_PRELUDE
from tests.support.moto_ssm import moto_ssm_server

RATIO_TARGET = 1.5
TWIN = REPO_ROOT / ".build-x86_64"  # persona_rails_dev.lambda_twin.TWIN
# Signs the events/ fixtures' tokens (tests/conftest.py uses the same one).
FIXTURE_JWT_SECRET = "super-secret-jwt-token-with-at-least-32-characters-long"  # noqa: S105 - public test value
# Each function's first request: the fixture its users send most (else its first fixture by name).
# Any 2xx counts (a repeated start is a retry and answers 200 instead of 201).
_FIRST_REQUEST_CHOSEN = {
    "InterceptSessionFunction": "intercept-session/start.json",
    "ModerationCheckFunction": "moderation-check/check.json",
    "InterviewTurnFunction": "interview-turn/start.json",
    "ChairInterruptFunction": "chair-interrupt/quick-check.json",
    "SpsEncounterFunction": "sps-encounter/start.json",
    "WeeklySummaryFunction": "weekly-summary/backfill-user.json",
}


def _first_requests() -> dict[str, str]:
    from persona_rails_dev.template import functions

    found = dict(_FIRST_REQUEST_CHOSEN)
    for logical_id, function in functions().items():
        fixtures = sorted((REPO_ROOT / "events" / function.kebab_name).glob("*.json"))
        if logical_id not in found and fixtures:
            found[logical_id] = f"{function.kebab_name}/{fixtures[0].name}"
    return found


FIRST_REQUEST = _first_requests()
# Lambda sets these for a traced invocation; the daemon address is a local port nobody listens on.
TRACE_VARIABLES = {
    "_X_AMZN_TRACE_ID": "Root=1-6741a3c0-5f0e4c8b9a2d7e1f3b6c8d0a;Parent=53995c3f42cd8ad8;Sampled=1",
    "AWS_XRAY_DAEMON_ADDRESS": "127.0.0.1:2000",
    "AWS_XRAY_CONTEXT_MISSING": "LOG_ERROR",
}

# A child's start: its spec (the JSON of argv[1]), then CHILD_PRELUDE (sys.path, the environment,
# Context), then the handler imported as Lambda's runtime imports it.
LOAD_HANDLER = (
    r"""
import json, sys
spec = json.loads(sys.argv[1])
"""
    + CHILD_PRELUDE
    + r"""
import importlib
module_name, _, attribute = spec["handler"].rpartition(".")
handler = getattr(importlib.import_module(module_name), attribute)
"""
)
# Appended after the timed import: not getrusage's ru_maxrss, which survives exec, so a child
# would report its parent's peak when that is larger.
PEAK_KB = r"""
def peak_kb():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
"""
CHILD_SCRIPT = (
    r"""
import time
started = time.perf_counter_ns()"""
    + LOAD_HANDLER
    + r"""imported = time.perf_counter_ns()
result = handler(spec["event"], Context())
answered = time.perf_counter_ns()
"""
    + PEAK_KB
    + r"""
status = result.get("statusCode", 200) if isinstance(result, dict) else 200
sys.stdout.write("\n" + json.dumps({
    "status": status,
    "body": str(result.get("body", ""))[:300] if isinstance(result, dict) else "",
    "import_ns": imported - started,
    "request_ns": answered - imported,
    "answered_ns": answered,
    "rss_kb": peak_kb(),
    "modules": len(sys.modules),
    "xray": "aws_xray_sdk" in sys.modules,
    "absent": sorted(name for name in ("openai", "supabase", "postgrest") if name not in sys.modules),
    "files": {name: getattr(sys.modules.get(name), "__file__", None) for name in spec["check_files"]},
}) + "\n")
"""
)


@dataclass(frozen=True)
class Side:
    name: str
    function_name: str
    sys_path: list[str]
    handler: str
    event: dict[str, Any]
    env: dict[str, str]
    check_files: tuple[str, ...] = ()

    def argv(self, python: list[str], child_script: str, **extra: Any) -> list[str]:
        """The child's command line: its script, then the spec CHILD_PRELUDE and the script read."""
        spec: dict[str, Any] = {"sys_path": self.sys_path, "handler": self.handler}
        spec.update(function_name=self.function_name, event=self.event, **extra)
        return [*python, "-B", "-c", child_script, json.dumps(spec, ensure_ascii=False)]


def template_tracing(logical_id: str) -> str:
    from persona_rails_dev.template import load_template, parameter_defaults

    document = load_template()
    own = document["Resources"][logical_id]["Properties"].get("Tracing")
    mode = own or document.get("Globals", {}).get("Function", {}).get("Tracing", "PassThrough")
    # `Tracing: !Ref Tracing`: what a deployment that keeps the parameter's default gets.
    return str(parameter_defaults()[mode["Ref"]] if isinstance(mode, dict) else mode)


def baseline_event() -> dict[str, object]:
    from persona_rails_dev.apigw import http_event
    from persona_rails_dev.template import Route

    body = json.dumps({"reason_text": "就是有点无聊，想刷一会儿放松一下"}, ensure_ascii=False)
    headers = {"content-type": "application/json", "user-agent": "persona-rails-bench"}
    return http_event(Route("POST", "/hello"), "/hello", {}, method="POST", headers=headers, body=body)


@contextmanager
def function_sides(logical_id: str, database_url: str) -> Iterator[list[Side]]:
    """The function as deployed and with Tracing=Active, then the baseline; their secrets in a moto
    SSM server on 127.0.0.1."""
    from persona_rails_dev.event_fixtures import load_event
    from persona_rails_dev.lambda_twin import deployed_environment
    from persona_rails_dev.template import functions

    function = functions()[logical_id]
    layer = str(TWIN / "layer" / "python")
    runtime = str(TWIN / "runtime")
    code = str(TWIN / "functions" / logical_id)
    # The function's Lambda environment (secrets as SSM parameters, LLM unset, tracing off), and the
    # SSM values its parameters name.
    secrets = {"DATABASE_URL": database_url, "SUPABASE_JWT_SECRET": FIXTURE_JWT_SECRET}
    with moto_ssm_server() as ssm:
        untraced, values = deployed_environment(
            logical_id, TWIN, secrets, {**ssm.environment, "POWERTOOLS_TRACE_DISABLED": "true"}
        )
        for name, value in values.items():
            ssm.put(name, value)
        traced = {name: value for name, value in untraced.items() if name != "POWERTOOLS_TRACE_DISABLED"}
        traced.update(TRACE_VARIABLES)
        deployed = traced if template_tracing(logical_id) == "Active" else untraced
        event = load_event(FIRST_REQUEST[logical_id])
        check = (function.package, "persona_rails")
        yield [
            Side("deployed", logical_id, [code, layer, runtime], function.handler, event, deployed, check),
            Side("active", logical_id, [code, layer, runtime], function.handler, event, traced, check),
            Side(
                "baseline",
                "HelloWorldBaseline",
                [str(TWIN / "baseline"), layer, runtime],
                "baseline_app.lambda_handler",
                baseline_event(),
                untraced,
                ("baseline_app", "fastapi"),
            ),
        ]


def spawn(python: list[str], side: Side) -> ChildRun:
    what = f"{side.function_name} ({side.name})"
    sample = run_child(
        what, side.argv(python, CHILD_SCRIPT, check_files=list(side.check_files)), side.env, cwd="/"
    )
    output = sample.output
    if not 200 <= int(output["status"]) < 300:
        raise RuntimeError(f"{what}: status {output['status']}: {output['body']}")
    for name, path in output["files"].items():
        # Proof that the code came from the twin, not from the repository or the virtualenv.
        if path is None or not any(str(path).startswith(entry) for entry in side.sys_path):
            raise RuntimeError(f"{what}: {name} came from {path}")
    return sample


def measure(logical_ids: list[str], runs: int) -> dict[str, dict[str, list[ChildRun]]]:
    from persona_rails_dev.lambda_twin import real_interpreter
    from persona_rails_dev.package import python312

    python = real_interpreter(python312())
    results: dict[str, dict[str, list[ChildRun]]] = {}
    with embedded_database(seed=True) as database:
        for logical_id in logical_ids:
            samples: dict[str, list[ChildRun]] = {"deployed": [], "active": [], "baseline": []}
            with function_sides(logical_id, database.url) as side_list:
                for side in side_list:  # untimed: the page cache
                    spawn(python, side)
                for index in range(runs):
                    shift = index % len(side_list)
                    for side in side_list[shift:] + side_list[:shift]:
                        samples[side.name].append(spawn(python, side))
            results[logical_id] = samples
    return results


def _median_ms(samples: list[ChildRun], part: str | None = None) -> float:
    """The median of `part`, else of spawn to first response (perf_counter is CLOCK_MONOTONIC on
    Linux: one clock for the parent and the child)."""
    return median([s.output[part] if part else s.output["answered_ns"] - s.spawned_ns for s in samples])


def report(results: dict[str, dict[str, list[ChildRun]]], runs: int) -> Report:
    rows = []
    passed = True
    leaks = []
    for logical_id, samples in results.items():
        deployed, active, baseline = samples["deployed"], samples["active"], samples["baseline"]
        base, deployed_ms, active_ms = _median_ms(baseline), _median_ms(deployed), _median_ms(active)
        ratio = deployed_ms / base
        passed &= ratio <= RATIO_TARGET
        leaks += [
            f"{logical_id}: {name}"
            for s in deployed + active
            for name in ("openai", "supabase", "postgrest")
            if name not in s.output["absent"]
        ]
        timing = [ms(deployed_ms), f"{ratio:.2f}x", ms(active_ms), f"{active_ms / base:.2f}x", ms(base)]
        parts = [ms(_median_ms(deployed, part)) for part in ("import_ns", "request_ns")]
        rss = f"{median([s.output['rss_kb'] for s in deployed]) / 1024:.0f}"
        met = verdict(ratio <= RATIO_TARGET)
        rows.append([logical_id, template_tracing(logical_id), *timing, *parts, rss, met])
    return Report(
        title=f"Cold start as deployed: x86_64 twin of the arm64 artifact, python3.12, {runs} runs per side",
        headers=(
            "function|template Tracing|as deployed ms|÷ baseline|Tracing=Active ms|÷ baseline|baseline ms|"
            f"import ms (deployed)|first request ms (deployed)|peak RSS MB (deployed)|≤ {RATIO_TARGET}x"
        ).split("|"),
        rows=rows,
        notes=[
            'ms: median from spawn to first response; method: docs/benchmarks.md, "Cold start as deployed".',
            "openai/supabase/postgrest after the first request: "
            + (", ".join(leaks) if leaks else "absent in every run of every function: PASS"),
        ],
        passed=passed and not leaks,
    )


def main(argv: list[str] | None = None) -> int:
    from persona_rails_dev.template import functions

    def run(args: argparse.Namespace) -> int:
        if not (args.reuse and TWIN.exists()):
            from persona_rails_dev.lambda_twin import build_twin

            build_twin()
        print(machine_summary())
        return emit(report(measure(args.function or list(FIRST_REQUEST), args.runs), args.runs), strict=True)

    options = [
        option("--runs", type=int, default=11, help="timed runs of each side of each function"),
        option("--function", action="append", choices=sorted(functions()), help="default: all"),
        option("--reuse", action="store_true", help=f"reuse {TWIN.name}/ instead of rebuilding it"),
    ]
    return cli(__doc__, argv, options, run)


if __name__ == "__main__":
    raise SystemExit(main())
