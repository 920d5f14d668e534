"""Interview turn (`InterviewTurnFunction`): warm turns through lambda_handler (engine overhead per
turn, no LLM), and 200-turn sessions beside 10-turn ones (no growth with history). Every turn is
timed around `lambda_handler(event, context)` only; round trips per request are
`bench.round_trips`'s ("Round trips per request"). What each part measures and its targets:
docs/benchmarks.md, "Interview turn".

    python -m bench.interview [--quick] [--turns 1000] [--strict]
"""

from __future__ import annotations

import gc
import json
import random
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bench.harness.handler import (
    BenchUser,
    call,
    create_accounts,
    embedded_database,
    event,
    expect_status,
    function,
    load_function_handler,
    release_handler_state,
    stdout_to_devnull,
)
from bench.harness.report import (
    LATENCY_HEADERS,
    Report,
    bench_main,
    latency_cells,
    median,
    ms,
    percentile,
    scenario_report,
    target,
)
from bench.interview.corpus import (
    FUNCTION_ID,
    GROWTH_RATIO_TARGET,
    KIND_WEIGHTS,
    LONG_TURNS,
    P50_TARGET_MS,
    P99_TARGET_MS,
    QUICK,
    SEED,
    SESSION_TURNS,
    SHORT_TURNS,
    STOP_SHARE,
    WINDOWS,
    Script,
    Settings,
    check_corpus,
    script,
)

if TYPE_CHECKING:
    from persona_rails.db import Database
    from persona_rails_dev.lambda_runtime import Handler
    from persona_rails_dev.template import Function

START_ROUTE = "POST /interview/sessions"
TURN_ROUTE = "POST /interview/sessions/{session_id}/turns"


@dataclass
class Session:
    user: BenchUser
    script: Script
    session_id: str = ""
    taken: int = 0  # turns answered so far

    @property
    def done(self) -> bool:
        return self.taken >= len(self.script.turns)


class Driver:
    """Calls the handler and checks every answer. Every POST carries a fresh Idempotency-Key, as
    the app's retrying HTTP client sends."""

    def __init__(self, handler: Handler, function: Function, people: list[BenchUser]) -> None:
        self.handler = handler
        self.function = function
        self.people = people

    def start(self, index: int, made: Script) -> Session:
        """A session of `made` for the index-th user (in rotation), started through the handler."""
        session = Session(self.people[index % len(self.people)], made)
        request = event(
            self.function, START_ROUTE, session.user.token, body=made.start, key=str(uuid.uuid4())
        )
        result, _ = call(self.handler, request, FUNCTION_ID)
        session.session_id = str(expect_status(result, 201, "start an interview session")["session_id"])
        return session

    def turn(self, session: Session) -> int:
        """The session's next answer; nanoseconds around lambda_handler."""
        turn = session.script.turns[session.taken]
        params = {"session_id": session.session_id}
        request = event(
            self.function, TURN_ROUTE, session.user.token, params, body=turn.body(), key=str(uuid.uuid4())
        )
        result, elapsed = call(self.handler, request, FUNCTION_ID)
        meta = expect_status(result, 200, f"turn {session.taken + 1} ({turn.kind})")["turn"]
        session.taken += 1
        if meta["turn_no"] != session.taken:
            raise RuntimeError(f"expected turn {session.taken}, the handler answered turn {meta['turn_no']}")
        if (meta["session_status"] == "closed") != (turn.kind == "stop"):
            raise RuntimeError(f"a {turn.kind} answer left the session {meta['session_status']}: {turn.text}")
        if meta["source"] != "offline":
            raise RuntimeError("an LLM answered: the benchmark measures the offline engine")
        return elapsed


# --- 1. warm turns ----------------------------------------------------------------------------------------


