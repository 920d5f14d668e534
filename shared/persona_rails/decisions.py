"""Decision records, and replaying them: every decision a function makes can be recomputed.

A function stores, beside each decision, what computing it took: the engine inputs, the config
and engine versions, the `source`, the raw LLM reply when one was used and the seed when one was
drawn (table `public.decision_records`, owner-readable under RLS). Each function registers its
replay entry by convention: a module `<package>.replay` with

    def replay(record: DecisionRecord) -> dict   # the recomputed output, no network

`rails replay FUNCTION ID` runs it inside that function's own worker and prints `identical` or
a diff against the stored output.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from typing import Any

from persona_rails.db import Tx

REPLAY_MODULE = "replay"


class NotReplayable(Exception):
    """A stored decision that cannot be recomputed, and why (its inputs were not kept, say)."""


@dataclass(frozen=True)
class DecisionRecord:
    id: str
    user_id: str
    function_name: str
    kind: str
    subject_type: str
    subject_id: str
    engine_version: str
    config_version: str
    inputs: dict[str, Any]
    output: dict[str, Any]
    source: str
    model: str | None
    raw_reply: str | None
    seed: int | None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> DecisionRecord:
        return cls(
            **{name: row[name] for name in cls.__dataclass_fields__}
            | {"id": str(row["id"]), "user_id": str(row["user_id"]), "subject_id": str(row["subject_id"])}
        )


def load_record(tx: Tx, record_id: str) -> DecisionRecord | None:
    row = tx.one("SELECT * FROM public.decision_records WHERE id = CAST(:id AS uuid)", id=record_id)
    return DecisionRecord.from_row(row) if row else None


def canonical(output: dict[str, Any]) -> str:
    return json.dumps(output, sort_keys=True, ensure_ascii=False, indent=2, default=str)


def diff(stored: dict[str, Any], recomputed: dict[str, Any]) -> list[str]:
    """A unified diff of the two outputs as canonical JSON; empty when they are identical."""
    return list(
        difflib.unified_diff(
            canonical(stored).splitlines(),
            canonical(recomputed).splitlines(),
            fromfile="stored",
            tofile="replayed",
            lineterm="",
        )
    )
