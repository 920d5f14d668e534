"""Part 2: debates in progress at once, played chunk by chunk through the real handler, every answer
checked (docs/benchmarks.md, "Chair interrupt")."""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bench.chair_interrupt.corpus import EN_TOPICS, FRAMEWORKS, LANGUAGES, ZH_TOPICS, chunk, random_reason
from bench.harness.handler import BenchUser
from bench.harness.report import LATENCY_HEADERS, Report, latency_cells
from bench.harness.scenario import Client, Served, latency_targets, warm_loop

if TYPE_CHECKING:
    from bench.chair_interrupt import Settings

FUNCTION_ID = "ChairInterruptFunction"
P50_TARGET_MS, P99_TARGET_MS = 5.0, 20.0  # evaluate through the handler
PREFIX = "/debates/{debate_id}/interrupts"
EVALUATE, STATS, RESET = f"POST {PREFIX}/evaluate", f"GET {PREFIX}/stats", f"POST {PREFIX}/reset-cooldowns"
MODELS = ("Claude", "GPT", "Gemini", "Llama", "Mistral", "Qwen", "DeepSeek", "Grok")
COOLDOWNS = (0, 5, 10, 15, 20, 30, 45, 60)  # a debate's cooldown_seconds, drawn uniformly
# Of every 16 debates started, the second has interruptions disabled and the tenth chair
# interruptions off (1 in 8 in all; among the first ones, so that every run has both).
GATED_PERIOD, DISABLED_AT, CHAIRS_OFF_AT = 16, 1, 9
CHUNKS_PER_SPEECH = 3


@dataclass
class Debate:
    id: str
    owner: BenchUser
    language: str
    topic: str
    seats: list[dict[str, str]]  # the request's chair objects
    interruptions: dict[str, Any]  # the request's settings: enabled, aggressiveness, cooldown…
    length: int  # evaluations before the debate ends
    chunks: list[str] = field(default_factory=list)
    speaker: int = 0
    spoken: int = 0  # chunks the current speaker has said
    interrupts: int = 0


