"""Idempotent retries by request fingerprint: the same request again replays, another conflicts.

A write that may be retried (a flaky network, a client that resends) stores the fingerprint of
the request that made it. When the slot is found taken, `replay_or_conflict` decides: the same
fingerprint means this is a retry and the stored result is the answer; a different one means a
different request wants the same slot, which is a `Conflict`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any, TypeVar

from persona_rails.errors import Conflict

StoredT = TypeVar("StoredT")


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
