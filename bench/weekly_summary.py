"""Weekly summary at scale: N interception turns across N/20 users, the week's backfill run as `rails
weekly --week` runs it, each size in a child process of its own; targets: 1,000,000 turns in <= 30 s,
10,000,000 in <= 60 s. Method: docs/benchmarks.md, "Weekly summary at scale"."""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING

from bench.harness.handler import embedded_database, run_child
from bench.harness.report import STRICT, cli, option
from persona_rails_dev.lambda_runtime import put_on_path
from persona_rails_dev.template import functions

if TYPE_CHECKING:
    from persona_rails.db import Database

TURNS_PER_USER = 20  # 14 sessions a user: 10 this week, 4 the week before; 6 of them appealed
WEEK = date(2026, 11, 16)
# Turns -> seconds the run must take at most.
TARGETS = {1_000_000: 30.0, 10_000_000: 60.0}

SEED_USERS = """
INSERT INTO auth.users (id)
SELECT ('00000000-0000-4000-8000-' || lpad(to_hex(g), 12, '0'))::uuid FROM generate_series(1, :users) g
"""

# Deterministic pseudo-random choices from hashes, so every run seeds the same history.
SEED_SESSIONS = """
INSERT INTO public.intercept_sessions (id, user_id, app_identifier, app_display_name, trigger, persona_key,
  persona_version, client_timestamp, utc_offset_minutes, local_date, state, evaluation_turns, final_verdict,
  emergency, user_decision, start_fingerprint, created_at, closed_at)
SELECT gen_random_uuid(), u.id, 'com.ss.android.ugc.aweme', '抖音', 'quota_exceeded',
  (ARRAY['strict-father', 'rational-mentor', 'humor-coach'])[1 + abs(hashtext(u.id::text || 'p')) % 3],
  1, created, offset_minutes, local_day,
  CASE WHEN s % 13 = 0 THEN 'awaiting_decision' ELSE 'closed' END,
  CASE WHEN s <= 6 THEN 2 ELSE 1 END,
  (ARRAY['deny', 'delay', 'allow'])[1 + abs(hashtext(u.id::text || s)) % 3],
  false,
  CASE WHEN s % 13 = 0 THEN NULL ELSE (ARRAY['comply', 'comply', 'override'])[1 + abs(hashtext(s || u.id::text)) % 3] END,
  'bench', created,
  CASE WHEN s % 13 = 0 THEN NULL ELSE created + make_interval(secs => 5 + abs(hashtext(u.id::text || s || 'l')) % 90) END
FROM (SELECT id, (abs(hashtext(id::text)) % 27 - 12) * 60 AS offset_minutes FROM auth.users
      WHERE id::text LIKE '00000000-0000-4000-8000-%') u
CROSS JOIN generate_series(1, 14) s
CROSS JOIN LATERAL (
  SELECT CAST(:week AS date) + CASE WHEN s <= 10 THEN (s % 7) ELSE -1 - (s % 7) END AS local_day
) d
CROSS JOIN LATERAL (
  SELECT (local_day + time '08:00' + make_interval(mins => s * 37) - make_interval(mins => offset_minutes))
         AT TIME ZONE 'UTC' AS created
) c
"""

SEED_TURNS = """
INSERT INTO public.intercept_turns (session_id, user_id, turn_no, reason_text, reason_category, ai_verdict,
  confidence, persona_response, appeal_used, emergency, recommended_action, delay_minutes, justification, source,
  latency_ms, override_count_today, streak, text_fingerprint, user_decision)
SELECT s.id, s.user_id, t, '老板让我10分钟内回复客户的消息',
  (ARRAY['work', 'study', 'mental_break', 'emergency', 'other'])[1 + abs(hashtext(s.id::text || t)) % 5],
  CASE WHEN t = s.evaluation_turns THEN s.final_verdict ELSE 'deny' END,
  0.8, '好', t = 2, false, 'comply',
  CASE WHEN (CASE WHEN t = s.evaluation_turns THEN s.final_verdict ELSE 'deny' END) = 'delay' THEN 10 END,
  'bench', 'offline', 2, 0, 0, 'bench', CASE WHEN t = s.evaluation_turns THEN s.user_decision END
FROM public.intercept_sessions s CROSS JOIN LATERAL generate_series(1, s.evaluation_turns) t
"""


