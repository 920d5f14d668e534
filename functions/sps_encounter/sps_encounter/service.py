"""The encounter use cases: start, take a turn, read, validate, list the catalog.

A turn reads the encounter in one round trip, runs the engine (and the LLM, when configured)
holding no lock, then stores the turn with one conditional statement. If another turn on the
same encounter committed first, nothing was written: the turn is planned again on the new
state, so concurrent turns are serialized, each seeing the one before it. A retry (the same
`Idempotency-Key`, or without a key the same text moments after) returns the stored turn.
"""

from __future__ import annotations

import secrets
import time
import uuid
from datetime import datetime
from typing import Any

from persona_rails.db import Database, unknown_user_is_not_found
from persona_rails.errors import Conflict, Gone, Invalid, NotFound
from persona_rails.idempotency import fingerprint, retried_turn
from persona_rails.identity import Caller
from persona_rails.llm.step import Source
from persona_rails.observability import count, logger, milliseconds
from persona_rails.settings import LlmSettings
from persona_rails.user_patterns import matching_budget, within_matching_budget
from sps_encounter import cases, phrasing, repository
from sps_encounter.artifacts import SpsConfig, Versioned, sps_config
from sps_encounter.engine.state import ENGINE_VERSION, SPSRuntimeState, init_runtime_state
from sps_encounter.engine.validator import TranscriptError, ValidationTooSlow, validate_transcript
from sps_encounter.schemas import (
    SEED_MAX,
    Catalog,
    EncounterDetail,
    EncounterOut,
    PatientTurnOut,
    PersonaRef,
    PersonaSummary,
    ScenarioRef,
    ScenarioSummary,
    StartEncounterRequest,
    TranscriptTurn,
    TurnRequest,
    ValidateRequest,
    ValidationResult,
)

Row = dict[str, Any]
# Serialized turns re-plan when another turn wins the slot; beyond this many losses in a row
# the encounter is too busy to be fair to this request.
MAX_ATTEMPTS = 8
# Validation stops past this (the function's timeout is 10 s): 20,000 catalog turns take ~1 s, so
# only an inline scenario's slow patterns on long texts come near it.
VALIDATION_BUDGET_SECONDS = 5.0


# Views


def _encounter_out(row: Row, resolved: cases.Resolved) -> dict[str, Any]:
    scenario, persona = resolved.scenario, resolved.persona
    return {
        "encounter_id": row["id"],
        "scenario": ScenarioRef(
            id=scenario.value.id,
            source=row["scenario_source"],
            version=scenario.version,
            title=scenario.value.title,
            specialty=scenario.value.specialty,
            language=scenario.value.language.value,
            learner_brief=scenario.value.learner_brief,
        ),
        "persona": PersonaRef(
            id=persona.value.id,
            source=row["persona_source"],
            version=persona.version,
            label=persona.value.label,
            verbosity=persona.value.verbosity.value,
        ),
        "seed": row["seed"],
        # An expired encounter's state is over (spec §2), whether or not housekeeping has erased
        # the row's copy yet.
        "state": row["state"] if row["live"] else None,
        "turn_index": row["turn_index"],
        "expires_at": row["expires_at"],
        "expired": not row["live"],
        "created_at": row["created_at"],
    }


def _turn_out(turn: Row, state: dict[str, Any], expires_at: datetime) -> PatientTurnOut:
    return PatientTurnOut(
        text=turn["patient_text"],
        meta=turn["meta"],
        turn_id=turn["id"],
        learner_turn_index=turn["learner_index"],
        patient_turn_index=turn["patient_index"],
        state=state,
        expires_at=expires_at,
    )


def _found(rows: list[Row], encounter_id: str) -> Row:
    if not rows:
        # Another learner's encounter is invisible under RLS and reads exactly like an unknown one.
        raise NotFound("encounter_not_found", f"no encounter {encounter_id}", field="encounter_id")
    return rows[0]


# Starting an encounter


