"""The real SpsEncounterFunction handler, its events, and the encounters the benchmark plays through
it: owners with several encounters in progress at once, learner turns from the corpus, each
finished encounter read back and its transcript validated. Used in-process (part 2, and 2b: the
validate route with large transcripts) and behind the delaying proxy (part 3)."""

from __future__ import annotations

import random
import uuid
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bench.harness.handler import (
    BenchUser,
    expect_status,
    service_token,
)
from bench.harness.handler import event as harness_event
from bench.harness.timing import Spans, call
from bench.harness.timing import spans as timing_spans
from bench.sps_encounter.corpus import FUNCTION_ID, CaseRef, Settings, learner_stream

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


# --- 2. the turn mix ------------------------------------------------------------------------------------------


# --- 2b. the validate route with large transcripts -------------------------------------------------------------