def measure_mix(driver: Driver, settings: Settings, seed: int) -> tuple[list[int], int]:
    """`settings.warmup` turns, then `settings.turns` measured ones (nanoseconds), over sessions in
    progress at once: the next turn goes to the next open session, and a finished session is
    replaced by a new one (English and Chinese alternating, users in rotation, half ending with a
    stop request). Also returns how many sessions were started."""
    rng = random.Random(seed)
    open_sessions: list[Session] = []
    totals: list[int] = []
    started = 0
    with stdout_to_devnull():
        for index in range(settings.warmup + settings.turns):
            slot = index % settings.open_sessions
            if slot == len(open_sessions) or open_sessions[slot].done:
                length = rng.randint(*SESSION_TURNS)
                made = script(rng, ("en", "zh")[started % 2], length, end_with_stop=rng.random() < STOP_SHARE)
                open_sessions[slot : slot + 1] = [driver.start(started, made)]  # replace, or open a slot
                started += 1
            if index == settings.warmup:
                gc.collect()  # measure from a clean heap, as a warm container would be
            elapsed = driver.turn(open_sessions[slot])
            if index >= settings.warmup:
                totals.append(elapsed)
    return totals, started


# --- 2. 200-turn sessions beside 10-turn ones ------------------------------------------------------------


@dataclass
class Growth:
    long: list[tuple[int, int]]  # (step, nanoseconds): the long sessions' turns; step = turn number
    short: list[tuple[int, int]]  # (step, nanoseconds): the 10-turn sessions' turns beside them
    state_bytes: dict[int, list[int]]  # the long sessions' engine_state (JSON text) at turns 10 and 200
    most_facts: int  # the most facts a long session keeps on one topic at turn 200
    facts_cap: int  # the lexicon's `max_facts_per_topic`

    def p50(self, first: int, last: int, *, short: bool = False) -> float:
        return median([ns for step, ns in (self.short if short else self.long) if first <= step <= last])

    def ratios(self) -> tuple[float, float]:
        """The long sessions' last ten turns against their own first ten, and against 10-turn
        sessions' turns measured at the same moments."""
        start = LONG_TURNS - SHORT_TURNS + 1
        last = self.p50(start, LONG_TURNS)
        return last / self.p50(1, SHORT_TURNS), last / self.p50(start, LONG_TURNS, short=True)


def engine_state(owner: Database, session_id: str) -> tuple[int, int]:
    """A session's engine_state: its bytes as JSON text (what Postgres stores and the service
    parses), and the most facts it keeps on one topic."""
    with owner.as_owner() as tx:
        row = tx.one(
            "SELECT engine_state::text AS state FROM public.interview_sessions WHERE id = CAST(:id AS uuid)",
            id=session_id,
        )
    assert row is not None
    topics = json.loads(row["state"])["topics"].values()
    return len(row["state"].encode()), max((len(topic["facts"]) for topic in topics), default=0)


def measure_growth(driver: Driver, settings: Settings, owner: Database, seed: int) -> Growth:
    """`settings.long_sessions` sessions of 200 turns, advanced together one turn per step; beside
    each, a 10-turn session started every 10 steps, so that steps 191-200 are some 10-turn
    sessions' turns 1-10, measured at the same moments as the long sessions' last ten (the ratio
    is free of the machine's drift). Within a step the order of long and short alternates. No
    stop request: every session stays open."""
    from interview_turn.artifacts import interview_config

    rng = random.Random(seed)
    count = settings.long_sessions
    result = Growth([], [], {}, 0, interview_config().lexicon.thresholds.max_facts_per_topic)
    shorts: list[Session] = []
    with stdout_to_devnull():
        longs = [
            driver.start(k, script(rng, ("en", "zh")[k % 2], LONG_TURNS, end_with_stop=False))
            for k in range(count)
        ]
        gc.collect()
        for step in range(1, LONG_TURNS + 1):
            if step % SHORT_TURNS == 1:
                shorts = [
                    driver.start(k + 1, script(rng, ("zh", "en")[k % 2], SHORT_TURNS, end_with_stop=False))
                    for k in range(count)
                ]
            for k in range(count):
                pair = (longs[k], shorts[k]) if (step + k) % 2 else (shorts[k], longs[k])
                for session in pair:
                    elapsed = driver.turn(session)
                    (result.long if session is longs[k] else result.short).append((step, elapsed))
            if step in (SHORT_TURNS, LONG_TURNS):
                states = [engine_state(owner, session.session_id) for session in longs]
                result.state_bytes[step] = [size for size, _ in states]
                result.most_facts = max(facts for _, facts in states)
    return result


# --- the report ------------------------------------------------------------------------------------------