@within_matching_budget
def start_encounter(
    db: Database, caller: Caller, request: StartEncounterRequest, key: str | None
) -> tuple[EncounterOut, bool]:
    config = sps_config()
    resolved = cases.resolve(config, request)
    start_print = fingerprint(request.model_dump(mode="json", exclude={"user_id"}))
    (earlier,) = db.run_as_user(
        caller.claims,
        repository.encounter_by_key(key)
        if key
        else repository.recent_start(start_print, config.policy.retry_window_seconds),
    )
    if earlier:
        if key and earlier[0]["start_fingerprint"] != start_print:
            raise Conflict(
                "idempotency_key_reused",
                "this Idempotency-Key started a different encounter",
                field="Idempotency-Key",
            )
        count("EncounterStartReplayed")
        return EncounterOut(**_encounter_out(earlier[0], cases.stored(config, earlier[0]))), False

    seed = request.seed if request.seed is not None else secrets.randbelow(SEED_MAX) + 1
    state = init_runtime_state(resolved.persona.value.verbosity, seed)
    row = {
        "id": str(uuid.uuid4()),
        "scenario_id": resolved.scenario.value.id,
        "scenario_source": resolved.scenario_source,
        "scenario_hash": resolved.scenario.content_hash,
        "scenario": resolved.scenario.document,
        "persona_id": resolved.persona.value.id,
        "persona_source": resolved.persona_source,
        "persona_hash": resolved.persona.content_hash,
        "persona": resolved.persona.document,
        "seed": seed,
        "state": state.to_json(),
        "config_version": resolved.case.version,
        "idempotency_key": key,
        "start_fingerprint": start_print,
    }
    with unknown_user_is_not_found():
        (inserted,) = db.run_as_user(
            caller.claims, repository.start_encounter(row, config.policy.encounter_ttl_minutes)
        )
    if not inserted:
        # The same key won a race a moment ago: answer as its retry (or its conflict).
        return start_encounter(db, caller, request, key)
    count("EncounterStarted")
    logger.info(
        "sps encounter started",
        extra={
            "encounter_id": row["id"],
            "scenario_id": row["scenario_id"],
            "scenario_source": row["scenario_source"],
            "persona_id": row["persona_id"],
        },
    )
    return EncounterOut(**_encounter_out(inserted[0], resolved)), True


# Taking a turn


@within_matching_budget
def take_turn(
    db: Database,
    llm: LlmSettings,
    caller: Caller,
    encounter_id: str,
    request: TurnRequest,
    *,
    key: str | None,
) -> PatientTurnOut:
    config = sps_config()
    request_print = fingerprint(request.model_dump(mode="json"))
    for _ in range(MAX_ATTEMPTS):
        encounters, keyed, last = db.run_as_user(
            caller.claims,
            repository.encounter(encounter_id),
            repository.turn_by_key(encounter_id, key),
            repository.last_turn(encounter_id),
        )
        row = _found(encounters, encounter_id)
        stored = retried_turn(
            last[0] if last else None,
            keyed[0] if keyed else None,
            key,
            request_print,
            config.policy.retry_window_seconds,
        )
        if stored is not None:
            count("TurnReplayed")
            # As the turn first answered: its own state after, whatever came since.
            return _turn_out(stored, stored["state_after"], row["expires_at"])
        if not row["live"] or row["state"] is None:
            raise Gone(
                "encounter_expired",
                f"encounter {encounter_id} expired at {row['expires_at'].isoformat()}; start a new one",
                state="expired",
            )
        written = _take_turn(
            db,
            llm,
            caller,
            config=config,
            row=row,
            learner_text=request.learner_text,
            request_print=request_print,
            key=key,
        )
        if written is not None:
            return written
        count("TurnSerialized")
    raise Conflict(
        "encounter_busy", "other turns on this encounter keep arriving; retry shortly", state="busy"
    )


