"""Idempotent retries by request fingerprint: the same request again replays, another conflicts.

A write that may be retried (a flaky network, a client that resends) stores the fingerprint of
the request that made it. When the slot is found taken, `replay_or_conflict` decides: the same
fingerprint means this is a retry and the stored result is the answer; a different one means a
different request wants the same slot, which is a `Conflict`. A conversation's turns (interview,
SPS encounter) find the turn a request retries with `retried_turn`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, TypeVar

from persona_rails.errors import Conflict

StoredT = TypeVar("StoredT")
TurnT = TypeVar("TurnT", bound=Mapping[str, Any])


def fingerprint(payload: Any) -> str:
    """SHA-256 of the payload's canonical JSON: key order and spacing never change it."""
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def replay_or_conflict(
    stored: StoredT | None,
    incoming: str,
    *,
    fingerprint_of: Callable[[StoredT], str | None],
    conflict: Conflict,
) -> StoredT:
    """The stored result when `incoming` is its request's fingerprint; else raise `conflict`."""
    if stored is None or fingerprint_of(stored) != incoming:
        raise conflict
    return stored


def retried_turn(
    last: TurnT | None,
    keyed: TurnT | None,
    key: str | None,
    request_print: str,
    window_seconds: int,
    *,
    now: datetime | None = None,
) -> TurnT | None:
    """The stored turn a request to take a conversation's next turn retries, if it is one (each
    turn row holds `request_fingerprint`, `idempotency_key` and `created_at`).

    - With an Idempotency-Key: the turn stored under that key (`keyed`); the same key with another
      request is a `Conflict`, naming the header.
    - Without one: the conversation's `last` turn, when the same request made it, without a key,
      at most `window_seconds` ago: a client resending after its answer was lost. Saying the same
      thing again later is a new turn."""
    if key:
        if keyed is None:
            return None
        if keyed["request_fingerprint"] != request_print:
            raise Conflict(
                "idempotency_key_reused",
                "this Idempotency-Key sent a different turn",
                field="Idempotency-Key",
            )
        return keyed
    if last is None or last["idempotency_key"] is not None:
        return None
    age = ((now or datetime.now(UTC)) - last["created_at"]).total_seconds()
    return last if last["request_fingerprint"] == request_print and age <= window_seconds else None
