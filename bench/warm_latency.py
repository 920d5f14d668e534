"""Warm latency of the reason turn through the real Lambda handler, each turn on a fresh session, at
the WARNING log level (targets: p50 <= 5 ms, p99 <= 20 ms) and, on alternate turns, the template's
INFO. Method: docs/benchmarks.md, "What exactly is measured"."""

from __future__ import annotations

import time
import uuid

from bench.harness.handler import FUNCTION_ID, QUIET_POWERTOOLS, REASONS
from bench.harness.report import Report, cli, emit, latency_cells, option, scenario_report
from bench.harness.scenario import Client, latency_targets, serving, warm_loop

P50_TARGET_MS = 5.0
P99_TARGET_MS = 20.0
# WARNING is the headline (targets apply to it); INFO is the template's setting, where each
# turn also writes a JSON log line ("turn evaluated"), reported so the cost of logging shows.
LOG_LEVELS = ("WARNING", "INFO")
START = "POST /intercept-session"
REASON = "POST /intercept-session/{session_id}/reason"


def measure(turns: int, warmup: int, users: int) -> dict[str, list[int]]:
    """Nanoseconds per reason turn for each log level, warm-up excluded."""
    from persona_rails.observability import logger
    from tests.support.api import trigger_payload

    # Several users, so no user piles up an unrealistic thousand sessions in one day
    # (the turn reads that day's statistics for the user).
    with serving(FUNCTION_ID, users, with_rule=True) as served:
        client = Client(served.handler, served.function)

        def turn(index: int) -> dict[str, int]:
            # The levels alternate turn by turn, so a burst of noise on a shared machine hits both rows.
            taken = {}
            for offset, level in enumerate(LOG_LEVELS):
                logger.setLevel(level)
                user = served.users[(index * len(LOG_LEVELS) + offset) % len(served.users)]
                session_id = str(uuid.uuid4())
                client.send(START, user, 201, body=trigger_payload(user.id, user.rule, session_id=session_id))
                reason = {"reason_text": REASONS[index % len(REASONS)]}
                taken[level] = client.send(REASON, user, params={"session_id": session_id}, body=reason)[1]
            return taken

        try:
            measured = warm_loop(warmup, turns, turn)
        finally:
            logger.setLevel(QUIET_POWERTOOLS["POWERTOOLS_LOG_LEVEL"])
    return {level: [taken[level] for taken in measured] for level in LOG_LEVELS}


def run(turns: int = 1000, warmup: int = 50, users: int = 50) -> Report:
    started = time.monotonic()
    by_level = measure(turns, warmup, users)
    table = Report(
        title="Warm latency: POST /intercept-session/{id}/reason through lambda_handler",
        headers=["Powertools log level", "turns", "p50 ms", "p90 ms", "p99 ms", "max ms"],
        rows=[[level, *latency_cells(samples)] for level, samples in by_level.items()],
        notes=[
            f"{warmup} warm-up turns per row not counted; sessions rotate over {users} users; the set-up: "
            'docs/benchmarks.md, "What exactly is measured".',
        ],
    )
    headline = LOG_LEVELS[0]
    targets = latency_targets(f"reason turn at {headline}", by_level[headline], P50_TARGET_MS, P99_TARGET_MS)
    return scenario_report("Warm latency", [table], targets, started=started)


def main(argv: list[str] | None = None) -> int:
    options = [
        option("--turns", type=int, default=1000, help="measured reason turns"),
        option("--warmup", type=int, default=50, help="turns before measuring"),
        option("--users", type=int, default=50, help="users the sessions rotate over"),
    ]
    return cli(__doc__, argv, options, lambda args: emit(run(args.turns, args.warmup, args.users)))


if __name__ == "__main__":
    raise SystemExit(main())