def _take_turn(
    db: Database,
    llm: LlmSettings,
    caller: Caller,
    *,
    config: SpsConfig,
    row: Row,
    learner_text: str,
    request_print: str,
    key: str | None,
) -> PatientTurnOut | None:
    resolved = cases.stored(config, row)
    case = resolved.case
    before = row["state"]
    state = SPSRuntimeState.from_json(before)
    # The LLM call happens here, between the read and the write: no row is locked meanwhile.
    taken = phrasing.take_turn(
        case, state, learner_text, lambda plan: phrasing.phrase(case, llm, state, plan, learner_text)
    )
    response, phrased = taken.response, taken.phrased
    turn_id = str(uuid.uuid4())
    turn = {
        "id": turn_id,
        "learner_index": taken.learner_index,
        "patient_index": response.meta["turnIndex"],
        "learner_text": learner_text,
        "patient_text": response.text,
        "kind": response.meta["kind"],
        "meta": response.meta,
        "source": phrased.source.value,
        "fallback_reason": phrased.fallback_reason,
        "model": phrased.model,
        "latency_ms": phrased.latency_ms,
        "request_fingerprint": request_print,
        "idempotency_key": key,
        "config_version": case.version,
        "engine_version": ENGINE_VERSION,
    }
    record = {
        "inputs": {
            "encounter_id": str(row["id"]),
            "scenario": _document_ref(resolved.scenario, row["scenario_source"], config.scenarios),
            "persona": _document_ref(resolved.persona, row["persona_source"], config.personas),
            "state": before,
            "learner_text": learner_text,
        },
        "output": {"text": response.text, "meta": response.meta},
        # A reply was received (used, or refused by the fact check): replay reads it again.
        "source": Source.LLM.value if phrased.raw_reply is not None else Source.OFFLINE.value,
        "raw_reply": phrased.raw_reply,
        "seed": before["rngSeed"],
    }
    after = state.to_json()
    advance = {"state": after, "turn_index": state.turn_index}
    (written,) = db.run_as_user(
        caller.claims,
        repository.record_turn(
            str(row["id"]),
            expected_index=before["turnIndex"],
            advance=advance,
            turn=turn,
            record=record,
            ttl_minutes=config.policy.encounter_ttl_minutes,
        ),
    )
    if not written:
        return None
    _log_turn(str(row["id"]), response.meta, phrased)
    return _turn_out(written[0], after, written[0]["expires_at"])


def _document_ref(document: Versioned, source: str, catalog: dict[str, Versioned]) -> dict[str, Any]:
    """What a replay needs to find the document again: the catalog's by id and hash while the
    catalog still holds that version, else the document itself (an inline one, or the snapshot
    of a catalog version since changed)."""
    ref: dict[str, Any] = {"id": document.value.id, "source": source, "hash": document.content_hash}
    listed = catalog.get(document.value.id)
    if source == "inline" or listed is None or listed.content_hash != document.content_hash:
        ref["document"] = document.document
    return ref


def _log_turn(encounter_id: str, meta: dict[str, Any], phrased: phrasing.Phrased) -> None:
    """Ids, kinds and decisions only: neither the learner's words nor the patient's reach the logs."""
    count(f"PatientTurn{meta['kind'].title().replace('_', '')}")
    if meta["agendaRevealed"]:
        count("AgendaRevealed")
    milliseconds("PhrasingLatency", phrased.latency_ms)
    logger.info(
        "sps patient turn",
        extra={
            "encounter_id": encounter_id,
            "turn_index": meta["turnIndex"],
            "kind": meta["kind"],
            "question_type": meta["questionType"],
            "rapport": meta["rapport"],
            "rapport_shift": meta["rapportShift"],
            "elaborated": meta["elaborated"],
            "agenda_revealed": meta["agendaRevealed"],
            "guardrails": meta["guardrails"],
            "source": phrased.source.value,
            "fallback_reason": phrased.fallback_reason,
            "violations": list(phrased.violations),
        },
    )


# Reading an encounter


