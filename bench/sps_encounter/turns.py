"""2. Patient turns through the real SpsEncounterFunction handler: owners with several encounters in
progress at once, turns in rotation, learner utterances from the corpus; a finished encounter is
read back and its transcript validated (no errors on the runtime's own transcripts), and now and
then a new encounter's owner lists the catalog first. Only the turns are timed; afterwards the
decision records they wrote are counted (one per turn)."""

from __future__ import annotations

import gc
import random
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bench.harness.handler import BenchUser, call, event, expect_status, service_token, stdout_to_devnull
from bench.harness.report import LATENCY_HEADERS, Report, latency_cells, ms, percentile, verdict
from bench.sps_encounter.corpus import FUNCTION_ID, P50_TARGET_MS, SEED, CaseRef, Settings, learner_stream

if TYPE_CHECKING:
    from persona_rails.db import Database
    from persona_rails_dev.lambda_runtime import Handler
    from persona_rails_dev.template import Function

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
    """Plays encounters through the handler, checking every answer; times the turns."""

    def __init__(
        self,
        handler: Handler,
        function: Function,
        *,
        owners: list[BenchUser],
        refs: list[CaseRef],
        settings: Settings,
        seed: int,
    ) -> None:
        self.handler, self.function, self.owners, self.refs = handler, function, owners, refs
        self.settings = settings
        self.rng = random.Random(seed)
        self.service = service_token()
        self.started = self.validations = self.turns_taken = 0

    def send(
        self,
        encounter: Encounter,
        route: str,
        status: int,
        body: dict[str, Any] | None = None,
        *,
        keyed: bool = False,
    ) -> tuple[dict[str, Any], int]:
        """One request as the learner or, half the time, the platform naming the learner (in the
        start and validate bodies, or `?user_id=`); (its answer, nanoseconds around lambda_handler)."""
        token, query = encounter.owner.token, ""
        if self.rng.random() < SERVICE_SHARE:
            token = self.service
            if body is not None and route != TURN_ROUTE:
                body["user_id"] = encounter.owner.id
            else:
                query = f"user_id={encounter.owner.id}"
        key = str(uuid.uuid4()) if keyed and self.rng.random() < KEY_SHARE else None
        params = {"encounter_id": encounter.id} if "{encounter_id}" in route else None
        request = event(self.function, route, token, params, body=body, query=query, key=key)
        result, elapsed = call(self.handler, request, FUNCTION_ID)
        return expect_status(result, status, route), elapsed

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
        answer, _ = self.send(encounter, START_ROUTE, 201, body, keyed=True)
        if (answer["scenario"]["id"], answer["persona"]["id"]) != (ref.scenario_id, ref.persona_id):
            raise RuntimeError(
                f"started {answer['scenario']['id']} / {answer['persona']['id']}, asked {ref.label}"
            )
        encounter.id = str(answer["encounter_id"])
        return encounter

    def turn(self, encounter: Encounter) -> int:
        body = {"learner_text": encounter.texts[encounter.taken]}
        answer, elapsed = self.send(encounter, TURN_ROUTE, 200, body, keyed=True)
        meta = answer["meta"]
        if (answer["learner_turn_index"], meta["turnIndex"]) != (
            2 * encounter.taken,
            2 * encounter.taken + 1,
        ):
            raise RuntimeError(
                f"turn {encounter.taken + 1}: indexes {answer['learner_turn_index']}/{meta['turnIndex']}"
            )
        if meta["source"] != "offline":
            raise RuntimeError("an LLM answered: the benchmark measures the offline generator")
        encounter.taken += 1
        self.turns_taken += 1
        return elapsed

    def finish(self, encounter: Encounter) -> None:
        """A finished encounter read back, and its transcript validated (every fourth stored)."""
        transcript = self.send(encounter, GET_ROUTE, 200)[0]["transcript"]
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
        answer, _ = self.send(encounter, VALIDATE_ROUTE, 200, body)
        if answer["summaryMetrics"]["totalPatientTurns"] != encounter.taken or answer["errors"]:
            raise RuntimeError(
                f"the runtime's own transcript: {answer['summaryMetrics']}, {answer['errors'][:3]}"
            )
        if store != (answer.get("validation_id") is not None):
            raise RuntimeError(f"store={store} but validation_id is {answer.get('validation_id')}")

    def scenarios(self, encounter: Encounter) -> None:
        answer, _ = self.send(encounter, SCENARIOS_ROUTE, 200)
        if encounter.ref.scenario_id not in {s["id"] for s in answer["scenarios"]}:
            raise RuntimeError(f"the catalog does not list {encounter.ref.scenario_id}")


@dataclass
class Turns:
    totals: list[int]  # measured turns, ns around lambda_handler
    encounters: int  # started, warm-up included
    answered: int  # every turn answered, warm-up included
    records: int  # sps.patient_turn decision records written meanwhile


def measure_turns(
    handler: Handler,
    function: Function,
    *,
    owners: list[BenchUser],
    database: Database,
    refs: list[CaseRef],
    settings: Settings,
) -> Turns:
    """Warm-up turns, then `settings.turns` measured, over `open_encounters` in progress at once."""
    records = count_records(database)
    driver = Driver(handler, function, owners=owners, refs=refs, settings=settings, seed=SEED + 1)
    totals: list[int] = []
    with stdout_to_devnull():
        slots = [driver.start(driver.new()) for _ in range(settings.open_encounters)]
        for index in range(settings.warmup + settings.turns):
            if index == settings.warmup:
                gc.collect()  # measure from a clean heap, as a warm container would be
            encounter = slots[index % len(slots)]
            elapsed = driver.turn(encounter)
            if index >= settings.warmup:
                totals.append(elapsed)
            if encounter.done:
                driver.finish(encounter)
                encounter = driver.new()
                if driver.started % SCENARIOS_EVERY == 0:
                    driver.scenarios(encounter)
                slots[index % len(slots)] = driver.start(encounter)
    return Turns(totals, driver.started, driver.turns_taken, count_records(database) - records)


def turns_report(found: Turns, settings: Settings) -> Report:
    p50 = percentile(found.totals, 50)
    return Report(
        title="SPS encounter: patient turns through lambda_handler (offline generator, no LLM; embedded Postgres)",
        headers=LATENCY_HEADERS,
        rows=[["patient turn (POST), WARNING", *latency_cells(found.totals)]],
        notes=[
            f"{settings.warmup} warm-up turns, then {len(found.totals):,} measured over {found.encounters} encounters "
            f"({settings.encounter_turns[0]}–{settings.encounter_turns[1]} learner turns each) of {settings.owners} "
            f"owners, {settings.open_encounters} in progress at once, every catalog case in turn; half the requests "
            "with the platform's service-role token, half the turns with an Idempotency-Key; each finished encounter "
            "read back and validated. Timed around `lambda_handler(event, context)` only; in-process handler, "
            "embedded Postgres over its unix socket; metrics on; stdout to /dev/null.",
            f"p50 {ms(p50)} ms vs target p50 ≤ {P50_TARGET_MS:g} ms: {verdict(p50 <= P50_TARGET_MS * 1e6)}.",
            f"decision records (`{FUNCTION_ID}` / `{DECISION_KIND}`): {found.records:,} written for "
            f"{found.answered:,} turns answered (warm-up included).",
        ],
        passed=p50 <= P50_TARGET_MS * 1e6,
    )
