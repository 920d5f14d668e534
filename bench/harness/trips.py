"""Round trips per request through tests/support/delay_proxy.py, with and without delay.

The handler's DATABASE_URL points at the proxy on 127.0.0.1, which forwards to the embedded
server's unix socket and counts the client's flights. One pass adds no delay (the counts, and the
base latency through the proxy); a second adds `delay_ms` in each direction, so each round trip
costs about 2 x delay_ms more and a request should take about base + n x that.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bench.harness.handler import REPO_ROOT, expect_status, lambda_context, release_handler_state
from bench.harness.report import median, ms, trips_cell, verdict
from tests.support.delay_proxy import DelayProxy

if TYPE_CHECKING:
    from persona_rails_dev.lambda_runtime import Handler


@dataclass
class Pass:
    delay_ms: float
    samples: list[Any] = field(default_factory=list)
    cold_setup: int = 0  # the handshake's round trips, on the cold container's first request
    cold_request: int = 0  # that first request's other round trips
    one_round_trip: list[int] = field(default_factory=list)  # a bare `SELECT 1`: one round trip's price

    @property
    def price(self) -> float:
        return median(self.one_round_trip)


@contextmanager
def proxied(
    database_url: str, result: Pass, load: Callable[[str], Handler], prices: int = 200
) -> Iterator[tuple[DelayProxy, Handler]]:
    """A handler whose DATABASE_URL is the proxy (`result.delay_ms` each way); after the pass, the
    proxy's price of one round trip (`prices` times `SELECT 1`)."""
    with DelayProxy.to(database_url, delay_seconds=result.delay_ms / 1000) as proxy:
        handler = load(proxy.url_for(database_url))
        try:
            yield proxy, handler
            result.one_round_trip = one_round_trip(proxy, database_url, prices)
        finally:
            release_handler_state()


def both_passes(measure: Callable[..., Any], delay_ms: float, /, *args: Any, **kwargs: Any) -> list[Any]:
    """`measure` with no delay (the counts, and the base latency through the proxy), then with
    `delay_ms` each way, the same arguments (and seed) otherwise."""
    return [measure(*args, delay_ms=delay, **kwargs) for delay in (0.0, delay_ms)]


def cold(
    proxy: DelayProxy,
    handler: Handler,
    request: dict[str, Any],
    *,
    function_id: str,
    result: Pass,
    status: int,
) -> dict[str, Any]:
    """The cold container's first request, its round trips reported apart."""
    with proxy.measure() as counted:
        body = expect_status(handler(request, lambda_context(function_id)), status, "first request")
    result.cold_setup, result.cold_request = counted.setup_round_trips, counted.request_round_trips
    return body


def one_round_trip(proxy: DelayProxy, url: str, count: int) -> list[int]:
    """The proxy's price of one round trip: a simple-protocol `SELECT 1` (one flight) on pg8000."""
    import pg8000.native

    from persona_rails.db.url import connect_kwargs

    connection = pg8000.native.Connection(**connect_kwargs(proxy.url_for(url)))
    try:
        samples = []
        for _ in range(count):
            started = time.perf_counter_ns()
            connection.run("SELECT 1")
            samples.append(time.perf_counter_ns() - started)
        return samples
    finally:
        connection.close()


def code_label() -> str:
    """The commit the measured code came from (REPO_ROOT may be a worktree of an older commit)."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(REPO_ROOT), *args], capture_output=True, text=True, check=True, timeout=10
        ).stdout.strip()

    try:
        commit = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return f"{REPO_ROOT} (not a git checkout)"
    return f"{commit}{' + uncommitted changes' if dirty else ''} ({REPO_ROOT})"


# --- the two-pass table -----------------------------------------------------------------------------


def trip_headers(delay_ms: float, *, expected: bool = False) -> list[str]:
    return [
        "requests",
        "n",
        "round trips",
        *(["expected"] if expected else []),
        "budget",
        "p50 ms, no delay",
        f"p50 ms, +{delay_ms:g} ms each way",
        "added",
        "round trips × one round trip's added cost",
        "verdict",
    ]


def trip_row(
    label: str,
    trips: Sequence[int],
    base_ns: Sequence[float],
    delayed_ns: Sequence[float],
    price: float,
    *,
    budget: int,
    expected: str | None = None,
) -> list[str]:
    """Both passes' round trips against the budget, and the delay they add against their price."""
    base_p50, delayed_p50 = median(base_ns), median(delayed_ns)
    return [
        label,
        str(len(trips)),
        trips_cell(list(trips)),
        *([expected] if expected is not None else []),
        f"≤ {budget}",
        ms(base_p50),
        ms(delayed_p50),
        ms(delayed_p50 - base_p50),
        ms(median(trips) * price),
        verdict(max(trips) <= budget),
    ]


def price_notes(passes: Sequence[Pass], *, first: str, columns: str = "last two columns") -> list[str]:
    """What one round trip costs through the proxy, and the cold container's connection set-up."""
    base, delayed = passes
    one_base, one_delayed = base.price, delayed.price
    return [
        f"One round trip through the proxy (pg8000 `SELECT 1`): p50 {ms(one_base)} ms with no delay, "
        f"{ms(one_delayed)} ms with {delayed.delay_ms:g} ms each way, so each round trip adds "
        f"{ms(one_delayed - one_base)} ms: a request should take its no-delay p50 plus round trips × that, "
        f"which the {columns} compare.",
        f"Connection set-up (cold container, not in the rows): the handshake took {base.cold_setup} round "
        f"trip(s) here (local trust auth), and that first {first} {base.cold_request} more.",
    ]