@within_matching_budget
def get_encounter(db: Database, caller: Caller, encounter_id: str) -> EncounterDetail:
    config = sps_config()
    encounters, turns = db.run_as_user(
        caller.claims, repository.encounter(encounter_id), repository.turns(encounter_id)
    )
    row = _found(encounters, encounter_id)
    transcript: list[TranscriptTurn] = []
    for turn in turns:
        transcript.append(
            TranscriptTurn(turnIndex=turn["learner_index"], role="learner", text=turn["learner_text"])
        )
        transcript.append(
            TranscriptTurn(
                turnIndex=turn["patient_index"], role="patient", text=turn["patient_text"], meta=turn["meta"]
            )
        )
    count("EncounterRead")
    return EncounterDetail(**_encounter_out(row, cases.stored(config, row)), transcript=transcript)


# Validating a transcript


def validate(db: Database, caller: Caller, request: ValidateRequest) -> ValidationResult:
    if not request.store:
        # Nothing is written, so no foreign key would find an unknown user: ask first.
        db.require_user(caller.claims)
    config = sps_config()
    with matching_budget():
        resolved = cases.resolve(config, request)
    transcript = [turn.model_dump(exclude_none=True) for turn in request.transcript]
    try:
        deadline = time.monotonic() + VALIDATION_BUDGET_SECONDS
        # Each turn's matching is bounded inside validate_transcript, the whole transcript here.
        with matching_budget(VALIDATION_BUDGET_SECONDS):
            result = validate_transcript(transcript, resolved.case, deadline=deadline)
    except TranscriptError as exc:
        raise Invalid("invalid_transcript", exc.message, field=exc.path) from None
    except ValidationTooSlow as exc:
        raise Invalid(
            "transcript_too_costly",
            f"the transcript did not validate within {VALIDATION_BUDGET_SECONDS:g} s ({exc.turns_read} of "
            f"{len(transcript)} turns read): send it in parts, or simplify the inline scenario's patterns",
            field="transcript",
        ) from None
    count("TranscriptValidated")
    logger.info(
        "sps transcript validated",
        extra={
            "scenario_id": resolved.scenario.value.id,
            "turns": len(transcript),
            "errors": len(result["errors"]),
            "warnings": len(result["warnings"]),
            "stored": request.store,
        },
    )
    if not request.store:
        return ValidationResult(**result)
    validation_id = str(uuid.uuid4())
    with unknown_user_is_not_found():
        db.run_as_user(
            caller.claims,
            repository.store_validation(
                {
                    "id": validation_id,
                    "scenario_id": resolved.scenario.value.id,
                    "scenario_hash": resolved.scenario.content_hash,
                    "persona_id": resolved.persona.value.id,
                    "persona_hash": resolved.persona.content_hash,
                    "transcript_hash": fingerprint(transcript),
                    "turns": len(transcript),
                    "errors": len(result["errors"]),
                    "warnings": len(result["warnings"]),
                    "info": len(result["info"]),
                    "result": result,
                    "config_version": resolved.case.version,
                }
            ),
        )
    return ValidationResult(**result, validation_id=uuid.UUID(validation_id))


# The catalog


def catalog() -> Catalog:
    config = sps_config()
    personas = config.personas.values()
    return Catalog(
        scenarios=[
            ScenarioSummary(
                id=s.value.id,
                version=s.version,
                title=s.value.title,
                specialty=s.value.specialty,
                language=s.value.language.value,
                learner_brief=s.value.learner_brief,
                default_persona=s.value.default_persona,
                personas=sorted(p.value.id for p in personas if p.value.language is s.value.language),
            )
            for s in config.scenarios.values()
        ],
        personas=[
            PersonaSummary(
                id=p.value.id,
                version=p.version,
                label=p.value.label,
                language=p.value.language.value,
                tone=p.value.tone.value,
                verbosity=p.value.verbosity.value,
            )
            for p in personas
        ],
    )
