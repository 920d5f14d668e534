"""SQL for the encounter tables. Every statement runs as the caller, under row-level security.

A patient turn costs two round trips: one batch reads the encounter (with whether it is still
live, by the database's clock), the turn an idempotency key names, and the last turn; one
statement advances the encounter, stores the turn and its decision record. The advance is
conditional on `turn_index` and on the encounter not having expired, so of two concurrent turns
exactly one takes each slot, and the other learns it lost by getting no row back.
"""

from __future__ import annotations

import json
from typing import Any

Row = dict[str, Any]
Statement = tuple[str, Row]

FUNCTION_NAME = "SpsEncounterFunction"
DECISION_KIND = "sps.patient_turn"
SUBJECT_TYPE = "sps_turn"


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


_ENCOUNTER = (
    "SELECT e.*, e.expires_at > now() AS live FROM public.sps_encounters e"
    " WHERE e.user_id = (SELECT auth.uid())"
)


def encounter(encounter_id: str) -> Statement:
    return (f"{_ENCOUNTER} AND e.id = CAST(:id AS uuid)", {"id": encounter_id})


def encounter_by_key(key: str) -> Statement:
    return (f"{_ENCOUNTER} AND e.idempotency_key = :key", {"key": key})


def recent_start(fingerprint: str, window_seconds: int) -> Statement:
    """A live encounter this caller started with the same request moments ago: a retry."""
    return (
        f"{_ENCOUNTER} AND e.start_fingerprint = :fingerprint AND e.idempotency_key IS NULL"
        " AND e.created_at > now() - make_interval(secs => CAST(:window AS double precision))"
        " AND e.turn_index = 0 ORDER BY e.created_at DESC LIMIT 1",
        {"fingerprint": fingerprint, "window": window_seconds},
    )


def start_encounter(row: Row, ttl_minutes: int) -> Statement:
    """Insert the encounter, and erase the runtime state of this caller's expired encounters
    (spec §2: the state does not outlive its session; a data-modifying CTE runs whether or not it
    is read). Nothing returns when the caller's
    idempotency key is already taken."""
    return (
        """
        WITH erased AS (
            UPDATE public.sps_encounters SET state = NULL
            WHERE user_id = (SELECT auth.uid()) AND state IS NOT NULL AND expires_at <= now()
            RETURNING id
        )
        INSERT INTO public.sps_encounters (
            id, user_id, scenario_id, scenario_source, scenario_hash, scenario, persona_id,
            persona_source, persona_hash, persona, seed, state, expires_at, config_version,
            idempotency_key, start_fingerprint)
        SELECT CAST(:id AS uuid), (SELECT auth.uid()), :scenario_id, :scenario_source,
            :scenario_hash, CAST(:scenario AS jsonb), :persona_id, :persona_source, :persona_hash,
            CAST(:persona AS jsonb), :seed, CAST(:state AS jsonb),
            now() + make_interval(mins => CAST(:ttl AS integer)), :config_version,
            :idempotency_key, :start_fingerprint
        ON CONFLICT (user_id, idempotency_key) DO NOTHING
        RETURNING *, true AS live
        """,
        {
            **row,
            "scenario": _json(row["scenario"]),
            "persona": _json(row["persona"]),
            "state": _json(row["state"]),
            "ttl": ttl_minutes,
        },
    )


def turn_by_key(encounter_id: str, key: str | None) -> Statement:
    return (
        "SELECT * FROM public.sps_turns WHERE encounter_id = CAST(:id AS uuid) AND idempotency_key = :key",
        {"id": encounter_id, "key": key},
    )


def last_turn(encounter_id: str) -> Statement:
    return (
        "SELECT * FROM public.sps_turns WHERE encounter_id = CAST(:id AS uuid)"
        " ORDER BY learner_index DESC LIMIT 1",
        {"id": encounter_id},
    )


