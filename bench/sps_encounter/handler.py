"""The real SpsEncounterFunction handler, its events, and the encounters the benchmark plays through
it: owners with several encounters in progress at once, learner turns from the corpus, each
finished encounter read back and its transcript validated. Used in-process (part 2, and 2b: the
validate route with large transcripts) and behind the delaying proxy (part 3)."""

from __future__ import annotations

import random
import time
import uuid
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bench.harness.handler import (
    QUIET_POWERTOOLS,
    BenchUser,
    expect_status,
    service_token,
    set_log_level,
    stdout_to_devnull,
)
from bench.harness.handler import event as harness_event
from bench.harness.timing import Spans, call
from bench.harness.timing import spans as timing_spans
from bench.sps_encounter.corpus import FUNCTION_ID, LOG_LEVELS, CaseRef, Settings, learner_stream

if TYPE_CHECKING:
    from persona_rails.db import Database
    from persona_rails_dev.lambda_runtime import Handler
    from persona_rails_dev.template import Function
    from tests.support.delay_proxy import DelayProxy

SCENARIOS_ROUTE = "GET /sps/scenarios"
START_ROUTE = "POST /sps/encounters"
TURN_ROUTE = "POST /sps/encounters/{encounter_id}/turns"
GET_ROUTE = "GET /sps/encounters/{encounter_id}"
VALIDATE_ROUTE = "POST /sps/validate"
DECISION_KIND = "sps.patient_turn"

SERVICE_SHARE = 0.5  # of requests, made by the platform's service-role token naming the learner
KEY_SHARE = 0.5  # of POSTs, sent with a fresh Idempotency-Key
SCENARIOS_EVERY = 3  # a new encounter's owner lists the catalog first, every third encounter


def event(
    function: Function,
    route_key: str,
    token: str,
    encounter_id: str | None = None,
    *,
    body: dict[str, Any] | None = None,
    query: str = "",
    key: str | None = None,
) -> dict[str, Any]:
    params = {"encounter_id": encounter_id} if encounter_id and "{encounter_id}" in route_key else None
    return harness_event(function, route_key, token, params, body=body, query=query, key=key)


def spans(*, count_bytes: bool = False) -> AbstractContextManager[Spans]:
    """engine = `phrasing.take_turn` (the learner turn, the plan, the offline phrasing, the finish);
    state = `SPSRuntimeState.from_json` / `to_json`; case = `cases.stored`; hashing = `fingerprint`;
    each where the service calls it; and each transaction."""
    from sps_encounter import cases, phrasing, service
    from sps_encounter.engine.state import SPSRuntimeState

    parts = [
        (phrasing, "take_turn", "engine"),
        (cases, "stored", "case"),
        (service, "fingerprint", "hashing"),
        (SPSRuntimeState, "to_json", "state"),
        (SPSRuntimeState, "from_json", "state"),
    ]
    return timing_spans(parts, count_bytes=count_bytes)


# --- encounters -------------------------------------------------------------------------------------------


@dataclass
class Encounter:
    owner: BenchUser
    ref: CaseRef
    seed: int
    stream: list[tuple[str, str]]  # (kind, learner text)
    id: str = ""
    taken: int = 0
    turn_ids: list[str] = field(default_factory=list)
    keys: list[tuple[str, str]] = field(default_factory=list)  # (Idempotency-Key, text) of keyed turns

    @property
    def done(self) -> bool:
        return self.taken >= len(self.stream)


@dataclass
class Sample:
    """One timed request."""

    route: str
    level: str
    total: int  # nanoseconds around lambda_handler
    caller: str  # "user" or "service"
    trips: int = -1  # round trips, when counted through the proxy
    records: int = -1  # decision records written, when counted
    language: str = ""
    scenario: str = ""
    # Turns only:
    learner_kind: str = ""
    kind: str = ""  # the patient turn's kind (meta)
    question_type: str = ""
    turn_id: str = ""
    keyed: bool = False
    retried: bool = False
    engine: int = 0
    state: int = 0
    case: int = 0
    hashing: int = 0
    transactions: tuple[int, ...] = ()
    sent: tuple[int, ...] = ()  # bytes each transaction wrote, when counted
    # Validations only:
    transcript_turns: int = 0
    stored: bool = False

    @property
    def read(self) -> int:
        return self.transactions[0] if len(self.transactions) == 2 else 0

    @property
    def write(self) -> int:
        return self.transactions[-1] if self.transactions else 0

    @property
    def rest(self) -> int:
        """Mangum, FastAPI, the JWT, request and response models, JSON text, logs and EMF."""
        return self.total - self.engine - self.state - self.case - self.hashing - sum(self.transactions)