class Driver:
    """Plays `settings.open_debates` debates in rotation through the handler; a finished debate's
    slot goes to a new one of the next owner."""

    def __init__(self, served: Served, settings: Settings, seed: int) -> None:
        self.owners, self.settings = served.users, settings
        self.rng = random.Random(seed)
        self.client = Client(served.handler, served.function, self.rng)
        self.started = self.interrupts = 0
        self.slots = [self._new_debate() for _ in range(settings.open_debates)]
        self.slot = 0

    def _new_debate(self) -> Debate:
        rng, index = self.rng, self.started
        self.started += 1
        language = LANGUAGES[index % 2]
        frameworks = rng.sample(FRAMEWORKS, rng.randint(3, 5))
        models = rng.sample(MODELS, len(frameworks))
        seats = [
            {"position": f"chair_{k + 1}", "framework": name, "model_id": model, "model_display_name": model}
            for k, (name, model) in enumerate(zip(frameworks, models, strict=True))
        ]
        return Debate(
            id=str(uuid.uuid4()),
            owner=self.owners[index % len(self.owners)],
            language=language,
            topic=rng.choice(EN_TOPICS if language == "en" else ZH_TOPICS),
            seats=seats,
            interruptions={
                "enabled": index % GATED_PERIOD != DISABLED_AT,
                "allow_chair_interruptions": index % GATED_PERIOD != CHAIRS_OFF_AT,
                "aggressiveness": rng.randint(1, 5),
                "cooldown_seconds": rng.choice(COOLDOWNS),
            },
            length=rng.randint(*self.settings.debate_chunks),
        )

    def request(self, debate: Debate, route: str, body: dict[str, Any] | None = None) -> tuple[Any, int]:
        """As the owner or (half the requests) the orchestrator naming the owner."""
        return self.client.send(route, debate.owner, params={"debate_id": debate.id}, body=body)

    def evaluate(self, debate: Debate) -> int:
        """The current speaker's next chunk; `debate_so_far` is the debate's chunks so far."""
        speaker = debate.seats[debate.speaker]
        text = chunk(
            self.rng, debate.language, random_reason(self.rng), tuple(s["framework"] for s in debate.seats)
        )
        body = {
            "current_speaker": speaker,
            "other_chairs": [seat for seat in debate.seats if seat is not speaker],
            "recent_content": text.text,
            "debate_so_far": ("\n" if debate.language == "en" else "").join(debate.chunks),
            "topic": debate.topic,
            "interruptions": debate.interruptions,
        }
        answer, elapsed = self.request(debate, EVALUATE, body)
        debate.chunks.append(text.text)
        debate.spoken += 1
        if answer:
            if answer["interrupted_chair"]["position"] != speaker["position"]:
                raise RuntimeError("the candidate interrupts a chair that is not speaking")
            position = answer["interrupting_chair"]["position"]
            debate.speaker = next(k for k, seat in enumerate(debate.seats) if seat["position"] == position)
            debate.spoken = 0
            debate.interrupts += 1
            self.interrupts += 1
        elif debate.spoken >= CHUNKS_PER_SPEECH:
            debate.speaker = (debate.speaker + 1) % len(debate.seats)
            debate.spoken = 0
        return elapsed

    def stats(self, debate: Debate) -> int:
        """The stats must count exactly the interrupts the handler answered, in every breakdown."""
        body, elapsed = self.request(debate, STATS)
        counted = (body["total_interrupts"], sum(body["by_chair"].values()), sum(body["by_reason"].values()))
        if counted != (debate.interrupts,) * 3:
            raise RuntimeError(f"stats {body} after {debate.interrupts} interrupts answered")
        return elapsed

    def reset(self, debate: Debate) -> int:
        body, elapsed = self.request(debate, RESET)
        seated = {seat["position"] for seat in debate.seats}
        if body["debate_id"] != debate.id or not set(body["cleared"]) <= seated:
            raise RuntimeError(f"reset answered {body}")
        return elapsed

    def step(self) -> dict[str, int]:
        """The next debate in rotation: one evaluation; every `round_chunks` the stats and a
        reset; at its end the stats once more, and a new debate takes the slot."""
        debate = self.slots[self.slot]
        self.slot = (self.slot + 1) % len(self.slots)
        taken = {EVALUATE: self.evaluate(debate)}
        if len(debate.chunks) >= debate.length:
            taken[STATS] = self.stats(debate)
            self.slots[self.slots.index(debate)] = self._new_debate()
        elif len(debate.chunks) % self.settings.round_chunks == 0:
            taken[STATS] = self.stats(debate)
            taken[RESET] = self.reset(debate)
        return taken


def measure_mix(served: Served, settings: Settings, seed: int) -> tuple[dict[str, list[int]], Driver]:
    """Each route's nanoseconds: the measured evaluations, and the stats reads and resets their
    debates make."""
    samples: dict[str, list[int]] = {EVALUATE: [], STATS: [], RESET: []}
    driver = Driver(served, settings, seed)
    for taken in warm_loop(settings.warmup, settings.evaluations, lambda _: driver.step()):
        for route, elapsed in taken.items():
            samples[route].append(elapsed)
    return samples, driver


def debates_report(samples: dict[str, list[int]], driver: Driver, settings: Settings) -> Report:
    labels = {EVALUATE: "evaluate (POST)", STATS: "stats (GET)", RESET: "reset-cooldowns (POST)"}
    evaluations = len(samples[EVALUATE])
    return Report(
        title="Chair interrupt: warm requests through lambda_handler (offline evaluator, no LLM; embedded Postgres)",
        headers=LATENCY_HEADERS,
        rows=[[label, *latency_cells(samples[route])] for route, label in labels.items() if samples[route]],
        notes=[
            f"{settings.warmup} warm-up evaluations, then {evaluations} measured over {driver.started} debates; "
            f"{driver.interrupts / (evaluations + settings.warmup):.0%} of evaluations interrupted; every "
            "stats read counted exactly the interrupts the handler had answered.",
        ],
    )


def debates_targets(samples: dict[str, list[int]]) -> list[list[str]]:
    return latency_targets("evaluate", samples[EVALUATE], P50_TARGET_MS, P99_TARGET_MS)
