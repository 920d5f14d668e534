"""Generate a reply, check it, and retry until one passes (spec §7).

`max_retries` counts retries, not attempts: the first attempt is always made, so at most
1 + max_retries replies are generated and checked (0 means a single attempt). When none passes,
the fixed `fallback_reply` is returned unchecked: it is a vetted safe text, and checking it could
only reject it (as a fail-closed checker would during an outage) and leave nothing to say.

Errors from `generate` or `check` propagate: the checker already turns service failures into
results, and what it still raises (`Invalid`) is a bug in the caller, which retrying cannot fix.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from persona_rails.moderation.checker import IntimacyCheckResult

STEP_PREFIX = "intimacy_check_attempt_"


@dataclass(frozen=True)
class GenerationResult:
    """`passed` says the returned reply passed a check, so it is False whenever `used_fallback`
    is True; `check` is the last check made (that of the last attempt)."""

    reply: str
    attempts: int
    passed: bool
    used_fallback: bool
    check: IntimacyCheckResult


def generate_with_retry(
    generate: Callable[[int], str],
    check: Callable[[str], IntimacyCheckResult],
    *,
    max_retries: int,
    fallback_reply: str,
    trace: list[dict[str, Any]] | None = None,
) -> GenerationResult:
    """`generate(n)` makes the reply of attempt n (1-based), so it can vary its prompt; each
    check is appended to `trace` as `intimacy_check_attempt_<n>` with its outcome, never the text."""
    if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
        raise ValueError("max_retries must be a whole number, 0 or more")
    if not isinstance(fallback_reply, str) or not fallback_reply.strip():
        raise ValueError("fallback_reply must be a non-empty text")
    attempt = 0
    while True:
        attempt += 1
        reply = generate(attempt)
        result = check(reply)
        if trace is not None:
            trace.append(
                {
                    "step": f"{STEP_PREFIX}{attempt}",
                    "attempt": attempt,
                    "passed": result.passed,
                    "score": result.score,
                    "reason": result.reason,
                }
            )
        if result.passed:
            return GenerationResult(reply, attempt, True, False, result)
        if attempt > max_retries:
            return GenerationResult(fallback_reply, attempt, False, True, result)
