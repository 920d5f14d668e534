"""Weekly insights at scale: a week's backfill with LLM insights on, against the fake OpenAI server
answering after 300 ms with faults mixed in; target: 50,000 users within one 900 s invocation at the
default concurrency. Method: docs/benchmarks.md, "Weekly insights at scale"."""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.harness.handler import embedded_database
from bench.harness.report import STRICT, cli, option
from bench.weekly_summary import WEEK, peak_rss_mb, seed_week
from persona_rails_dev.lambda_runtime import put_on_path
from persona_rails_dev.template import functions

# After the harness (which sets WARNING) and before anything imports Powertools: one warning per
# fault would be timed with the run.
os.environ.update(POWERTOOLS_LOG_LEVEL="ERROR", POWERTOOLS_SERVICE_NAME="weekly-summary")

LAMBDA_TIMEOUT_SECONDS = 900.0
WEEKLY_DEFAULT_CONCURRENCY = 64  # weekly_summary.settings.WeeklySettings.llm_concurrency
TARGET_USERS = 50_000
LATENCY_MS = 300.0
FAULT_EVERY = 25
LLM_TIMEOUT_SECONDS = 2.5  # PERSONA_RAILS_LLM_TIMEOUT_SECONDS
GOOD_INSIGHT = "本周最常出现的借口类型是「工作」，下周先把计划列好再打开它。"
OFF_SPEC_INSIGHT = "这周表现不错，继续加油！"


def _serve() -> int:
    """Run the fake server until stdin closes; print its base URL first. Of every FAULT_EVERY
    requests one is a 503, one not JSON and one an off-spec insight; of every 4 x FAULT_EVERY one
    is slower than the LLM timeout."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.support.fake_openai import Behaviour, Delay, FakeOpenAI, RawBody, json_content, server_error

    counter = itertools.count(1)

    class LatentFake(FakeOpenAI):
        def next_behaviour(self) -> Behaviour:
            n = next(counter)
            jitter = 0.8 + 0.4 * ((n * 7919) % 100) / 100
            wait = LATENCY_MS / 1000 * jitter
            answer: Behaviour = json_content({"insight": GOOD_INSIGHT})
            if n % (4 * FAULT_EVERY) == 1:
                wait = LLM_TIMEOUT_SECONDS + 1.0  # past the client's overall deadline
            elif n % FAULT_EVERY == 0:
                answer = server_error(503)
            elif n % FAULT_EVERY == FAULT_EVERY // 3:
                answer = RawBody(b"<html>bad gateway</html>", 200, "text/html")
            elif n % FAULT_EVERY == 2 * FAULT_EVERY // 3:
                answer = json_content({"insight": OFF_SPEC_INSIGHT})
            return Delay(wait, answer)

    with LatentFake().running() as fake:
        print(fake.base_url, flush=True)
        sys.stdin.read()
        requests = len(fake.requests)
    print(json.dumps({"requests": requests}), file=sys.stderr, flush=True)
    return 0


def measure(args: argparse.Namespace) -> list[dict[str, Any]]:
    # In a child process, so its own Python work does not compete with the run's for the GIL.
    fake = subprocess.Popen(
        [sys.executable, "-m", "bench.weekly_insights", "--serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert fake.stdout is not None
    base_url = fake.stdout.readline().strip()
    results = []
    try:
        with embedded_database(timeout=None) as embedded:
            database = embedded.owner
            seed_week(database, args.users)
            with database.as_owner() as tx:
                tx.execute("ANALYZE")

            from persona_rails.llm import structured
            from weekly_summary.schemas import RunRequest
            from weekly_summary.service import run_weekly
            from weekly_summary.settings import WeeklySettings

            for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
                os.environ.pop(name, None)
            os.environ.update(
                OPENAI_BASE_URL=base_url,
                OPENAI_API_KEY="bench-key",
                PERSONA_RAILS_LLM_MODEL="bench-model",
                PERSONA_RAILS_LLM_TIMEOUT_SECONDS=str(LLM_TIMEOUT_SECONDS),
                PERSONA_RAILS_WEEKLY_LLM_INSIGHTS="true",
            )
            for concurrency in args.concurrency:
                structured._client.cache_clear()
                settings = WeeklySettings.from_env(PERSONA_RAILS_WEEKLY_LLM_CONCURRENCY=concurrency)
                started = time.monotonic()

                def remaining(started: float = started) -> float:
                    return LAMBDA_TIMEOUT_SECONDS - (time.monotonic() - started)

                # Outside a handler nothing flushes the metrics; Powertools prints them every 100.
                with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull):
                    request = RunRequest(week=WEEK.isoformat())
                    report = run_weekly(database, settings, request, datetime.now(UTC), remaining=remaining)
                elapsed = time.monotonic() - started
                result = {
                    "users": args.users,
                    "concurrency": concurrency,
                    "seconds": elapsed,
                    "summaries": report.processed,
                    "llm": report.tally.llm_insights,
                    "fallbacks": report.tally.insight_fallbacks,
                    "deadline": report.tally.deadline_fallbacks,
                    "peak_rss_mb": peak_rss_mb(),
                }
                results.append(result)
                _print_row(result)
    finally:
        assert fake.stdin is not None
        fake.stdin.close()
        fake.wait(timeout=30)
    return results


def _print_row(result: dict[str, Any]) -> None:
    rate = result["summaries"] / result["seconds"]
    projected = TARGET_USERS / rate
    print(
        f"| {result['users']:>7,} | {LATENCY_MS:.0f} ms | 1/{FAULT_EVERY} | {result['concurrency']:>3} "
        f"| {result['seconds']:7.1f} | {rate:6.1f} | {result['llm']:>7,} | {result['fallbacks'] - result['deadline']:>6,} "
        f"| {result['deadline']:>6,} | {projected:6.0f} | {result['peak_rss_mb']:6.1f} |",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    options = [
        option("--users", type=int, default=TARGET_USERS),
        option("--concurrency", type=int, nargs="+", default=[WEEKLY_DEFAULT_CONCURRENCY]),
        STRICT,
        option("--serve", action="store_true", help=argparse.SUPPRESS),
    ]
    return cli(__doc__, argv, options, run)


def run(args: argparse.Namespace) -> int:
    if args.serve:
        return _serve()
    put_on_path(functions()["WeeklySummaryFunction"])
    print(
        "| users | latency | faults | concurrency | run s | users/s | LLM | fault → template "
        "| deadline → template | 50k users at this rate, s | peak RSS MB |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    missed = False
    for result in measure(args):
        projected = TARGET_USERS / (result["summaries"] / result["seconds"])
        verdict = "PASS" if projected <= LAMBDA_TIMEOUT_SECONDS else "FAIL"
        default = result["concurrency"] == WEEKLY_DEFAULT_CONCURRENCY
        # The function's own setting is the one the target is about; the others are the sweep.
        missed = missed or (verdict == "FAIL" and default)
        print(
            f"target: 50,000 users with insights in <= {LAMBDA_TIMEOUT_SECONDS:.0f} s at concurrency "
            f"{result['concurrency']}{' (the default)' if default else ''}: {projected:.0f} s {verdict}"
        )
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