def turns(encounter_id: str) -> Statement:
    return (
        "SELECT learner_index, patient_index, learner_text, patient_text, meta FROM public.sps_turns"
        " WHERE encounter_id = CAST(:id AS uuid) ORDER BY learner_index",
        {"id": encounter_id},
    )


def record_turn(
    encounter_id: str, *, expected_index: int, advance: Row, turn: Row, record: Row, ttl_minutes: int
) -> Statement:
    """Advance the encounter past this turn and store the turn and its decision record, only
    while the encounter is live and still at `expected_index`."""
    sql = f"""
        WITH advanced AS (
            UPDATE public.sps_encounters
            SET state = CAST(:state AS jsonb), turn_index = :next_index,
                expires_at = now() + make_interval(mins => CAST(:ttl AS integer)), updated_at = now()
            WHERE id = CAST(:encounter_id AS uuid) AND user_id = (SELECT auth.uid())
              AND turn_index = :expected_index AND expires_at > now() AND state IS NOT NULL
            RETURNING id, user_id, expires_at
        ), turn AS (
            INSERT INTO public.sps_turns (
                id, encounter_id, user_id, learner_index, patient_index, learner_text, patient_text,
                kind, meta, state_after, source, fallback_reason, model, latency_ms,
                request_fingerprint, idempotency_key, config_version, engine_version)
            SELECT CAST(:turn_id AS uuid), a.id, a.user_id, :learner_index, :patient_index, :learner_text,
                :patient_text, :kind, CAST(:meta AS jsonb), CAST(:state AS jsonb), :source,
                :fallback_reason, :model, :latency_ms, :request_fingerprint, :idempotency_key,
                :config_version, :engine_version
            FROM advanced a
            RETURNING *
        ), record AS (
            INSERT INTO public.decision_records
                (id, user_id, function_name, kind, subject_type, subject_id, engine_version, config_version,
                 inputs, output, source, model, raw_reply, seed)
            SELECT t.id, t.user_id, '{FUNCTION_NAME}', '{DECISION_KIND}', '{SUBJECT_TYPE}', t.id,
                :engine_version, :config_version, CAST(:record_inputs AS jsonb),
                CAST(:record_output AS jsonb), :record_source, :model, :raw_reply, :seed
            FROM turn t
            RETURNING id
        )
        SELECT t.*, a.expires_at FROM turn t CROSS JOIN advanced a
    """
    params = {
        "encounter_id": encounter_id,
        "expected_index": expected_index,
        "next_index": advance["turn_index"],
        "state": _json(advance["state"]),
        "ttl": ttl_minutes,
        "turn_id": turn["id"],
        "learner_index": turn["learner_index"],
        "patient_index": turn["patient_index"],
        "learner_text": turn["learner_text"],
        "patient_text": turn["patient_text"],
        "kind": turn["kind"],
        "meta": _json(turn["meta"]),
        "source": turn["source"],
        "fallback_reason": turn["fallback_reason"],
        "model": turn["model"],
        "latency_ms": turn["latency_ms"],
        "request_fingerprint": turn["request_fingerprint"],
        "idempotency_key": turn["idempotency_key"],
        "config_version": turn["config_version"],
        "engine_version": turn["engine_version"],
        "record_inputs": _json(record["inputs"]),
        "record_output": _json(record["output"]),
        "record_source": record["source"],
        "raw_reply": record["raw_reply"],
        "seed": record["seed"],
    }
    return sql, params


def store_validation(row: Row) -> Statement:
    return (
        """
        INSERT INTO public.sps_validations (
            id, user_id, scenario_id, scenario_hash, persona_id, persona_hash, transcript_hash, turns,
            errors, warnings, info, result, config_version)
        VALUES (CAST(:id AS uuid), (SELECT auth.uid()), :scenario_id, :scenario_hash, :persona_id,
            :persona_hash, :transcript_hash, :turns, :errors, :warnings, :info, CAST(:result AS jsonb),
            :config_version)
        RETURNING id
        """,
        {**row, "result": _json(row["result"])},
    )