def count_records(owner: Database) -> int:
    with owner.as_owner() as tx:
        row = tx.one(
            "SELECT count(*) AS n FROM public.decision_records WHERE kind = :kind", kind=DECISION_KIND
        )
    assert row is not None
    return int(row["n"])


class Driver:
    """Plays encounters through the handler: checks every answer, times every request, counts its
    round trips when given the proxy and the decision records it wrote when given the owner."""

    def __init__(
        self,
        handler: Handler,
        function: Function,
        *,
        found: Spans,
        settings: Settings,
        owners: list[BenchUser],
        cases: list[CaseRef],
        seed: int,
        proxy: DelayProxy | None = None,
        records_of: Database | None = None,
    ) -> None:
        self.handler = handler
        self.function = function
        self.spans = found
        self.settings = settings
        self.owners = owners
        self.cases = cases
        self.rng = random.Random(seed)
        self.proxy = proxy
        self.records_of = records_of
        self.service = service_token()
        self.started = 0
        self.turns_taken = 0  # every turn answered (warm-up included), retries excluded
        self.validations = 0

    def _caller(self, owner: BenchUser) -> tuple[str, str]:
        if self.rng.random() < SERVICE_SHARE:
            return "service", self.service
        return "user", owner.token

    def _call(self, request: dict[str, Any], counting: bool = False) -> tuple[dict[str, Any], int, int, int]:
        """(result, nanoseconds, round trips or -1, decision records written or -1)."""
        self.spans.clear()
        before = count_records(self.records_of) if counting and self.records_of is not None else -1
        result, elapsed, trips = call(self.handler, request, FUNCTION_ID, self.proxy)
        written = (
            count_records(self.records_of) - before if before >= 0 and self.records_of is not None else -1
        )
        return result, elapsed, trips, written

    # --- the routes ---

    def new_encounter(self) -> Encounter:
        index = self.started
        self.started += 1
        ref = self.cases[index % len(self.cases)]
        length = self.rng.randint(*self.settings.encounter_turns)
        return Encounter(
            owner=self.owners[index % len(self.owners)],
            ref=ref,
            seed=self.rng.randrange(1, 2**32),
            stream=learner_stream(self.rng, ref.language, length),
        )

    def scenarios(self, encounter: Encounter, level: str) -> Sample:
        caller, token = self._caller(encounter.owner)
        query = f"user_id={encounter.owner.id}" if caller == "service" else ""
        result, elapsed, trips, _ = self._call(event(self.function, SCENARIOS_ROUTE, token, query=query))
        body = expect_status(result, 200, "list the scenarios")
        if encounter.ref.scenario_id not in {s["id"] for s in body["scenarios"]}:
            raise RuntimeError(f"the catalog does not list {encounter.ref.scenario_id}")
        return Sample(SCENARIOS_ROUTE, level, elapsed, caller, trips, language=encounter.ref.language)

    def start(self, encounter: Encounter, level: str) -> Sample:
        caller, token = self._caller(encounter.owner)
        ref = encounter.ref
        body: dict[str, Any] = {"scenario_id": ref.scenario_id, "seed": encounter.seed}
        if not ref.default or self.rng.random() < 0.5:
            body["persona_id"] = ref.persona_id
        if caller == "service":
            body["user_id"] = encounter.owner.id
        key = str(uuid.uuid4()) if self.rng.random() < KEY_SHARE else None
        request = event(self.function, START_ROUTE, token, body=body, key=key)
        result, elapsed, trips, _ = self._call(request)
        answer = expect_status(result, 201, "start an encounter")
        if answer["persona"]["id"] != ref.persona_id or answer["scenario"]["id"] != ref.scenario_id:
            raise RuntimeError(
                f"started {answer['scenario']['id']} / {answer['persona']['id']}, asked {ref.label}"
            )
        encounter.id = str(answer["encounter_id"])
        return Sample(
            START_ROUTE,
            level,
            elapsed,
            caller,
            trips,
            language=ref.language,
            scenario=ref.scenario_id,
            transactions=tuple(self.spans.transactions),
            sent=tuple(self.spans.sent),
        )

    def turn(self, encounter: Encounter, level: str, *, count_records: bool = False) -> Sample:
        learner_kind, text = encounter.stream[encounter.taken]
        caller, token = self._caller(encounter.owner)
        query = f"user_id={encounter.owner.id}" if caller == "service" else ""
        key = str(uuid.uuid4()) if self.rng.random() < KEY_SHARE else None
        request = event(
            self.function, TURN_ROUTE, token, encounter.id, body={"learner_text": text}, query=query, key=key
        )
        result, elapsed, trips, written = self._call(request, counting=count_records)
        answer = expect_status(result, 200, f"turn {encounter.taken + 1} ({learner_kind})")
        meta = answer["meta"]
        if (
            answer["learner_turn_index"] != 2 * encounter.taken
            or meta["turnIndex"] != 2 * encounter.taken + 1
        ):
            raise RuntimeError(
                f"turn {encounter.taken + 1}: indexes {answer['learner_turn_index']}/{meta['turnIndex']}"
            )
        if meta["source"] != "offline":
            raise RuntimeError("an LLM answered: the benchmark measures the offline generator")
        transactions = tuple(self.spans.transactions)
        if len(transactions) != 2:
            raise RuntimeError(f"a turn ran {len(transactions)} transactions (serialized?), expected 2")
        encounter.taken += 1
        self.turns_taken += 1
        encounter.turn_ids.append(str(answer["turn_id"]))
        if key is not None:
            encounter.keys.append((key, text))
        return Sample(
            TURN_ROUTE,
            level,
            elapsed,
            caller,
            trips,
            written,
            language=encounter.ref.language,
            scenario=encounter.ref.scenario_id,
            learner_kind=learner_kind,
            kind=meta["kind"],
            question_type=meta["questionType"],
            turn_id=str(answer["turn_id"]),
            keyed=key is not None,
            engine=self.spans.engine,
            state=self.spans.state,
            case=self.spans.case,
            hashing=self.spans.hashing,
            transactions=transactions,
            sent=tuple(self.spans.sent),
        )

    def retry(self, encounter: Encounter, level: str) -> Sample:
        """The last keyed turn sent again with its key: the stored turn comes back, nothing is written."""
        key, text = encounter.keys[-1]
        caller, token = "user", encounter.owner.token
        request = event(self.function, TURN_ROUTE, token, encounter.id, body={"learner_text": text}, key=key)
        result, elapsed, trips, written = self._call(request, counting=True)
        expect_status(result, 200, "a retried turn")
        return Sample(
            TURN_ROUTE, level, elapsed, caller, trips, written, language=encounter.ref.language, retried=True
        )

    def get(self, encounter: Encounter, level: str) -> tuple[Sample, list[dict[str, Any]]]:
        caller, token = self._caller(encounter.owner)
        query = f"user_id={encounter.owner.id}" if caller == "service" else ""
        result, elapsed, trips, _ = self._call(
            event(self.function, GET_ROUTE, token, encounter.id, query=query)
        )
        body = expect_status(result, 200, "read an encounter")
        transcript: list[dict[str, Any]] = body["transcript"]
        if len(transcript) != 2 * encounter.taken:
            raise RuntimeError(f"GET returned {len(transcript)} turns, expected {2 * encounter.taken}")
        sample = Sample(
            GET_ROUTE,
            level,
            elapsed,
            caller,
            trips,
            language=encounter.ref.language,
            transcript_turns=len(transcript),
        )
        return sample, transcript

    def validate(
        self, encounter: Encounter, transcript: list[dict[str, Any]], level: str, *, store: bool
    ) -> Sample:
        caller, token = self._caller(encounter.owner)
        body: dict[str, Any] = {
            "scenario_id": encounter.ref.scenario_id,
            "persona_id": encounter.ref.persona_id,
            "transcript": transcript,
        }
        if store:
            body["store"] = True
        if caller == "service":
            body["user_id"] = encounter.owner.id
        result, elapsed, trips, _ = self._call(event(self.function, VALIDATE_ROUTE, token, body=body))
        answer = expect_status(result, 200, "validate a transcript")
        if answer["summaryMetrics"]["totalPatientTurns"] != encounter.taken:
            raise RuntimeError(f"validated {answer['summaryMetrics']['totalPatientTurns']} patient turns")
        if store != (answer.get("validation_id") is not None):
            raise RuntimeError(f"store={store} but validation_id is {answer.get('validation_id')}")
        if answer["errors"]:
            raise RuntimeError(f"the runtime's own transcript has errors: {answer['errors'][:3]}")
        self.validations += 1
        return Sample(
            VALIDATE_ROUTE,
            level,
            elapsed,
            caller,
            trips,
            language=encounter.ref.language,
            transcript_turns=len(transcript),
            stored=store,
        )

    def finish(self, encounter: Encounter, level: str) -> list[Sample]:
        """A finished encounter: read back, and its transcript validated (every n-th stored)."""
        read, transcript = self.get(encounter, level)
        store = self.validations % self.settings.store_every == self.settings.store_every - 1
        return [read, self.validate(encounter, transcript, level, store=store)]


