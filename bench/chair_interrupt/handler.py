"""The real ChairInterruptFunction handler, its events, and the debates the benchmark plays through
it: owners with several debates each, evaluations chunk by chunk, stats and cooldown resets
between rounds. Used in-process (part 2) and behind the delaying proxy (part 3)."""

from __future__ import annotations

import random
import sys
import uuid
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bench.chair_interrupt.corpus import (
    EN_TOPICS,
    FRAMEWORKS,
    FUNCTION_ID,
    LANGUAGES,
    LOG_LEVELS,
    MODELS,
    REASON_WEIGHTS,
    REASONS,
    TRIGGER_SHARE,
    ZH_TOPICS,
    Settings,
    chunk,
)
from bench.harness.handler import (
    BenchUser,
    expect_status,
    service_token,
    set_log_level,
)
from bench.harness.handler import event as harness_event
from bench.harness.timing import Spans, call
from bench.harness.timing import spans as timing_spans

if TYPE_CHECKING:
    from persona_rails_dev.lambda_runtime import Handler
    from persona_rails_dev.template import Function
    from tests.support.delay_proxy import DelayProxy

PREFIX = "/debates/{debate_id}/interrupts"
EVALUATE_ROUTE = f"POST {PREFIX}/evaluate"
QUICK_ROUTE = f"POST {PREFIX}/quick-check"
STATS_ROUTE = f"GET {PREFIX}/stats"
RESET_ROUTE = f"POST {PREFIX}/reset-cooldowns"
EVALUATION_ID_HEADER = "x-evaluation-id"

COOLDOWNS = (0, 5, 10, 15, 20, 30, 45, 60)  # a debate's cooldown_seconds, drawn uniformly
# Of every 16 debates started, the second has interruptions disabled and the tenth chair
# interruptions off (1 in 8 in all; among the first ones, so that every run has both).
GATED_PERIOD = 16
DISABLED_AT, CHAIRS_OFF_AT = 1, 9
SERVICE_SHARE = 0.5  # of requests, made by the orchestrator's service-role token for the owner
CHUNKS_PER_SPEECH = 3  # a chair speaks this many chunks, unless interrupted
GATED = ("disabled", "chair_interruptions_off")  # outcomes of evaluations the debate gated off
QUICK_EVERY = 5  # the quick-check route is also called on every fifth chunk


def event(
    function: Function,
    route_key: str,
    token: str,
    debate_id: str,
    *,
    body: dict[str, Any] | None = None,
    query: str = "",
) -> dict[str, Any]:
    return harness_event(function, route_key, token, {"debate_id": debate_id}, body=body, query=query)


def spans() -> AbstractContextManager[Spans]:
    """engine = `quick_check` + `decide`; hashing = `context_hash` + `fingerprint` (each a JSON dump
    of the whole body and a SHA-256), as the service calls them; and each transaction."""
    service = sys.modules["chair_interrupt.service"]
    parts = {"quick_check": "engine", "decide": "engine", "context_hash": "hashing", "fingerprint": "hashing"}
    return timing_spans([(service, name, part) for name, part in parts.items()], sizes=False)


# --- debates -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Seat:
    position: str
    framework: str
    model: str

    def body(self) -> dict[str, Any]:
        return {
            "position": self.position,
            "framework": self.framework,
            "model_id": self.model,
            "model_display_name": self.model,
        }


@dataclass
class Debate:
    id: str
    owner: BenchUser
    language: str
    topic: str
    seats: list[Seat]
    aggressiveness: int
    cooldown: int
    enabled: bool
    allow_chairs: bool
    length: int  # evaluations before the debate ends
    taken: int = 0
    speaker: int = 0
    spoken: int = 0  # chunks the current speaker has said
    chunks: list[str] = field(default_factory=list)
    interrupts: int = 0

    @property
    def done(self) -> bool:
        return self.taken >= self.length

    @property
    def schools(self) -> tuple[str, ...]:
        return tuple(seat.framework for seat in self.seats)


def new_debate(rng: random.Random, owner: BenchUser, settings: Settings, index: int) -> Debate:
    language = LANGUAGES[index % 2]
    frameworks = rng.sample(FRAMEWORKS, rng.randint(3, 5))
    models = rng.sample(MODELS, len(frameworks))
    seats = [
        Seat(f"chair_{k + 1}", framework, model)
        for k, (framework, model) in enumerate(zip(frameworks, models, strict=True))
    ]
    gated = index % GATED_PERIOD
    return Debate(
        id=str(uuid.uuid4()),
        owner=owner,
        language=language,
        topic=rng.choice(EN_TOPICS if language == "en" else ZH_TOPICS),
        seats=seats,
        aggressiveness=rng.randint(1, 5),
        cooldown=rng.choice(COOLDOWNS),
        enabled=gated != DISABLED_AT,
        allow_chairs=gated != CHAIRS_OFF_AT,
        length=rng.randint(*settings.debate_chunks),
    )


