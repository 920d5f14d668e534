"""SQL for the interruption tables. Every statement runs as the caller, under row-level security.

An evaluation costs two round trips: one read of the debate's chairs on cooldown, one statement
that claims the interrupting chair's cooldown, logs the interrupt and stores the decision record.
The claim is an `INSERT … ON CONFLICT DO UPDATE … WHERE` the cooldown has passed: a concurrent
claim for the same chair waits on the row, then finds it fresh, and claims nothing.
"""

from __future__ import annotations

import json
from typing import Any

Row = dict[str, Any]
Statement = tuple[str, Row]

FUNCTION_NAME = "ChairInterruptFunction"
DECISION_KIND = "chair.interrupt"
SUBJECT_TYPE = "chair_evaluation"


def on_cooldown(debate_id: str, cooldown_seconds: int) -> Statement:
    return (
        "SELECT chair_position FROM public.chair_cooldowns"
        " WHERE user_id = (SELECT auth.uid()) AND debate_id = CAST(:debate AS uuid)"
        # clock_timestamp(), not now(): a claim committed by a concurrent evaluation after this
        # transaction began is stamped later than now(), and would read as a running 0 s cooldown.
        " AND last_interrupt_at > clock_timestamp()"
        " - make_interval(secs => CAST(:cooldown AS double precision))",
        {"debate": debate_id, "cooldown": cooldown_seconds},
    )


def roster(debate_id: str) -> Statement:
    return (
        "SELECT roster FROM public.chair_debates"
        " WHERE user_id = (SELECT auth.uid()) AND debate_id = CAST(:debate AS uuid)",
        {"debate": debate_id},
    )


