"""The real InterviewTurnFunction handler, its events, and the two in-process measurements:
the turn mix (engine overhead per turn) and the 200-turn sessions (no growth with history)."""

from __future__ import annotations

import gc
import json
import random
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bench.harness.handler import QUIET_POWERTOOLS, BenchUser, expect_status, set_log_level, stdout_to_devnull
from bench.harness.handler import event as harness_event
from bench.harness.handler import lambda_context as harness_context
from bench.harness.timing import Spans, call, rebound, timer
from bench.harness.timing import spans as timing_spans
from bench.interview.corpus import (
    FUNCTION_ID,
    LOG_LEVELS,
    LONG_TURNS,
    SHORT_TURNS,
    WINDOWS,
    Script,
    Settings,
    Turn,
    script,
)

if TYPE_CHECKING:
    from persona_rails.db import Database
    from persona_rails_dev.lambda_runtime import Handler
    from persona_rails_dev.template import Function

START_ROUTE = "POST /interview/sessions"
TURN_ROUTE = "POST /interview/sessions/{session_id}/turns"
GET_ROUTE = "GET /interview/sessions/{session_id}"


# --- the handler, its events, and where a turn's time goes ------------------------------------------------


def event(
    function: Function,
    route_key: str,
    token: str,
    session_id: str | None = None,
    body: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """POSTs carry a fresh Idempotency-Key, as the app's retrying HTTP client sends."""
    params = {"session_id": session_id} if session_id and route_key != START_ROUTE else None
    key = str(uuid.uuid4()) if body is not None else None
    return harness_event(function, route_key, token, params, body=body, key=key)


def lambda_context() -> Any:
    return harness_context(FUNCTION_ID)


@contextmanager
def spans(*, count_bytes: bool = False) -> Iterator[Spans]:
    """engine = `plan_turn` + `finish_turn`, wherever the function's modules call them by name;
    state = `SessionState.to_json` and `from_json`; and each transaction."""
    from interview_turn.engine import turn as engine
    from interview_turn.engine.model import SessionState

    parts = [(SessionState, "to_json", "state"), (SessionState, "from_json", "state")]
    with timing_spans(parts, count_bytes=count_bytes) as found, ExitStack() as stack:
        for original in (engine.plan_turn, engine.finish_turn):
            stack.enter_context(rebound("interview_turn", original, timer(found, "engine", original)))
        yield found


@dataclass(frozen=True)
class TurnSample:
    level: str
    language: str
    kind: str
    rule: str
    turn_no: int
    closed: bool
    total: int  # nanoseconds around lambda_handler
    engine: int  # plan_turn + finish_turn
    state: int  # SessionState.from_json + to_json (the service converts the state three times a turn)
    read: int  # the first transaction (session, last turn, keyed turn)
    write: int  # the last (advance the session, insert the turn and its decision record)

    @property
    def rest(self) -> int:
        """Mangum, FastAPI, the JWT, request and response models, JSON text, logs and EMF."""
        return self.total - self.engine - self.state - self.read - self.write


# --- one session through the handler -----------------------------------------------------------------------


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
    """Calls the handler, checks every answer, and times what it is asked to time."""

    def __init__(self, handler: Handler, function: Function, found: Spans) -> None:
        self.handler = handler
        self.function = function
        self.spans = found

    def start(self, session: Session) -> int:
        started_event = event(self.function, START_ROUTE, session.user.token, body=session.script.start)
        result, elapsed, _ = call(self.handler, started_event, FUNCTION_ID)
        body = expect_status(result, 201, "start an interview session")
        session.session_id = str(body["session_id"])
        return elapsed

    def get(self, session: Session) -> int:
        read_event = event(self.function, GET_ROUTE, session.user.token, session.session_id)
        result, elapsed, _ = call(self.handler, read_event, FUNCTION_ID)
        body = expect_status(result, 200, "read an interview session")
        if len(body["turns"]) != session.taken + 1:
            raise RuntimeError(f"GET returned {len(body['turns'])} turns, expected {session.taken + 1}")
        return elapsed

    def turn(self, session: Session, level: str) -> TurnSample:
        turn: Turn = session.script.turns[session.taken]
        turn_event = event(self.function, TURN_ROUTE, session.user.token, session.session_id, turn.body())
        self.spans.clear()
        result, elapsed, _ = call(self.handler, turn_event, FUNCTION_ID)
        body = expect_status(result, 200, f"turn {session.taken + 1} ({turn.kind})")
        session.taken += 1
        meta = body["turn"]
        if meta["turn_no"] != session.taken:
            raise RuntimeError(f"expected turn {session.taken}, the handler answered turn {meta['turn_no']}")
        closed = meta["session_status"] == "closed"
        if closed != (turn.kind == "stop"):
            raise RuntimeError(f"a {turn.kind} answer left the session {meta['session_status']}: {turn.text}")
        if meta["source"] != "offline":
            raise RuntimeError("an LLM answered: the benchmark measures the offline engine")
        transactions = self.spans.transactions
        if len(transactions) != 2:
            raise RuntimeError(f"a turn ran {len(transactions)} transactions (serialized?), expected 2")
        return TurnSample(
            level,
            session.script.language,
            turn.kind,
            body["winning_rule"],
            meta["turn_no"],
            closed,
            elapsed,
            self.spans.engine,
            self.spans.state,
            transactions[0],
            transactions[-1],
        )


# --- 1. the turn mix ------------------------------------------------------------------------------------------


@dataclass
class MixResults:
    samples: list[TurnSample]
    starts: list[int]
    gets: list[int]
    get_turns: list[int]  # how many turns each timed GET returned
    sessions: int
    warmup: int


def measure_mix(
    handler: Handler, *, function: Function, people: list[BenchUser], settings: Settings, seed: int
) -> MixResults:
    """Warm-up turns, then `settings.turns` per log level, over sessions in progress at once (the
    next turn goes to the next open session in turn); levels alternate turn by turn. A finished
    session is read back (GET, timed) and replaced by a new one (start, timed)."""
    rng = random.Random(seed)
    total = settings.warmup + settings.turns * len(LOG_LEVELS)
    result = MixResults([], [], [], [], 0, settings.warmup)
    open_sessions: list[Session | None] = [None] * settings.open_sessions
    with stdout_to_devnull(), spans() as found:
        driver = Driver(handler, function, found)
        try:
            index = 0
            while index < total:
                for slot, current in enumerate(open_sessions):
                    if index >= total:
                        break
                    set_log_level(LOG_LEVELS[0])
                    session = current
                    if session is None or session.done:
                        if session is not None:
                            result.gets.append(driver.get(session))
                            result.get_turns.append(session.taken + 1)
                        language = ("en", "zh")[result.sessions % 2]
                        length = rng.randint(*settings.session_turns)
                        made = script(rng, language, length, end_with_stop=rng.random() < settings.stop_share)
                        session = Session(people[result.sessions % len(people)], made)
                        result.sessions += 1
                        result.starts.append(driver.start(session))
                        open_sessions[slot] = session
                    measured = index >= settings.warmup
                    level = (
                        LOG_LEVELS[(index - settings.warmup) % len(LOG_LEVELS)] if measured else LOG_LEVELS[0]
                    )
                    set_log_level(level)
                    if index == settings.warmup:
                        gc.collect()  # measure from a clean heap, as a warm container would be
                    sample = driver.turn(session, level)
                    if measured:
                        result.samples.append(sample)
                    index += 1
        finally:
            set_log_level(QUIET_POWERTOOLS["POWERTOOLS_LOG_LEVEL"])
    return result


# --- 2. 200-turn sessions beside 10-turn ones ------------------------------------------------------------------


@dataclass(frozen=True)
class StateSize:
    turn_no: int
    state_bytes: int  # engine_state as JSON text (what Postgres stores and the service parses)
    facts: int  # facts kept over all the session's topics
    max_topic_facts: int
    topics: int
    record_bytes: int  # that turn's decision record: inputs + output, as JSON text


@dataclass
class GrowthResults:
    long: list[list[TurnSample]]  # per long session, turns 1..200 in order
    short: list[tuple[int, TurnSample]]  # (step, sample) of the 10-turn sessions alongside
    sizes: list[list[StateSize]]  # per long session, at the end of each window
    gets: dict[int, list[int]]  # GET /interview/sessions/{id} at 10 and at 200 turns
    facts_cap: int
    states: dict[int, dict[str, Any]] = field(default_factory=dict)  # the first long session's, by turn


def state_size(owner: Database, session_id: str) -> tuple[StateSize, dict[str, Any]]:
    with owner.as_owner() as tx:
        row = tx.one(
            """
            SELECT s.turn_count, s.engine_state::text AS state, octet_length(s.engine_state::text) AS bytes,
                   octet_length(r.inputs::text) + octet_length(r.output::text) AS record_bytes
            FROM public.interview_sessions s
            JOIN public.interview_turns t ON t.session_id = s.id AND t.turn_no = s.turn_count
            JOIN public.decision_records r ON r.id = t.id
            WHERE s.id = CAST(:id AS uuid)
            """,
            id=session_id,
        )
    assert row is not None
    state = json.loads(row["state"])
    facts = [len(topic["facts"]) for topic in state["topics"].values()]
    size = StateSize(row["turn_count"], row["bytes"], sum(facts), max(facts), len(facts), row["record_bytes"])
    return size, state


def measure_growth(
    handler: Handler,
    *,
    function: Function,
    people: list[BenchUser],
    owner: Database,
    settings: Settings,
    seed: int,
) -> GrowthResults:
    """`settings.long_sessions` sessions of 200 turns, advanced together one turn per step; beside
    each, a 10-turn session started every 10 steps, so that steps 191-200 are some 10-turn
    sessions' turns 1-10, measured at the same moments as the long sessions' last ten. Within a
    step the order of long and short alternates. No stop request: every session stays open."""
    from interview_turn.artifacts import interview_config

    rng = random.Random(seed)
    count = settings.long_sessions
    longs = [
        Session(people[k % len(people)], script(rng, ("en", "zh")[k % 2], LONG_TURNS, end_with_stop=False))
        for k in range(count)
    ]
    shorts: list[Session] = []
    result = GrowthResults([[] for _ in range(count)], [], [[] for _ in range(count)], {}, 0)
    result.facts_cap = interview_config().lexicon.thresholds.max_facts_per_topic
    window_ends = {end for _, end in WINDOWS}
    level = LOG_LEVELS[0]
    with stdout_to_devnull(), spans() as found:
        driver = Driver(handler, function, found)
        set_log_level(level)
        for session in longs:
            driver.start(session)
        gc.collect()
        for step in range(1, LONG_TURNS + 1):
            if (step - 1) % SHORT_TURNS == 0:
                shorts = []
                for k in range(count):
                    language = ("zh", "en")[k % 2]
                    short = Session(
                        people[(k + 1) % len(people)], script(rng, language, SHORT_TURNS, end_with_stop=False)
                    )
                    driver.start(short)
                    shorts.append(short)
            for k in range(count):
                pair = (longs[k], shorts[k]) if (step + k) % 2 else (shorts[k], longs[k])
                for session in pair:
                    sample = driver.turn(session, level)
                    if session is longs[k]:
                        result.long[k].append(sample)
                    else:
                        result.short.append((step, sample))
            if step in window_ends:
                for k, session in enumerate(longs):
                    size, state = state_size(owner, session.session_id)
                    result.sizes[k].append(size)
                    if k == 0:
                        result.states[step] = state
            if step in (SHORT_TURNS, LONG_TURNS):
                result.gets[step] = [driver.get(session) for _ in range(3) for session in longs]
    return result
