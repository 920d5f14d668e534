"""The seeded RNG and variation helpers of spec §3–4, bit for bit as the TypeScript reference.

`nextRng` runs xorshift32 with JavaScript's 32-bit semantics: `x | 0` makes a signed 32-bit
integer, `<<` wraps at 32 bits, `>>>` shifts the unsigned value, and `>>> 0` stores it unsigned.
On the unsigned value those are plain shifts and XORs masked to 32 bits, which is what this
computes (seed 42 gives 11355432, 2836018348, 476557059).

Two decisions the reference leaves open:
- Seed 0 is rejected (`ZeroSeed`): xorshift32 maps 0 to 0 forever, so every draw would be 0.
  `initRuntimeState` takes `seed >>> 0` first, so 2**32 is rejected too.
- A draw is `state / 0xFFFFFFFF`, which is exactly 1.0 for the state 0xFFFFFFFF; `choose` would
  then index one past the pool. The index is clamped to the last item, which changes nothing
  for any other state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, Protocol, TypeVar

T = TypeVar("T")
UINT32 = 0xFFFFFFFF
Domain = Literal["clar", "bound", "decl", "other"]


class Seeded(Protocol):
    """What a draw advances and logs: the runtime state (engine/state.py) is one."""

    rng_seed: int
    draws: list[dict[str, Any]]


class ZeroSeed(ValueError):
    def __init__(self) -> None:
        super().__init__("the seed must be a nonzero 32-bit value: xorshift32 never leaves 0")


class EmptyPool(ValueError):
    def __init__(self, purpose: str) -> None:
        super().__init__(f"empty pool: {purpose}")


def to_uint32(seed: int) -> int:
    """JavaScript's `seed >>> 0`."""
    return seed & UINT32


def xorshift32(x: int) -> int:
    x ^= (x << 13) & UINT32
    x ^= x >> 17
    x ^= (x << 5) & UINT32
    return x & UINT32


def next_rng(state: Seeded, purpose: str = "draw", domain: Domain = "other") -> float:
    """The reference's `nextRng`: advance the state, return it scaled to [0, 1]. Every draw is
    logged on the state with what it was for, so a patient turn's meta lists them all."""
    state.rng_seed = xorshift32(state.rng_seed)
    value = state.rng_seed / UINT32
    state.draws.append({"purpose": purpose, "domain": domain, "state": state.rng_seed, "value": value})
    return value


def choose(state: Seeded, domain: Domain, pool: Sequence[T], purpose: str = "choose") -> T:
    if not pool:
        raise EmptyPool(purpose)
    index = min(int(next_rng(state, purpose, domain) * len(pool)), len(pool) - 1)
    state.draws[-1]["index"] = index
    return pool[index]


def record_rotating(window: list[str], value: str, max_size: int = 3) -> None:
    window.append(value)
    while len(window) > max_size:
        window.pop(0)