def read_records(owner: Database, samples: list[Sample]) -> dict[str, tuple[str, int]]:
    """The decision records of each turn (their subject), read as the owner: function/kind, rows."""
    ids = [sample.turn_id for sample in samples if sample.turn_id]
    with owner.as_owner() as tx:
        rows = tx.rows(
            "SELECT subject_id::text AS id, string_agg(DISTINCT function_name || '/' || kind, ',') AS kind,"
            " count(*) AS n FROM public.decision_records"
            " WHERE subject_id = ANY(CAST(string_to_array(:ids, ',') AS uuid[])) GROUP BY subject_id",
            ids=",".join(ids),
        )
    return {row["id"]: (row["kind"], int(row["n"])) for row in rows}


# --- 2. the turn mix ------------------------------------------------------------------------------------------


@dataclass
class MixResults:
    samples: list[Sample]  # measured requests, every route
    encounters: int  # started (warm-up included)
    warmup: int
    turns_taken: int  # every turn answered, warm-up included
    records: int  # sps.patient_turn decision records in the database afterwards
    missing_records: int  # measured turns without exactly one decision record of the right kind

    def of(self, route: str, level: str | None = None) -> list[Sample]:
        return [s for s in self.samples if s.route == route and (level is None or s.level == level)]


def measure_mix(
    handler: Handler,
    *,
    function: Function,
    owners: list[BenchUser],
    owner: Database,
    cases: list[CaseRef],
    settings: Settings,
    seed: int,
) -> MixResults:
    """Warm-up turns, then `settings.turns` per log level (alternating turn by turn, the pattern
    flipped every rotation of the slots) over encounters in progress at once; a new encounter's
    owner lists the catalog now and then, a finished one is read back and validated (all at the
    headline level). Decision records are read afterwards."""
    import gc

    samples: list[Sample] = []
    total = settings.warmup + settings.turns * len(LOG_LEVELS)
    records_before = count_records(owner)
    with stdout_to_devnull(), spans() as found:
        driver = Driver(
            handler, function, found=found, settings=settings, owners=owners, cases=cases, seed=seed
        )
        slots: list[Encounter] = []
        try:
            set_log_level(LOG_LEVELS[0])
            for _ in range(settings.open_encounters):
                encounter = driver.new_encounter()
                driver.start(encounter, LOG_LEVELS[0])
                slots.append(encounter)
            for index in range(total):
                measured = index >= settings.warmup
                if index == settings.warmup:
                    gc.collect()  # measure from a clean heap, as a warm container would be
                step = index - settings.warmup
                level = (
                    LOG_LEVELS[(step + step // len(slots)) % len(LOG_LEVELS)] if measured else LOG_LEVELS[0]
                )
                slot = index % len(slots)
                encounter = slots[slot]
                set_log_level(level)
                taken = [driver.turn(encounter, level)]
                set_log_level(LOG_LEVELS[0])  # the other routes at the headline level
                if encounter.done:
                    taken.extend(driver.finish(encounter, LOG_LEVELS[0]))
                    encounter = driver.new_encounter()
                    if driver.started % SCENARIOS_EVERY == 0:
                        taken.append(driver.scenarios(encounter, LOG_LEVELS[0]))
                    taken.append(driver.start(encounter, LOG_LEVELS[0]))
                    slots[slot] = encounter
                if measured:
                    samples.extend(taken)
        finally:
            set_log_level(QUIET_POWERTOOLS["POWERTOOLS_LOG_LEVEL"])
    turns = [s for s in samples if s.route == TURN_ROUTE]
    found_records = read_records(owner, turns)
    missing = sum(1 for s in turns if found_records.get(s.turn_id) != (f"{FUNCTION_ID}/{DECISION_KIND}", 1))
    return MixResults(
        samples,
        driver.started,
        settings.warmup,
        driver.turns_taken,
        count_records(owner) - records_before,
        missing,
    )


# --- 2b. the validate route with large transcripts -------------------------------------------------------------


@dataclass(frozen=True)
class RouteSize:
    language: str
    ref: CaseRef
    mode: str
    turns: int
    body_bytes: int
    handler_ns: list[int]  # lambda_handler, each request
    model_ns: float  # `ValidateRequest.model_validate_json` alone, in-process, median
    validator_ns: float  # `validate_transcript` alone on the same transcript, median


def measure_route_sizes(
    handler: Handler,
    *,
    function: Function,
    owners: list[BenchUser],
    kept: dict[str, tuple[CaseRef, dict[int, list[dict[str, Any]]]]],
    requests: int,
) -> list[RouteSize]:
    """POST /sps/validate with the part-1 transcripts of each scenario's default persona, with and
    without meta: one untimed request, then `requests` timed; and in-process, the request model's
    validation and the validator alone on the same body (median of 3)."""
    from bench.sps_encounter.corpus import compiled, without_meta
    from sps_encounter.artifacts import sps_config
    from sps_encounter.engine.validator import validate_transcript
    from sps_encounter.schemas import ValidateRequest

    config = sps_config()
    found: list[RouteSize] = []
    user = owners[0]
    set_log_level(LOG_LEVELS[0])
    with stdout_to_devnull():
        for ref, by_size in kept.values():
            language = ref.language
            case = compiled(config, ref)
            for size, turns in by_size.items():
                for mode in ("meta", "text"):
                    transcript = turns if mode == "meta" else without_meta(turns)
                    body = {
                        "scenario_id": ref.scenario_id,
                        "persona_id": ref.persona_id,
                        "transcript": transcript,
                    }
                    request = event(function, VALIDATE_ROUTE, user.token, body=body)
                    raw = request["body"]
                    timings = []
                    for attempt in range(requests + 1):
                        result, elapsed, _ = call(handler, request, FUNCTION_ID)
                        expect_status(result, 200, f"validate {size:,} turns")
                        if attempt:
                            timings.append(elapsed)
                    model, validator = [], []
                    for _ in range(3):
                        started = time.perf_counter_ns()
                        ValidateRequest.model_validate_json(raw)
                        model.append(time.perf_counter_ns() - started)
                        started = time.perf_counter_ns()
                        validate_transcript(transcript, case)
                        validator.append(time.perf_counter_ns() - started)
                    found.append(
                        RouteSize(
                            language,
                            ref,
                            mode,
                            size,
                            len(raw.encode()),
                            timings,
                            sorted(model)[1],
                            sorted(validator)[1],
                        )
                    )
    return found