@dataclass
class Sample:
    """One timed request."""

    route: str
    level: str
    total: int  # nanoseconds around lambda_handler
    caller: str  # "user" or "service"
    trips: int = -1  # round trips, when counted through the proxy
    # Evaluations only:
    language: str = ""
    reason: str | None = None  # the trigger the chunk carries (corpus label)
    aggressiveness: int = 0
    cooldown: int = 0
    debate_chars: int = 0  # debate_so_far's length
    interrupted: bool = False
    evaluation_id: str = ""
    outcome: str = ""  # the decision record's, read afterwards
    on_cooldown: int = 0  # chairs the evaluation found on cooldown (the decision record's)
    engine: int = 0
    hashing: int = 0
    transactions: tuple[int, ...] = ()
    cleared: int = 0  # resets: chairs the reply names

    @property
    def read(self) -> int:
        return self.transactions[0] if len(self.transactions) == 2 else 0

    @property
    def write(self) -> int:
        return self.transactions[-1] if self.transactions else 0

    @property
    def rest(self) -> int:
        """Mangum, FastAPI, the JWT, the request and response models, JSON text, logs and EMF."""
        return self.total - self.engine - self.hashing - sum(self.transactions)


class Driver:
    """Plays debates through the handler: checks every answer, times every request, and counts
    its round trips when given the proxy."""

    def __init__(
        self,
        handler: Handler,
        function: Function,
        *,
        found: Spans,
        settings: Settings,
        owners: list[BenchUser],
        seed: int,
        proxy: DelayProxy | None = None,
    ) -> None:
        self.handler = handler
        self.function = function
        self.spans = found
        self.settings = settings
        self.owners = owners
        self.rng = random.Random(seed)
        self.proxy = proxy
        self.service = service_token()
        self.debates_started = 0
        self.slots: list[Debate] = [self._next_debate() for _ in range(settings.open_debates)]
        self.slot = 0
        # Resets of debates whose cooldown is 0 (no chair can be on cooldown) that still named chairs.
        self.zero_cooldown_resets = [0, 0]

    def _next_debate(self) -> Debate:
        owner = self.owners[self.debates_started % len(self.owners)]
        debate = new_debate(self.rng, owner, self.settings, self.debates_started)
        self.debates_started += 1
        return debate

    def _caller(self, debate: Debate) -> tuple[str, str]:
        if self.rng.random() < SERVICE_SHARE:
            return "service", self.service
        return "user", debate.owner.token

    def _call(self, request: dict[str, Any]) -> tuple[dict[str, Any], int, int]:
        self.spans.clear()
        return call(self.handler, request, FUNCTION_ID, self.proxy)

    # --- the four routes ---

    def evaluate(self, debate: Debate, level: str, so_far: str | None = None) -> Sample:
        """One chunk of the current speaker; `so_far` replaces the debate's own history."""
        speaker = debate.seats[debate.speaker]
        reason = self.rng.choices(REASONS, REASON_WEIGHTS)[0] if self.rng.random() < TRIGGER_SHARE else None
        made = chunk(self.rng, debate.language, reason, debate.schools)
        caller, token = self._caller(debate)
        if so_far is None:
            so_far = ("\n" if debate.language == "en" else "").join(debate.chunks)
        body: dict[str, Any] = {
            "current_speaker": speaker.body(),
            "other_chairs": [seat.body() for seat in debate.seats if seat is not speaker],
            "recent_content": made.text,
            "debate_so_far": so_far,
            "topic": debate.topic,
            "interruptions": {
                "enabled": debate.enabled,
                "allow_chair_interruptions": debate.allow_chairs,
                "aggressiveness": debate.aggressiveness,
                "cooldown_seconds": debate.cooldown,
            },
        }
        if caller == "service":
            body["user_id"] = debate.owner.id
        result, elapsed, trips = self._call(event(self.function, EVALUATE_ROUTE, token, debate.id, body=body))
        answer = expect_status(result, 200, "evaluate")
        headers = {name.lower(): value for name, value in (result.get("headers") or {}).items()}
        evaluation_id = headers.get(EVALUATION_ID_HEADER, "")
        if not evaluation_id:
            raise RuntimeError("an evaluation answered without its x-evaluation-id header")
        interrupted = bool(answer)
        debate.taken += 1
        debate.chunks.append(made.text)
        if interrupted:
            debate.interrupts += 1
            if answer["interrupted_chair"]["position"] != speaker.position:
                raise RuntimeError("the candidate interrupts a chair that is not speaking")
            position = answer["interrupting_chair"]["position"]
            debate.speaker = next(k for k, seat in enumerate(debate.seats) if seat.position == position)
            debate.spoken = 0
        else:
            debate.spoken += 1
            if debate.spoken >= CHUNKS_PER_SPEECH:
                debate.speaker = (debate.speaker + 1) % len(debate.seats)
                debate.spoken = 0
        return Sample(
            EVALUATE_ROUTE,
            level,
            elapsed,
            caller,
            trips,
            language=debate.language,
            reason=reason,
            aggressiveness=debate.aggressiveness,
            cooldown=debate.cooldown,
            debate_chars=len(so_far),
            interrupted=interrupted,
            evaluation_id=evaluation_id,
            engine=self.spans.engine,
            hashing=self.spans.hashing,
            transactions=tuple(self.spans.transactions),
        )

    def quick(self, debate: Debate, text: str, level: str) -> Sample:
        caller, token = self._caller(debate)
        query = f"user_id={debate.owner.id}" if caller == "service" else ""
        request = event(self.function, QUICK_ROUTE, token, debate.id, body={"content": text}, query=query)
        result, elapsed, trips = self._call(request)
        expect_status(result, 200, "quick-check")
        return Sample(QUICK_ROUTE, level, elapsed, caller, trips, language=debate.language)

    def stats(self, debate: Debate, level: str) -> Sample:
        caller, token = self._caller(debate)
        query = f"user_id={debate.owner.id}" if caller == "service" else ""
        result, elapsed, trips = self._call(event(self.function, STATS_ROUTE, token, debate.id, query=query))
        body = expect_status(result, 200, "stats")
        if body["total_interrupts"] != debate.interrupts:
            raise RuntimeError(
                f"stats count {body['total_interrupts']} interrupts, the handler answered {debate.interrupts}"
            )
        if (
            sum(body["by_chair"].values()) != debate.interrupts
            or sum(body["by_reason"].values()) != debate.interrupts
        ):
            raise RuntimeError(f"stats do not add up: {body}")
        return Sample(STATS_ROUTE, level, elapsed, caller, trips, transactions=tuple(self.spans.transactions))

    def reset(self, debate: Debate, level: str) -> Sample:
        caller, token = self._caller(debate)
        query = f"user_id={debate.owner.id}" if caller == "service" else ""
        result, elapsed, trips = self._call(event(self.function, RESET_ROUTE, token, debate.id, query=query))
        body = expect_status(result, 200, "reset-cooldowns")
        positions = {seat.position for seat in debate.seats}
        if not set(body["cleared"]) <= positions or body["debate_id"] != debate.id:
            raise RuntimeError(f"reset answered {body}")
        if debate.cooldown == 0:
            self.zero_cooldown_resets[0] += 1
            self.zero_cooldown_resets[1] += bool(body["cleared"])
        sample = Sample(
            RESET_ROUTE, level, elapsed, caller, trips, transactions=tuple(self.spans.transactions)
        )
        sample.cleared = len(body["cleared"])
        return sample

    # --- the debates in progress ---

    def step(self, level: str) -> list[Sample]:
        """The next debate in rotation: one evaluation (and the quick check on every fifth chunk);
        between rounds the owner reads the stats and resets the cooldowns; at its end the stats are
        read once more and a new debate (of the next owner) takes the slot."""
        debate = self.slots[self.slot]
        self.slot = (self.slot + 1) % len(self.slots)
        set_log_level(level)
        samples = [self.evaluate(debate, level)]
        level = LOG_LEVELS[0]  # the other routes at the headline level
        set_log_level(level)
        if debate.taken % QUICK_EVERY == 0:
            samples.append(self.quick(debate, debate.chunks[-1], level))
        if debate.done:
            samples.append(self.stats(debate, level))
            self.slots[self.slots.index(debate)] = self._next_debate()
        elif debate.taken % self.settings.round_chunks == 0:
            samples.append(self.stats(debate, level))
            samples.append(self.reset(debate, level))
        return samples


# --- 2b. the length of debate_so_far ------------------------------------------------------------------------