def seed_week(database: Database, users: int) -> None:
    with database.as_owner() as tx:
        tx.execute(SEED_USERS, users=users)
        tx.execute(SEED_SESSIONS, week=WEEK.isoformat())
        tx.execute(SEED_TURNS)


def peak_rss_mb() -> float:
    """This process's own peak (VmHWM): getrusage's ru_maxrss survives exec, so a child started by
    `make bench` after the in-process benchmarks would report their peak instead."""
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024


def measure(turns: int) -> dict[str, float]:
    import pg8000.native

    from persona_rails.db.url import connect_kwargs
    from persona_rails_dev.progress import ProgressLine
    from weekly_summary.schemas import RunRequest
    from weekly_summary.service import run_weekly
    from weekly_summary.settings import WeeklySettings

    users = turns // TURNS_PER_USER
    # Seeding a million rows is one long statement: no read timeout.
    with embedded_database(timeout=None) as embedded:
        database = embedded.owner
        seeding = time.perf_counter()
        seed_week(database, users)
        with database.as_owner() as tx:
            counted = tx.one("SELECT count(*) AS n FROM public.intercept_turns")
            seeded = counted["n"] if counted else 0
        # VACUUM cannot run in a transaction block: autocommit, on a connection of its own.
        vacuum = pg8000.native.Connection(**connect_kwargs(embedded.url, None))
        vacuum.run("VACUUM (ANALYZE) public.intercept_sessions")
        vacuum.run("VACUUM (ANALYZE) public.intercept_turns")
        vacuum.close()
        seed_seconds = time.perf_counter() - seeding

        progress = ProgressLine(sys.stderr)
        before = resource.getrusage(resource.RUSAGE_SELF)
        started = time.perf_counter()
        report = run_weekly(
            database,
            WeeklySettings.from_env(),
            RunRequest(week=WEEK.isoformat()),
            datetime.now(UTC),
            progress,
        )
        elapsed = time.perf_counter() - started
        usage = resource.getrusage(resource.RUSAGE_SELF)
        progress.close()
    return {
        "turns": float(seeded),
        "users": float(users),
        "summaries": float(report.processed),
        "seconds": elapsed,
        "cpu_seconds": usage.ru_utime + usage.ru_stime - before.ru_utime - before.ru_stime,
        "seed_seconds": seed_seconds,
        "peak_rss_mb": peak_rss_mb(),
    }


def main(argv: list[str] | None = None) -> int:
    options = [
        option("--turns", type=int, nargs="+", default=[100_000, 300_000, 1_000_000]),
        STRICT,
        option("--child", type=int, help=argparse.SUPPRESS),
    ]
    return cli(__doc__, argv, options, run)


def run(args: argparse.Namespace) -> int:
    if args.child:
        put_on_path(functions()["WeeklySummaryFunction"])
        print(json.dumps(measure(args.child)))
        return 0
    print("| turns | users | summaries | run s | users/s | Python CPU s | peak RSS MB | seed s |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    results = []
    for turns in args.turns:
        # The child's progress line goes to the terminal.
        argv = [sys.executable, "-m", "bench.weekly_summary", "--child", str(turns)]
        result = run_child(f"{turns} turns", argv, timeout=None, stderr=None).output
        results.append(result)
        print(
            f"| {int(result['turns']):>10,} | {int(result['users']):>7,} | {int(result['summaries']):>7,} "
            f"| {result['seconds']:7.2f} | {result['users'] / result['seconds']:>9,.0f} "
            f"| {result['cpu_seconds']:6.1f} | {result['peak_rss_mb']:6.1f} | {result['seed_seconds']:6.1f} |",
            flush=True,
        )
    if len(results) > 1:
        # Least-squares fit of run time over turns: seconds per million turns.
        fit = statistics.linear_regression(
            [r["turns"] / 1e6 for r in results], [r["seconds"] for r in results]
        )
        print(
            f"\nslope: {fit.slope:.2f} s per million turns; projected 10M: {fit.intercept + 10 * fit.slope:.0f} s"
        )
    missed = False
    for turns, limit in TARGETS.items():
        target = next((r for r in results if r["turns"] == turns), None)
        if target is not None:
            verdict = "PASS" if target["seconds"] <= limit else "FAIL"
            missed = missed or verdict == "FAIL"
            print(f"target: {turns:,} turns in <= {limit:.0f} s -> {target['seconds']:.1f} s {verdict}")
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
