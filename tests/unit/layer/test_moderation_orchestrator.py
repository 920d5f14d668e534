"""`generate_with_retry` (spec §7): at most 1 + max_retries checked replies, then the fallback."""

from __future__ import annotations

from typing import Any

import pytest

from persona_rails.moderation.checker import IntimacyCheckResult
from persona_rails.moderation.orchestrator import GenerationResult, generate_with_retry

FALLBACK = "我们换个话题吧。"
PASSED = IntimacyCheckResult(True, 0.2, None)
FAILED = IntimacyCheckResult(False, 0.7, "moderation_decision=rewrite")


class Script:
    """Replies `reply-<n>` and checks them against a list of verdicts, one per attempt."""

    def __init__(self, *verdicts: IntimacyCheckResult) -> None:
        self.verdicts = list(verdicts)
        self.generated: list[int] = []
        self.checked: list[str] = []

    def generate(self, attempt: int) -> str:
        self.generated.append(attempt)
        return f"reply-{attempt}"

    def check(self, reply: str) -> IntimacyCheckResult:
        self.checked.append(reply)
        return self.verdicts[len(self.checked) - 1]

    def run(self, max_retries: int, trace: list[dict[str, Any]] | None = None) -> GenerationResult:
        return generate_with_retry(
            self.generate, self.check, max_retries=max_retries, fallback_reply=FALLBACK, trace=trace
        )


def test_a_first_reply_that_passes_is_returned():
    script = Script(PASSED)
    assert script.run(2) == GenerationResult("reply-1", 1, True, False, PASSED)
    assert script.generated == [1]


def test_a_failed_reply_is_regenerated_until_one_passes():
    script = Script(FAILED, FAILED, PASSED)
    assert script.run(2) == GenerationResult("reply-3", 3, True, False, PASSED)
    assert script.generated == [1, 2, 3]
    assert script.checked == ["reply-1", "reply-2", "reply-3"]


def test_exhausted_retries_give_the_fallback_unchecked():
    script = Script(FAILED, FAILED, FAILED)
    result = script.run(2)
    assert result == GenerationResult(FALLBACK, 3, False, True, FAILED)
    assert script.checked == ["reply-1", "reply-2", "reply-3"]  # never the fallback


def test_no_retries_means_one_attempt():
    script = Script(FAILED)
    assert script.run(0) == GenerationResult(FALLBACK, 1, False, True, FAILED)
    assert script.generated == [1]


def test_a_fail_open_result_counts_as_passed():
    degraded = IntimacyCheckResult(True, 0.0, "moderation_service_unavailable: RuntimeError")
    assert Script(degraded).run(1) == GenerationResult("reply-1", 1, True, False, degraded)


def test_each_check_is_traced_in_order_without_text():
    script = Script(FAILED, FAILED, PASSED)
    trace: list[dict[str, Any]] = [{"step": "earlier"}]
    script.run(3, trace)
    assert trace == [
        {"step": "earlier"},
        {
            "step": "intimacy_check_attempt_1",
            "attempt": 1,
            "passed": False,
            "score": 0.7,
            "reason": FAILED.reason,
        },
        {
            "step": "intimacy_check_attempt_2",
            "attempt": 2,
            "passed": False,
            "score": 0.7,
            "reason": FAILED.reason,
        },
        {"step": "intimacy_check_attempt_3", "attempt": 3, "passed": True, "score": 0.2, "reason": None},
    ]
    assert "reply-" not in repr(trace)


def test_exhaustion_traces_every_attempt():
    trace: list[dict[str, Any]] = []
    Script(FAILED, FAILED).run(1, trace)
    assert [step["step"] for step in trace] == ["intimacy_check_attempt_1", "intimacy_check_attempt_2"]


@pytest.mark.parametrize("max_retries", [-1, 1.5, True, None])
def test_a_bad_max_retries_is_rejected_before_generating(max_retries):
    script = Script(PASSED)
    with pytest.raises(ValueError, match="max_retries"):
        script.run(max_retries)
    assert script.generated == []


@pytest.mark.parametrize("fallback", ["", "   "])
def test_an_empty_fallback_is_rejected(fallback):
    with pytest.raises(ValueError, match="fallback_reply"):
        generate_with_retry(lambda n: "x", lambda r: PASSED, max_retries=1, fallback_reply=fallback)
