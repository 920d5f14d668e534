"""Decision records in tests: tamper with a stored output, and put it back whatever happens."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def _output(db: Any, record_id: str) -> Any:
    with db.as_owner() as tx:
        row = tx.one("SELECT output FROM public.decision_records WHERE id = CAST(:id AS uuid)", id=record_id)
    assert row is not None, f"no decision record {record_id}"
    return row["output"]


@contextmanager
def tampered_output(db: Any, record_id: str, path: str, value: str) -> Iterator[None]:
    """Within the block the record's output holds `value` (JSON) at `path` (a jsonb_set path such
    as '{contract,persona_used}'); afterwards it is restored, so later tests that replay every
    stored record find it as the function wrote it."""
    original = json.dumps(_output(db, record_id))
    with db.as_owner() as tx:
        tx.execute(
            f"UPDATE public.decision_records SET output = jsonb_set(output, '{path}', CAST(:v AS jsonb))"
            " WHERE id = CAST(:id AS uuid)",
            v=value,
            id=record_id,
        )
    try:
        yield
    finally:
        with db.as_owner() as tx:
            tx.execute(
                "UPDATE public.decision_records SET output = CAST(:o AS jsonb) WHERE id = CAST(:id AS uuid)",
                o=original,
                id=record_id,
            )
