"""What the per-function scenarios (interview, chair_interrupt, sps_encounter, moderation) share: a
handler serving a fresh database, the warm-up then measured loop, a client sending each route as a
user or the platform's service role, rates over interleaved passes, and latency target rows."""

from __future__ import annotations

import gc
import random
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from bench.harness import handler as harness
from bench.harness.report import median, ms, percentile, target

if TYPE_CHECKING:
    from persona_rails.db import Database
    from persona_rails_dev.lambda_runtime import Handler
    from persona_rails_dev.template import Function

Step = TypeVar("Step")


@dataclass(frozen=True)
class Served:
    function: Function
    handler: Handler
    owner: Database  # the connecting role, for set-up and read-backs only
    users: list[harness.BenchUser]


@contextmanager
def serving(
    function_id: str, users: int, env: Mapping[str, str | None] | None = None, *, with_rule: bool = False
) -> Iterator[Served]:
    """The function's real handler on a fresh embedded database with `users` accounts (`with_rule`:
    one rule each); `env` overrides the template's variables (None unsets one). Stdout goes to
    /dev/null meanwhile."""
    declared = harness.function(function_id)
    env = env or {}
    with harness.embedded_database() as database:
        accounts = harness.create_accounts(database.owner, users, with_rule=with_rule)
        extra = {name: value for name, value in env.items() if value is not None}
        unset = tuple(name for name, value in env.items() if value is None)
        handler = harness.load_function_handler(declared, database.url, extra, unset)
        try:
            with harness.stdout_to_devnull():
                yield Served(declared, handler, database.owner, accounts)
        finally:
            harness.release_handler_state()


def warm_loop(warmup: int, count: int, step: Callable[[int], Step]) -> list[Step]:
    """`step(index)` for `warmup` untimed then `count` measured indexes; the measured results."""
    measured = []
    for index in range(warmup + count):
        if index == warmup:
            gc.collect()  # measure from a clean heap, as a warm container would be
        taken = step(index)
        if index >= warmup:
            measured.append(taken)
    return measured


@dataclass
class Client:
    """Sends a declared route's API Gateway event to the handler. With `rng`, `service_share` of
    the requests carry the platform's service-role token naming the user (in the body, or
    `?user_id=` when there is none or `user_in_query`) instead of the user's own."""

    handler: Handler
    function: Function
    rng: random.Random | None = None
    service_share: float = 0.5
    service: str = field(default_factory=harness.service_token)

    def send(
        self,
        route: str,
        user: harness.BenchUser,
        status: int = 200,
        *,
        params: dict[str, str] | None = None,
        body: dict[str, Any] | None = None,
        user_in_query: bool = False,
        key_share: float = 0.0,
    ) -> tuple[dict[str, Any], int]:
        """(the answer's body, nanoseconds around lambda_handler); `key_share` of the requests
        carry a fresh Idempotency-Key (1: all, without a draw)."""
        token, query = user.token, ""
        if self.rng is not None and self.rng.random() < self.service_share:
            token = self.service
            if body is None or user_in_query:
                query = f"user_id={user.id}"
            else:
                body = {**body, "user_id": user.id}
        keyed = key_share >= 1 or (key_share > 0 and self.rng is not None and self.rng.random() < key_share)
        key = str(uuid.uuid4()) if keyed else None
        request = harness.event(self.function, route, token, params, body=body, query=query, key=key)
        result, elapsed = harness.call(self.handler, request, self.function.logical_id)
        return harness.expect_status(result, status, route), elapsed


def latency_targets(
    what: str, values: Sequence[float], p50_ms: float, p99_ms: float | None = None
) -> list[list[str]]:
    """`what` p50 (and p99) against their targets in ms, as rows of the targets table."""
    rows = []
    for q, limit in ((50, p50_ms), (99, p99_ms)):
        if limit is not None:
            value = percentile(values, q)
            rows.append(target(f"{what} p{q} ≤ {limit:g} ms", f"{ms(value)} ms", value <= limit * 1e6))
    return rows


Variant = tuple[Callable[..., object], Sequence[tuple[Any, ...]]]


def passes(variants: Mapping[str, Variant], count: int) -> dict[str, list[float]]:
    """Each variant's `run(*case)` over its cases: one untimed pass each (caches, lazy compiles),
    then `count` timed passes interleaved so noise hits every variant; cases per second, by pass."""
    for run, cases in variants.values():
        for case in cases:
            run(*case)
    rates: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(count):
        for name, (run, cases) in variants.items():
            started = time.perf_counter_ns()
            for case in cases:
                run(*case)
            rates[name].append(len(cases) / ((time.perf_counter_ns() - started) / 1e9))
    return rates


def rate_headers(unit: str) -> list[str]:
    return [f"median {unit}s/s", "range over passes", f"µs/{unit}"]


def rate_cells(rates: Sequence[float]) -> list[str]:
    """The median rate, its range over passes, and µs per case."""
    rate = median(rates)
    return [f"{rate:,.0f}", f"{min(rates):,.0f}–{max(rates):,.0f}", f"{1e6 / rate:.1f}"]
