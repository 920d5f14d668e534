"""3. Round trips per request (see bench/harness/trips.py): the same debates as part 2, every
request counted; evaluations grouped by their decision record's outcome."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from bench.chair_interrupt.corpus import EXPECTED_TRIPS, FUNCTION_ID, LOG_LEVELS, ROUND_TRIP_BUDGET, Settings
from bench.chair_interrupt.handler import (
    EVALUATE_ROUTE,
    GATED,
    QUICK_ROUTE,
    RESET_ROUTE,
    STATS_ROUTE,
    Driver,
    Sample,
    event,
    spans,
)
from bench.chair_interrupt.mix import read_outcomes
from bench.harness.handler import BenchUser, load_function_handler, stdout_to_devnull
from bench.harness.report import Report, verdict
from bench.harness.trips import Pass, cold, price_notes, proxied, trip_headers, trip_row

if TYPE_CHECKING:
    from persona_rails.db import Database
    from persona_rails_dev.template import Function

WARMUP_STEPS = 20


def measure_pass(
    database_url: str,
    *,
    function: Function,
    owners: list[BenchUser],
    owner: Database,
    settings: Settings,
    delay_ms: float,
    seed: int,
) -> Pass:
    """A cold request first (reported apart), then warm-up steps, then `trip_evaluations` steps
    of the debates (with their quick checks, stats and resets), every request counted."""
    result = Pass(delay_ms)

    with (
        proxied(database_url, result, partial(load_function_handler, function)) as (proxy, handler),
        stdout_to_devnull(),
        spans() as found,
    ):
        request = event(function, STATS_ROUTE, owners[0].token, str(uuid.uuid4()))
        cold(proxy, handler, request, function_id=FUNCTION_ID, result=result, status=200)
        driver = Driver(
            handler, function, found=found, settings=settings, owners=owners, seed=seed, proxy=proxy
        )
        for index in range(WARMUP_STEPS + settings.trip_evaluations):
            taken = driver.step(LOG_LEVELS[0])
            if index >= WARMUP_STEPS:
                result.samples.extend(taken)
    read_outcomes(owner, result.samples)
    return result


def _categories() -> list[tuple[str, str, int, object]]:
    """(label, expected key, expected count, selector) for each row of the round-trip table."""
    return [
        ("evaluate: interrupt", "evaluation", EXPECTED_TRIPS["evaluation"], ("interrupt",)),
        (
            "evaluate: no interrupt (no trigger, below threshold, the defended chair on cooldown)",
            "evaluation",
            EXPECTED_TRIPS["evaluation"],
            ("no_quick_trigger", "below_threshold", "on_cooldown"),
        ),
        (
            "evaluate: no eligible chair (all on cooldown)",
            "evaluation",
            EXPECTED_TRIPS["evaluation"],
            ("no_eligible_chair",),
        ),
        (
            "evaluate: interruptions disabled or chair interruptions off",
            "disabled evaluation",
            EXPECTED_TRIPS["disabled evaluation"],
            GATED,
        ),
        ("stats (GET)", "stats", EXPECTED_TRIPS["stats"], STATS_ROUTE),
        ("reset-cooldowns (POST)", "reset", EXPECTED_TRIPS["reset"], RESET_ROUTE),
        ("quick-check (POST)", "quick check", EXPECTED_TRIPS["quick check"], QUICK_ROUTE),
    ]


def _select(samples: list[Sample], selector: object) -> list[Sample]:
    if isinstance(selector, tuple):
        return [s for s in samples if s.route == EVALUATE_ROUTE and s.outcome in selector]
    return [s for s in samples if s.route == selector]


@dataclass
class TripSummary:
    evaluation: list[int]  # every evaluation's round trips, both passes
    by_key: dict[str, list[int]]
    as_expected: bool


def trip_summary(passes: list[Pass]) -> TripSummary:
    by_key: dict[str, list[int]] = {}
    as_expected = True
    for _, key, expected, selector in _categories():
        trips = [s.trips for p in passes for s in _select(p.samples, selector)]
        by_key.setdefault(key, []).extend(trips)
        as_expected = as_expected and all(t == expected for t in trips)
    evaluation = [s.trips for p in passes for s in p.samples if s.route == EVALUATE_ROUTE]
    return TripSummary(evaluation, by_key, as_expected)


def round_trip_report(passes: list[Pass], settings: Settings) -> Report:
    base, delayed = passes
    price = delayed.price - base.price
    rows = []
    for label, _, expected, selector in _categories():
        base_samples, delayed_samples = _select(base.samples, selector), _select(delayed.samples, selector)
        if base_samples and delayed_samples:
            trips = [s.trips for s in base_samples + delayed_samples]
            base_ns, delayed_ns = [s.total for s in base_samples], [s.total for s in delayed_samples]
            rows.append(
                trip_row(
                    label, trips, base_ns, delayed_ns, price, budget=ROUND_TRIP_BUDGET, expected=str(expected)
                )
            )
    passed = all(row[-1] == "PASS" for row in rows)
    delay = settings.delay_ms
    return Report(
        title=f"Chair interrupt: round trips per request (no delay, then {delay:g} ms each way to Postgres)",
        headers=trip_headers(delay, expected=True),
        rows=rows,
        notes=[
            f"Per pass: a cold request, then 20 warm-up steps, then {settings.trip_evaluations} evaluations of the same "
            "kind of debates as part 2 (seeded alike, so both passes play the same debates), with the quick checks, "
            "stats and resets they make; round trips counted by `tests/support/delay_proxy.py` on the warm connection; "
            "evaluations grouped by their decision record's outcome; timed around lambda_handler only.",
            *price_notes(passes, first="request (a stats read)", columns="last columns"),
            f"Budget ≤ {ROUND_TRIP_BUDGET} per request: {verdict(passed)}.",
        ],
        passed=passed,
    )
