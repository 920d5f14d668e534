"""Part 2: debates in progress at once, played chunk by chunk through the real ChairInterruptFunction
handler. Owners take turns; a chair speaks three chunks, or hands the floor to the chair that
interrupted it; between rounds the owner reads the stats and resets the cooldowns. Half the
requests come from the orchestrator's service-role token naming the owner. Every answer is
checked, and every request is timed around `lambda_handler(event, context)` only."""

from __future__ import annotations

import gc
import random
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bench.chair_interrupt.corpus import EN_TOPICS, FRAMEWORKS, LANGUAGES, ZH_TOPICS, chunk, random_reason
from bench.harness.handler import BenchUser, call, event, expect_status, service_token, stdout_to_devnull

if TYPE_CHECKING:
    from bench.chair_interrupt import Settings
    from persona_rails_dev.lambda_runtime import Handler
    from persona_rails_dev.template import Function

FUNCTION_ID = "ChairInterruptFunction"
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

    def __init__(
        self, handler: Handler, function: Function, owners: list[BenchUser], settings: Settings, seed: int
    ) -> None:
        self.handler, self.function, self.owners, self.settings = handler, function, owners, settings
        self.rng = random.Random(seed)
        self.service = service_token()
        self.started = 0
        self.interrupts = 0
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
        """One request for the debate's owner, by the owner's token or (half of them) the
        orchestrator's service-role token naming the owner: `user_id` in the evaluate body,
        `?user_id=` on the other routes. The answer's body, and the nanoseconds it took."""
        token, query = debate.owner.token, ""
        if self.rng.random() < 0.5:
            token = self.service
            if body is None:
                query = f"user_id={debate.owner.id}"
            else:
                body = {**body, "user_id": debate.owner.id}
        request = event(self.function, route, token, {"debate_id": debate.id}, body=body, query=query)
        result, elapsed = call(self.handler, request, FUNCTION_ID)
        return expect_status(result, 200, route), elapsed

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
        if body["debate_id"] != debate.id or not set(body["cleared"]) <= {
            s["position"] for s in debate.seats
        }:
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


def measure_mix(
    handler: Handler, function: Function, owners: list[BenchUser], settings: Settings, seed: int
) -> tuple[dict[str, list[int]], Driver]:
    """`settings.warmup` evaluations, then `settings.evaluations` measured ones with the stats
    reads and resets their debates make: each route's nanoseconds."""
    samples: dict[str, list[int]] = {EVALUATE: [], STATS: [], RESET: []}
    with stdout_to_devnull():
        driver = Driver(handler, function, owners, settings, seed)
        for _ in range(settings.warmup):
            driver.step()
        gc.collect()  # measure from a clean heap, as a warm container would be
        for _ in range(settings.evaluations):
            for route, elapsed in driver.step().items():
                samples[route].append(elapsed)
    return samples, driver
