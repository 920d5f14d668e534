"""A Lambda init without the cyclic garbage collector, then everything it built frozen out of its reach.

Importing FastAPI, pydantic and a function's modules allocates hundreds of thousands of objects
that all live as long as the process; each collection the allocations trigger on the way scans
them again for nothing. Each function package calls `pause_collector` first thing (its
`__init__` runs before the handler module imports anything), and the handler's init ends with
`end_of_init`: the collector back on, and the init's objects frozen so that the first requests'
collections skip them. Saves ~40-60 ms of a packaged cold start (docs/benchmarks.md).

Only inside Lambda (AWS_LAMBDA_FUNCTION_NAME set): a test or a tool that imports a function's
modules without building its handler keeps its collector.
"""

from __future__ import annotations

import gc
import os

_paused = False


def pause_collector() -> None:
    global _paused
    if os.environ.get("AWS_LAMBDA_FUNCTION_NAME") and gc.isenabled():
        gc.disable()
        _paused = True


def end_of_init() -> None:
    global _paused
    if _paused:
        gc.enable()
        _paused = False
    gc.freeze()
