"""Warm latency of the reason turn through the real Lambda handler, each turn on a fresh session, at
the WARNING log level (targets: p50 <= 5 ms, p99 <= 20 ms) and, on alternate turns, the template's
INFO. Method: docs/benchmarks.md, "What exactly is measured"."""

from __future__ import annotations

import gc
import uuid

from bench.harness.handler import (
    FUNCTION_ID,
    QUIET_POWERTOOLS,
    REASONS,
    BenchUser,
    Handler,
    call,
    create_accounts,
    embedded_database,
    event,
    expect_status,
    function,
    lambda_context,
    load_function_handler,
    release_handler_state,
    stdout_to_devnull,
)
from bench.harness.report import Report, against_targets, cli, emit, latency_cells, option

P50_TARGET_MS = 5.0
P99_TARGET_MS = 20.0
# WARNING is the headline (targets apply to it); INFO is the template's setting, where each
# turn also writes a JSON log line ("turn evaluated"), reported so the cost of logging shows.
LOG_LEVELS = ("WARNING", "INFO")
START = "POST /intercept-session"
REASON = "POST /intercept-session/{session_id}/reason"


def _measure_interleaved(
    handler: Handler, people: list[BenchUser], turns: int, warmup: int
) -> dict[str, list[int]]:
    from persona_rails.observability import logger
    from tests.support.api import trigger_payload

    intercept = function(FUNCTION_ID)
    # The levels alternate turn by turn, so a burst of noise on a shared machine hits both rows.
    samples: dict[str, list[int]] = {level: [] for level in LOG_LEVELS}
    levels = len(LOG_LEVELS)
    for index in range((warmup + turns) * levels):
        level = LOG_LEVELS[index % levels]
        logger.setLevel(level)
        user = people[index % len(people)]
        session_id = str(uuid.uuid4())
        body = trigger_payload(user.id, user.rule, session_id=session_id)
        expect_status(handler(event(intercept, START, user.token, body=body), lambda_context()), 201, "start")
        text = REASONS[(index // levels) % len(REASONS)]
        reason = event(intercept, REASON, user.token, {"session_id": session_id}, body={"reason_text": text})
        result, elapsed = call(handler, reason, FUNCTION_ID)
        expect_status(result, 200, "reason turn")
        if index >= warmup * levels:
            samples[level].append(elapsed)
        elif index == warmup * levels - 1:
            gc.collect()  # start the measured run from a clean heap, as a warm container would be
    return samples


def measure(turns: int, warmup: int, users: int) -> dict[str, list[int]]:
    """Nanoseconds per reason turn for each log level, warm-up excluded."""
    from persona_rails.observability import logger

    with embedded_database() as database:
        # Several users, so no user piles up an unrealistic thousand sessions in one day
        # (the turn reads that day's statistics for the user).
        people = create_accounts(database.owner, users, with_rule=True)
        handler = load_function_handler(function(FUNCTION_ID), database.url)
        try:
            with stdout_to_devnull():
                return _measure_interleaved(handler, people, turns, warmup)
        finally:
            logger.setLevel(QUIET_POWERTOOLS["POWERTOOLS_LOG_LEVEL"])
            release_handler_state()


def run(turns: int = 1000, warmup: int = 50, users: int = 50) -> Report:
    by_level = measure(turns, warmup, users)
    notes, passed = against_targets(by_level[LOG_LEVELS[0]], P50_TARGET_MS, P99_TARGET_MS, LOG_LEVELS[0])
    return Report(
        title="Warm latency: POST /intercept-session/{id}/reason through lambda_handler",
        headers=["Powertools log level", "turns", "p50 ms", "p90 ms", "p99 ms", "max ms"],
        rows=[[level, *latency_cells(samples)] for level, samples in by_level.items()],
        notes=[
            f"{warmup} warm-up turns per row not counted; sessions rotate over {users} users; the set-up: "
            'docs/benchmarks.md, "What exactly is measured".',
            *notes,
        ],
        passed=passed,
    )


def main(argv: list[str] | None = None) -> int:
    options = [
        option("--turns", type=int, default=1000, help="measured reason turns"),
        option("--warmup", type=int, default=50, help="turns before measuring"),
        option("--users", type=int, default=50, help="users the sessions rotate over"),
    ]
    return cli(__doc__, argv, options, lambda args: emit(run(args.turns, args.warmup, args.users)))


if __name__ == "__main__":
    raise SystemExit(main())
