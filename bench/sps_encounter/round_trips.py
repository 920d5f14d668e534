"""3. Round trips per request (see bench/harness/trips.py): encounters one after another, each
listing the catalog, starting, the learner turns (the last keyed one sent again, as a client
retries), reading the encounter back and validating its transcript without and with `store`.
Around every turn the decision records are counted straight on the server (as the owner, not
through the proxy, not timed)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from bench.harness.handler import BenchUser, load_function_handler, stdout_to_devnull
from bench.harness.report import Report, median, ms, trips_cell, verdict
from bench.harness.trips import Pass, cold, price_notes, proxied
from bench.sps_encounter.corpus import (
    EXPECTED_TRIPS,
    FUNCTION_ID,
    LOG_LEVELS,
    ROUND_TRIP_BUDGET,
    CaseRef,
    Settings,
)
from bench.sps_encounter.handler import (
    GET_ROUTE,
    SCENARIOS_ROUTE,
    START_ROUTE,
    TURN_ROUTE,
    VALIDATE_ROUTE,
    Driver,
    Sample,
    event,
    spans,
)

if TYPE_CHECKING:
    from persona_rails.db import Database
    from persona_rails_dev.template import Function

WARMUP_ENCOUNTERS = 1


def measure_pass(
    database_url: str,
    *,
    function: Function,
    owners: list[BenchUser],
    owner: Database,
    cases: list[CaseRef],
    settings: Settings,
    delay_ms: float,
    seed: int,
) -> Pass:
    """A cold request first (a start, reported apart), then warm-up encounters, then
    `trip_encounters` encounters of `trip_turns` turns, every request counted."""
    result = Pass(delay_ms)
    level = LOG_LEVELS[0]

    with (
        proxied(database_url, result, partial(load_function_handler, function)) as (proxy, handler),
        stdout_to_devnull(),
        spans(count_bytes=True) as found,
    ):
        driver = Driver(
            handler,
            function,
            found=found,
            settings=settings,
            owners=owners,
            cases=cases,
            seed=seed,
            proxy=proxy,
            records_of=owner,
        )
        body = {"scenario_id": cases[0].scenario_id, "seed": 1}
        request = event(function, START_ROUTE, owners[0].token, body=body, key=str(uuid.uuid4()))
        cold(proxy, handler, request, function_id=FUNCTION_ID, result=result, status=201)
        for index in range(WARMUP_ENCOUNTERS + settings.trip_encounters):
            encounter = driver.new_encounter()
            encounter.stream = encounter.stream[: settings.trip_turns]
            taken = [driver.scenarios(encounter, level), driver.start(encounter, level)]
            while not encounter.done:
                taken.append(driver.turn(encounter, level, count_records=True))
            if encounter.keys:
                taken.append(driver.retry(encounter, level))
            read, transcript = driver.get(encounter, level)
            taken.append(read)
            taken.append(driver.validate(encounter, transcript, level, store=False))
            taken.append(driver.validate(encounter, transcript, level, store=True))
            if index >= WARMUP_ENCOUNTERS:
                result.samples.extend(taken)
    return result


def _bytes_cell(values: list[int]) -> str:
    if not values:
        return "not counted"
    low, high = min(values), max(values)
    return f"{low:,} B" if low == high else f"{low:,}–{high:,} B"


def _categories() -> list[tuple[str, str, object]]:
    """(label, expected key, selector) for each row of the round-trip table."""
    return [
        ("list the scenarios (GET)", "scenarios", lambda s: s.route == SCENARIOS_ROUTE),
        ("start an encounter (POST)", "start", lambda s: s.route == START_ROUTE),
        ("patient turn (POST), all", "turn", lambda s: s.route == TURN_ROUTE and not s.retried),
        ("patient turn, with an Idempotency-Key", "turn", lambda s: s.route == TURN_ROUTE and s.keyed),
        (
            "patient turn, without a key",
            "turn",
            lambda s: s.route == TURN_ROUTE and not s.keyed and not s.retried,
        ),
        ("a keyed turn retried (the stored turn returned)", "retried turn", lambda s: s.retried),
        ("read the encounter (GET)", "get", lambda s: s.route == GET_ROUTE),
        ("validate its transcript (POST)", "validate", lambda s: s.route == VALIDATE_ROUTE and not s.stored),
        (
            "validate its transcript, `store: true` (POST)",
            "validate, store",
            lambda s: s.route == VALIDATE_ROUTE and s.stored,
        ),
    ]


def _select(samples: list[Sample], selector: object) -> list[Sample]:
    assert callable(selector)
    return [s for s in samples if selector(s)]


@dataclass
class TripSummary:
    turn: list[int]  # every (not retried) turn's round trips, both passes
    records: list[int]  # decision records written per turn, both passes
    retried_records: list[int]
    by_key: dict[str, list[int]]
    as_expected: bool


def _key_of(sample: Sample) -> str:
    """The EXPECTED_TRIPS key of a sample."""
    return next(key for _, key, selector in _categories() if _select([sample], selector))


def trip_summary(passes: list[Pass]) -> TripSummary:
    """Counts of both passes; `as_expected` judged on the delayed pass (see round_trip_report)."""
    by_key: dict[str, list[int]] = {}
    as_expected = True
    for _, key, selector in _categories():
        by_key.setdefault(key, []).extend(s.trips for p in passes for s in _select(p.samples, selector))
        delayed = [s.trips for s in _select(passes[-1].samples, selector)]
        as_expected = as_expected and all(t == EXPECTED_TRIPS[key] for t in delayed)
    turns = [s for p in passes for s in p.samples if s.route == TURN_ROUTE and not s.retried]
    retried = [s for p in passes for s in p.samples if s.retried]
    return TripSummary(
        [s.trips for s in turns],
        [s.records for s in turns],
        [s.records for s in retried],
        by_key,
        as_expected,
    )


def round_trip_report(passes: list[Pass], settings: Settings) -> Report:
    base, delayed = passes
    price = delayed.price - base.price
    rows, passed = [], True
    for label, key, selector in _categories():
        base_samples, delayed_samples = _select(base.samples, selector), _select(delayed.samples, selector)
        if not base_samples or not delayed_samples:
            continue
        trips = [s.trips for s in base_samples + delayed_samples]
        worst = max(trips)
        passed = passed and worst <= ROUND_TRIP_BUDGET
        base_p50 = median([s.total for s in base_samples])
        delayed_p50 = median([s.total for s in delayed_samples])
        records = [s.records for s in base_samples + delayed_samples if s.records >= 0]
        written = [s.sent[-1] for s in base_samples + delayed_samples if s.sent]
        rows.append(
            [
                label,
                str(len(trips)),
                trips_cell([s.trips for s in base_samples]),
                trips_cell([s.trips for s in delayed_samples]),
                str(EXPECTED_TRIPS[key]),
                f"≤ {ROUND_TRIP_BUDGET}",
                ms(base_p50),
                ms(delayed_p50),
                ms(delayed_p50 - base_p50),
                ms(median(trips) * price),
                trips_cell(records) if records else "",
                _bytes_cell(written) if written else "",
                verdict(worst <= ROUND_TRIP_BUDGET),
            ]
        )
    summary = trip_summary(passes)
    extra = [s for s in base.samples if s.trips > EXPECTED_TRIPS.get(_key_of(s), s.trips)]
    delay = settings.delay_ms
    return Report(
        title=f"SPS encounter: round trips per request (no delay, then {delay:g} ms each way to Postgres)",
        headers=[
            "requests",
            "n",
            "round trips, no delay",
            f"round trips, +{delay:g} ms",
            "expected",
            "budget",
            "p50 ms, no delay",
            f"p50 ms, +{delay:g} ms each way",
            "added",
            "round trips × one round trip's added cost",
            "decision records written",
            "bytes of its last batch",
            "verdict",
        ],
        rows=rows,
        notes=[
            f"Per pass: a cold request (a start), then 1 warm-up encounter, then {settings.trip_encounters} encounters "
            f"of {settings.trip_turns} turns (the same kind as part 2, seeded alike in both passes), each with a "
            "catalog read, its start, its turns, the last keyed turn sent again with its key, a read and two "
            "validations; round trips counted by `tests/support/delay_proxy.py` on the warm connection; timed around "
            "lambda_handler only; decision records counted on the server around every turn (not through the proxy).",
            *price_notes(passes, first="request (a start)", columns="last columns"),
            f"Counts {'as' if summary.as_expected else 'NOT as'} expected in the delayed pass (turn 2, start 2, GET 1, "
            "validate 0, stored validation 1, catalog 0, a retried turn 1)"
            + (
                f"; the no-delay pass counted extra flights for {len(extra)} request(s) "
                f"({', '.join(sorted({_key_of(s) for s in extra}))}, up to {max(s.trips for s in extra)}; last batch "
                f"{_bytes_cell([s.sent[-1] for s in extra if s.sent])}): a batch "
                "over pg8000's 8 KiB buffer goes out in two writes, and with no delay the server's first replies can "
                "reach the proxy between them, which it counts as a new flight; with a real delay the writes "
                "travel together (the delayed pass, and the added latency, show the expected count)"
                if extra
                else ""
            )
            + ". Decision records per turn: "
            f"{trips_cell(summary.records)}; per retried turn: "
            f"{trips_cell(summary.retried_records) if summary.retried_records else 'none retried'}.",
            f"Budget ≤ {ROUND_TRIP_BUDGET} per request: {verdict(passed)}.",
        ],
        passed=passed,
    )
