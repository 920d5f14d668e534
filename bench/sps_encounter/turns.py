"""2. Patient turns through the real handler, encounters in progress at once, every answer checked;
finished encounters read back and validated; the decision records counted (docs/benchmarks.md,
"SPS encounter")."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bench.harness.handler import BenchUser
from bench.harness.report import LATENCY_HEADERS, Report, latency_cells, target
from bench.harness.scenario import Client, Served, latency_targets, warm_loop
from bench.sps_encounter.corpus import FUNCTION_ID, P50_TARGET_MS, SEED, CaseRef, Settings, learner_stream

if TYPE_CHECKING:
    from persona_rails.db import Database

SCENARIOS_ROUTE = "GET /sps/scenarios"
START_ROUTE = "POST /sps/encounters"
TURN_ROUTE = "POST /sps/encounters/{encounter_id}/turns"
GET_ROUTE = "GET /sps/encounters/{encounter_id}"
VALIDATE_ROUTE = "POST /sps/validate"
DECISION_KIND = "sps.patient_turn"

SERVICE_SHARE = 0.5  # of requests, made by the platform's service-role token naming the learner
KEY_SHARE = 0.5  # of starts and turns, sent with a fresh Idempotency-Key
SCENARIOS_EVERY = 3  # a new encounter's owner lists the catalog first, every third encounter
STORE_EVERY = 4  # every fourth validation of a finished encounter is stored


@dataclass
class Encounter:
    owner: BenchUser
    ref: CaseRef
    seed: int
    texts: list[str]  # the learner's utterances
    id: str = ""
    taken: int = 0

    @property
    def done(self) -> bool:
        return self.taken >= len(self.texts)

    @property
    def params(self) -> dict[str, str]:
        return {"encounter_id": self.id}


def count_records(owner: Database) -> int:
    with owner.as_owner() as tx:
        row = tx.one(
            "SELECT count(*) AS n FROM public.decision_records WHERE function_name = :f AND kind = :k",
            f=FUNCTION_ID,
            k=DECISION_KIND,
        )
    assert row is not None
    return int(row["n"])


class Driver:
    """Plays encounters through the handler, checking every answer; times the turns. Requests come
    from the learner or the platform naming the learner (a turn's `user_id` goes in the query)."""

    def __init__(self, served: Served, refs: list[CaseRef], settings: Settings, seed: int) -> None:
        self.owners, self.refs, self.settings = served.users, refs, settings
        self.rng = random.Random(seed)
        self.client = Client(served.handler, served.function, self.rng, SERVICE_SHARE)
        self.started = self.validations = self.turns_taken = 0

    def new(self) -> Encounter:
        index = self.started
        self.started += 1
        ref = self.refs[index % len(self.refs)]
        length = self.rng.randint(*self.settings.encounter_turns)
        seed = self.rng.randrange(1, 2**32)
        return Encounter(
            self.owners[index % len(self.owners)], ref, seed, learner_stream(self.rng, ref.language, length)
        )

    def start(self, encounter: Encounter) -> Encounter:
        ref = encounter.ref
        body: dict[str, Any] = {"scenario_id": ref.scenario_id, "seed": encounter.seed}
        if not ref.default or self.rng.random() < 0.5:
            body["persona_id"] = ref.persona_id
        answer, _ = self.client.send(START_ROUTE, encounter.owner, 201, body=body, key_share=KEY_SHARE)
        if (answer["scenario"]["id"], answer["persona"]["id"]) != (ref.scenario_id, ref.persona_id):
            raise RuntimeError(
                f"started {answer['scenario']['id']} / {answer['persona']['id']}, asked {ref.label}"
            )
        encounter.id = str(answer["encounter_id"])
        return encounter

    def turn(self, encounter: Encounter) -> int:
        body = {"learner_text": encounter.texts[encounter.taken]}
        answer, elapsed = self.client.send(
            TURN_ROUTE,
            encounter.owner,
            params=encounter.params,
            body=body,
            user_in_query=True,
            key_share=KEY_SHARE,
        )
        meta = answer["meta"]
        indexes = (answer["learner_turn_index"], meta["turnIndex"])
        if indexes != (2 * encounter.taken, 2 * encounter.taken + 1):
            raise RuntimeError(f"turn {encounter.taken + 1}: learner and patient indexes {indexes}")
        if meta["source"] != "offline":
            raise RuntimeError("an LLM answered: the benchmark measures the offline generator")
        encounter.taken += 1
        self.turns_taken += 1
        return elapsed

    def finish(self, encounter: Encounter) -> None:
        """A finished encounter read back, and its transcript validated (every fourth stored)."""
        transcript = self.client.send(GET_ROUTE, encounter.owner, params=encounter.params)[0]["transcript"]
        if len(transcript) != 2 * encounter.taken:
            raise RuntimeError(f"GET returned {len(transcript)} turns, expected {2 * encounter.taken}")
        store = self.validations % STORE_EVERY == STORE_EVERY - 1
        self.validations += 1
        ref = encounter.ref
        body = {
            "scenario_id": ref.scenario_id,
            "persona_id": ref.persona_id,
            "transcript": transcript,
            "store": store,
        }
        answer, _ = self.client.send(VALIDATE_ROUTE, encounter.owner, body=body)
        if answer["summaryMetrics"]["totalPatientTurns"] != encounter.taken or answer["errors"]:
            raise RuntimeError(
                f"the runtime's own transcript: {answer['summaryMetrics']}, {answer['errors'][:3]}"
            )
        if store != (answer.get("validation_id") is not None):
            raise RuntimeError(f"store={store} but validation_id is {answer.get('validation_id')}")

    def scenarios(self, encounter: Encounter) -> None:
        answer, _ = self.client.send(SCENARIOS_ROUTE, encounter.owner)
        if encounter.ref.scenario_id not in {s["id"] for s in answer["scenarios"]}:
            raise RuntimeError(f"the catalog does not list {encounter.ref.scenario_id}")


@dataclass
class Turns:
    totals: list[int]  # measured turns, ns around lambda_handler
    encounters: int  # started, warm-up included
    answered: int  # every turn answered, warm-up included
    records: int  # sps.patient_turn decision records written meanwhile


def measure_turns(served: Served, refs: list[CaseRef], settings: Settings) -> Turns:
    """Warm-up turns, then `settings.turns` measured, over `open_encounters` in progress at once."""
    records = count_records(served.owner)
    driver = Driver(served, refs, settings, seed=SEED + 1)
    slots = [driver.start(driver.new()) for _ in range(settings.open_encounters)]

    def step(index: int) -> int:
        encounter = slots[index % len(slots)]
        elapsed = driver.turn(encounter)
        if encounter.done:
            driver.finish(encounter)
            encounter = driver.new()
            if driver.started % SCENARIOS_EVERY == 0:
                driver.scenarios(encounter)
            slots[index % len(slots)] = driver.start(encounter)
        return elapsed

    totals = warm_loop(settings.warmup, settings.turns, step)
    return Turns(totals, driver.started, driver.turns_taken, count_records(served.owner) - records)


def turns_report(found: Turns, settings: Settings) -> Report:
    return Report(
        title="SPS encounter: patient turns through lambda_handler (offline generator, no LLM; embedded Postgres)",
        headers=LATENCY_HEADERS,
        rows=[["patient turn (POST), WARNING", *latency_cells(found.totals)]],
        notes=[
            f"{settings.warmup} warm-up turns, then {len(found.totals):,} measured over {found.encounters} "
            f"encounters of {settings.owners} owners, {settings.open_encounters} in progress at once.",
        ],
    )


def turns_targets(found: Turns) -> list[list[str]]:
    return [
        *latency_targets("patient turn through the handler, offline generator:", found.totals, P50_TARGET_MS),
        target(
            "each patient turn is a stored decision record",
            f"{found.records:,} written for {found.answered:,} turns answered",
            found.records == found.answered,
        ),
    ]