def mix_report(totals: list[int], sessions: int, settings: Settings) -> Report:
    return Report(
        title="Interview: warm turns through lambda_handler (offline, no LLM; embedded Postgres)",
        headers=LATENCY_HEADERS,
        rows=[["POST /interview/sessions/{session_id}/turns", *latency_cells(totals)]],
        notes=[
            f"{settings.warmup} warm-up turns, then {len(totals)} measured turns over {sessions} sessions "
            f"({SESSION_TURNS[0]}–{SESSION_TURNS[1]} turns each, English and Chinese alternating, half ending with "
            f"a stop request), {settings.open_sessions} in progress at once, users in rotation; every POST carries a "
            "fresh Idempotency-Key. Timed around `lambda_handler(event, context)` only; in-process handler on this "
            "machine, embedded Postgres over its unix socket (not the packaged artifact); log level WARNING, "
            "metrics on, stdout to /dev/null.",
        ],
    )


def growth_report(growth: Growth, settings: Settings) -> Report:
    rows = []
    for first, last in WINDOWS:
        long, short = growth.p50(first, last), growth.p50(first, last, short=True)
        rows.append([f"{first}–{last}", ms(long), ms(short), f"{long / short:.2f}"])
    return Report(
        title=f"Interview: {LONG_TURNS}-turn sessions against {SHORT_TURNS}-turn sessions (WARNING)",
        headers=["long sessions' turns", "long p50 ms", "10-turn sessions p50 ms", "long / 10-turn"],
        rows=rows,
        notes=[
            f"{settings.long_sessions} sessions of {LONG_TURNS} turns (3–4 planned topics, no stop request) advanced "
            f"together, one turn each per step; beside each, a {SHORT_TURNS}-turn session started every "
            f"{SHORT_TURNS} steps, long and short alternating within a step, so each row's two columns are measured "
            "at the same moments. Same handler, database and corpus as the warm turns (after them).",
        ],
    )


def run(settings: Settings | None = None) -> Report:
    settings = settings or Settings()
    started = time.monotonic()
    declared = function(FUNCTION_ID)
    with embedded_database() as database:
        people = create_accounts(database.owner, settings.users)
        driver = Driver(load_function_handler(declared, database.url), declared, people)
        try:
            check_corpus()  # after loading the handler: the function's code is importable then
            totals, sessions = measure_mix(driver, settings, SEED)
            growth = measure_growth(driver, settings, database.owner, SEED + 1)
        finally:
            release_handler_state()

    targets = []
    for q, limit in ((50, P50_TARGET_MS), (99, P99_TARGET_MS)):
        value = percentile(totals, q)
        label = f"engine overhead per turn p{q} ≤ {limit:g} ms"
        targets.append(target(label, f"{ms(value)} ms", value <= limit * 1e6))
    against_first, against_short = growth.ratios()
    at_10, at_200 = (median(growth.state_bytes[turn]) for turn in (SHORT_TURNS, LONG_TURNS))
    targets += [
        target(
            f"a {LONG_TURNS}-turn session as fast as a {SHORT_TURNS}-turn one (ratio ≤ {GROWTH_RATIO_TARGET:g})",
            f"{against_first:.2f}× its own first {SHORT_TURNS} turns, {against_short:.2f}× "
            f"{SHORT_TURNS}-turn sessions at the same moments",
            max(against_first, against_short) <= GROWTH_RATIO_TARGET,
        ),
        target(
            "engine_state bounded",
            f"{at_10:,.0f} B at turn {SHORT_TURNS}, {at_200:,.0f} B at turn {LONG_TURNS} (medians); at most "
            f"{growth.most_facts} facts on one topic (cap {growth.facts_cap})",
            growth.most_facts <= growth.facts_cap,
        ),
    ]
    kinds = ", ".join(f"{kind} {weight:.0%}" for kind, weight in KIND_WEIGHTS.items())
    return scenario_report(
        "Interview",
        [mix_report(totals, sessions, settings), growth_report(growth, settings)],
        targets,
        started=started,
        notes=[
            f"corpus: seed {SEED}, answer kinds weighted {kinds}.",
            "round trips per request: `python -m bench.round_trips` (each route ≤ 4).",
        ],
    )


def main(argv: list[str] | None = None) -> int:
    return bench_main(
        __doc__,
        argv,
        settings=(QUICK, Settings()),
        count=("turns", "turns", "measured warm turns"),
        quick_help="a smaller run (fewer turns and sessions)",
        run=run,
    )
