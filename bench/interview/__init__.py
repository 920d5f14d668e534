"""Interview turn (`InterviewTurnFunction`): warm turns through lambda_handler (offline, no LLM), and
200-turn sessions beside 10-turn ones. What is measured and the targets: docs/benchmarks.md,
"Interview turn"; round trips per request are `python -m bench.round_trips`'s."""

from __future__ import annotations

import gc
import json
import random
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bench.harness.handler import BenchUser
from bench.harness.report import (
    LATENCY_HEADERS,
    Report,
    bench_main,
    latency_cells,
    median,
    ms,
    scenario_report,
    target,
)
from bench.harness.scenario import Client, Served, latency_targets, serving, warm_loop
from bench.interview import corpus
from bench.interview.corpus import LONG_TURNS, QUICK, SHORT_TURNS, WINDOWS, Script, Settings, script

if TYPE_CHECKING:
    from persona_rails.db import Database

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
    """Checks every answer. Every POST carries a fresh Idempotency-Key, as the app's retrying HTTP
    client sends."""

    def __init__(self, served: Served) -> None:
        self.client = Client(served.handler, served.function)
        self.people = served.users

    def start(self, index: int, made: Script) -> Session:
        """A session of `made` for the index-th user (in rotation)."""
        session = Session(self.people[index % len(self.people)], made)
        answer, _ = self.client.send(START_ROUTE, session.user, 201, body=made.start, key_share=1)
        session.session_id = str(answer["session_id"])
        return session

    def turn(self, session: Session) -> int:
        """The session's next answer; nanoseconds around lambda_handler."""
        turn = session.script.turns[session.taken]
        params = {"session_id": session.session_id}
        answer, elapsed = self.client.send(
            TURN_ROUTE, session.user, params=params, body=turn.body(), key_share=1
        )
        meta = answer["turn"]
        session.taken += 1
        if meta["turn_no"] != session.taken:
            raise RuntimeError(f"expected turn {session.taken}, the handler answered turn {meta['turn_no']}")
        if (meta["session_status"] == "closed") != (turn.kind == "stop"):
            raise RuntimeError(f"a {turn.kind} answer left the session {meta['session_status']}: {turn.text}")
        if meta["source"] != "offline":
            raise RuntimeError("an LLM answered: the benchmark measures the offline engine")
        return elapsed


def measure_mix(driver: Driver, settings: Settings, seed: int) -> tuple[list[int], int]:
    """Warm turns over `open_sessions` sessions in progress at once: the next turn goes to the next
    open session, a finished one is replaced by a new one. Also returns how many were started."""
    rng = random.Random(seed)
    open_sessions: list[Session] = []
    started = 0

    def step(index: int) -> int:
        nonlocal started
        slot = index % settings.open_sessions
        if slot == len(open_sessions) or open_sessions[slot].done:
            length = rng.randint(*corpus.SESSION_TURNS)
            stop = rng.random() < corpus.STOP_SHARE  # drawn before the script's own draws, as ever
            made = script(rng, ("en", "zh")[started % 2], length, end_with_stop=stop)
            open_sessions[slot : slot + 1] = [driver.start(started, made)]  # replace, or open a slot
            started += 1
        return driver.turn(open_sessions[slot])

    totals = warm_loop(settings.warmup, settings.turns, step)
    return totals, started


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
    """A session's engine_state: its bytes as JSON text, and the most facts it keeps on one topic."""
    with owner.as_owner() as tx:
        row = tx.one(
            "SELECT engine_state::text AS state FROM public.interview_sessions WHERE id = CAST(:id AS uuid)",
            id=session_id,
        )
    assert row is not None
    topics = json.loads(row["state"])["topics"].values()
    return len(row["state"].encode()), max((len(topic["facts"]) for topic in topics), default=0)


def measure_growth(driver: Driver, settings: Settings, owner: Database, seed: int) -> Growth:
    """Long sessions advanced together one turn per step, each beside a 10-turn session started
    every 10 steps, so steps 191-200 are measured at the same moments as some 10-turn sessions'
    turns 1-10 (the ratio is free of the machine's drift). No stop request."""
    from interview_turn.artifacts import interview_config

    rng = random.Random(seed)
    count = settings.long_sessions
    result = Growth([], [], {}, 0, interview_config().lexicon.thresholds.max_facts_per_topic)
    shorts: list[Session] = []
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


def run(settings: Settings | None = None) -> Report:
    settings = settings or Settings()
    started = time.monotonic()
    with serving(corpus.FUNCTION_ID, settings.users) as served:
        corpus.check_corpus()  # after loading the handler: the function's code is importable then
        driver = Driver(served)
        totals, sessions = measure_mix(driver, settings, corpus.SEED)
        growth = measure_growth(driver, settings, served.owner, corpus.SEED + 1)

    mix = Report(
        title="Interview: warm turns through lambda_handler (offline, no LLM; embedded Postgres)",
        headers=LATENCY_HEADERS,
        rows=[[TURN_ROUTE, *latency_cells(totals)]],
        notes=[f"{settings.warmup} warm-up turns, then {len(totals)} measured over {sessions} sessions."],
    )
    windows = [(growth.p50(first, last), growth.p50(first, last, short=True)) for first, last in WINDOWS]
    long_report = Report(
        title=f"Interview: {LONG_TURNS}-turn sessions against {SHORT_TURNS}-turn sessions (WARNING)",
        headers=["long sessions' turns", "long p50 ms", "10-turn sessions p50 ms", "long / 10-turn"],
        rows=[
            [f"{first}–{last}", ms(long), ms(short), f"{long / short:.2f}"]
            for (first, last), (long, short) in zip(WINDOWS, windows, strict=True)
        ],
        notes=[
            f"{settings.long_sessions} sessions of {LONG_TURNS} turns, beside rolling {SHORT_TURNS}-turn ones."
        ],
    )
    against_first, against_short = growth.ratios()
    at_10, at_200 = (median(growth.state_bytes[turn]) for turn in (SHORT_TURNS, LONG_TURNS))
    targets = [
        *latency_targets("engine overhead per turn", totals, corpus.P50_TARGET_MS, corpus.P99_TARGET_MS),
        target(
            f"a {LONG_TURNS}-turn session as fast as a {SHORT_TURNS}-turn one (ratio ≤ {corpus.GROWTH_RATIO_TARGET:g})",
            f"{against_first:.2f}× its own first {SHORT_TURNS} turns, {against_short:.2f}× "
            f"{SHORT_TURNS}-turn sessions at the same moments",
            max(against_first, against_short) <= corpus.GROWTH_RATIO_TARGET,
        ),
        target(
            "engine_state bounded",
            f"{at_10:,.0f} B at turn {SHORT_TURNS}, {at_200:,.0f} B at turn {LONG_TURNS} (medians); at most "
            f"{growth.most_facts} facts on one topic (cap {growth.facts_cap})",
            growth.most_facts <= growth.facts_cap,
        ),
    ]
    kinds = ", ".join(f"{kind} {weight:.0%}" for kind, weight in corpus.KIND_WEIGHTS.items())
    notes = [f"corpus: seed {corpus.SEED}, answer kinds weighted {kinds}."]
    return scenario_report("Interview", [mix, long_report], targets, started=started, notes=notes)


def main(argv: list[str] | None = None) -> int:
    count, quick = ("turns", "measured warm turns"), "a smaller run (fewer turns and sessions)"
    return bench_main(__doc__, argv, settings=(QUICK, Settings()), count=count, quick_help=quick, run=run)