def record_evaluation(evaluation: Row, interrupt: Row | None, record: Row) -> Statement:
    """Claim the cooldown and log the interrupt (when there is one), and store the decision
    record either way: one statement. The record keeps the output for a won claim, and the
    `lost_output` (no interrupt: the chair went on cooldown meanwhile) for a lost one."""
    row = interrupt or {}
    sql = """
        WITH debate AS (
            INSERT INTO public.chair_debates (user_id, debate_id, roster)
            SELECT (SELECT auth.uid()), CAST(:debate AS uuid), CAST(:roster AS jsonb)
            WHERE CAST(:roster AS jsonb) IS NOT NULL
            ON CONFLICT (user_id, debate_id) DO UPDATE SET roster = chair_debates.roster || EXCLUDED.roster
            RETURNING debate_id
        ), claimed AS (
            INSERT INTO public.chair_cooldowns AS c
                (user_id, debate_id, chair_position, last_interrupt_at, cooldown_seconds)
            SELECT (SELECT auth.uid()), CAST(:debate AS uuid), :interrupting_chair, clock_timestamp(),
                   :cooldown
            WHERE CAST(:interrupts AS boolean)
            ON CONFLICT (user_id, debate_id, chair_position) DO UPDATE
                SET last_interrupt_at = EXCLUDED.last_interrupt_at,
                    cooldown_seconds = EXCLUDED.cooldown_seconds
                -- clock_timestamp(), not now(): an evaluation that began before a concurrent
                -- one committed must still see that the cooldown (0 s, say) has passed.
                WHERE CAST(:cooldown AS integer) = 0
                    OR c.last_interrupt_at <= EXCLUDED.last_interrupt_at
                        - make_interval(secs => CAST(:cooldown AS double precision))
            RETURNING chair_position
        ), logged AS (
            INSERT INTO public.chair_interruptions (
                id, user_id, debate_id, interrupting_chair, interrupted_chair, interrupting_framework,
                interrupted_framework, trigger_reason, trigger_content, urgency, suggested_opener, source)
            SELECT CAST(:id AS uuid), (SELECT auth.uid()), CAST(:debate AS uuid), :interrupting_chair,
                   :interrupted_chair, :interrupting_framework, :interrupted_framework, :trigger_reason,
                   :trigger_content, :urgency, :suggested_opener, :source
            FROM claimed
            RETURNING id, created_at
        ), record AS (
            INSERT INTO public.decision_records
                (id, user_id, function_name, kind, subject_type, subject_id, engine_version, config_version,
                 inputs, output, source, model, raw_reply, seed)
            VALUES (
                CAST(:id AS uuid), (SELECT auth.uid()), :function_name, :kind, :subject_type,
                CAST(:id AS uuid), :engine_version, :config_version,
                CAST(:inputs AS jsonb)
                    || jsonb_build_object('cooldown_claimed', EXISTS (SELECT 1 FROM claimed)),
                CASE WHEN NOT CAST(:interrupts AS boolean) OR EXISTS (SELECT 1 FROM claimed)
                     THEN CAST(:output AS jsonb) ELSE CAST(:lost_output AS jsonb) END,
                :record_source, :model, :raw_reply, :seed)
            RETURNING id
        )
        SELECT EXISTS (SELECT 1 FROM claimed) AS claimed, (SELECT created_at FROM logged) AS created_at,
               (SELECT count(*) FROM record) AS recorded
    """
    params = {
        "id": evaluation["id"],
        "debate": evaluation["debate_id"],
        # The chairs this evaluation adds to the debate (all of them on its first), else None.
        "roster": json.dumps(evaluation["new_roster"]) if evaluation.get("new_roster") else None,
        "cooldown": evaluation["cooldown_seconds"],
        "interrupts": interrupt is not None,
        "interrupting_chair": row.get("interrupting_chair"),
        "interrupted_chair": row.get("interrupted_chair"),
        "interrupting_framework": row.get("interrupting_framework"),
        "interrupted_framework": row.get("interrupted_framework"),
        "trigger_reason": row.get("trigger_reason"),
        "trigger_content": row.get("trigger_content"),
        "urgency": row.get("urgency"),
        "suggested_opener": row.get("suggested_opener"),
        "source": row.get("source"),
        "function_name": FUNCTION_NAME,
        "kind": DECISION_KIND,
        "subject_type": SUBJECT_TYPE,
        "engine_version": record["engine_version"],
        "config_version": record["config_version"],
        "inputs": json.dumps(record["inputs"], ensure_ascii=False),
        "output": json.dumps(record["output"], ensure_ascii=False),
        "lost_output": json.dumps(record["lost_output"], ensure_ascii=False),
        "record_source": record["source"],
        "model": record["model"],
        "raw_reply": record["raw_reply"],
        "seed": record["seed"],
    }
    return sql, params


def stats(debate_id: str) -> Statement:
    """The debate's totals, per chair and per reason, aggregated in SQL."""
    return (
        """
        WITH mine AS (
            SELECT interrupting_chair, trigger_reason FROM public.chair_interruptions
            WHERE user_id = (SELECT auth.uid()) AND debate_id = CAST(:debate AS uuid)
        )
        SELECT
            (SELECT count(*) FROM mine) AS total,
            (SELECT coalesce(jsonb_object_agg(interrupting_chair, n), '{}'::jsonb)
             FROM (SELECT interrupting_chair, count(*) AS n FROM mine GROUP BY 1) per_chair) AS by_chair,
            (SELECT coalesce(jsonb_object_agg(trigger_reason, n), '{}'::jsonb)
             FROM (SELECT trigger_reason, count(*) AS n FROM mine GROUP BY 1) per_reason) AS by_reason
        """,
        {"debate": debate_id},
    )


def reset_cooldowns(debate_id: str) -> Statement:
    return (
        "WITH cleared AS (DELETE FROM public.chair_cooldowns"
        " WHERE user_id = (SELECT auth.uid()) AND debate_id = CAST(:debate AS uuid)"
        " RETURNING chair_position, last_interrupt_at, cooldown_seconds)"
        # Only the cooldowns still running count as cleared; the others had already expired.
        " SELECT chair_position FROM cleared"
        " WHERE last_interrupt_at + make_interval(secs => cooldown_seconds) > clock_timestamp()",
        {"debate": debate_id},
    )
