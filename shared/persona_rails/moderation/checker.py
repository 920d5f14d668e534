"""The application-side intimacy checker: ask moderation about a candidate reply (spec §3–§6, §10).

Library mode (the service in-process) is tried first; HTTP (`POST {base_url}/moderation/check`)
only when the library is unavailable and the fallback is allowed, or when the library is switched
off. Whatever goes wrong on the way to an answer becomes a result, never an exception: fail_open
decides whether that result lets the reply through (§6.1). A bad `intimacy_level` is the caller's
bug, not the service's, so it raises `Invalid` instead.

Neither the reply nor the persona is ever logged: only the mode, the exception type and numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import Field

from persona_rails.errors import Invalid
from persona_rails.moderation.scoring import Policy, stage_for_level
from persona_rails.observability import count, logger
from persona_rails.settings import _Base

# §6: environment variable names (kept here, next to their only reader).
MODERATION_BASE_URL = "MODERATION_BASE_URL"
MODERATION_TIMEOUT_SECONDS = "MODERATION_TIMEOUT_SECONDS"
MODERATION_POLICY = "MODERATION_POLICY"
MODERATION_USE_LIBRARY = "MODERATION_USE_LIBRARY"
MODERATION_ALLOW_HTTP_FALLBACK = "MODERATION_ALLOW_HTTP_FALLBACK"
MODERATION_FAIL_OPEN = "MODERATION_FAIL_OPEN"

# §3.1, §9: fixed parts of the contract.
DIMENSION = "intimacy"
PROFILE_VERSION = "v1.0"
CHECK_PATH = "/moderation/check"
PASS_DECISION = "pass"  # noqa: S105 - a decision, not a password
# §6.1: the reasons a degraded check gives, followed by the exception's type name.
FAIL_OPEN_REASON = "moderation_service_unavailable"
FAIL_CLOSED_REASON = "moderation_service_error"
FAILURE_METRIC = "IntimacyCheckFailed"

Library = Callable[[dict[str, Any]], Mapping[str, Any]]
# Statuses with which the service refuses the input itself (not the caller's credentials).
_INPUT_REFUSED = frozenset({400, 413, 422})


def _is_json(response: Any) -> bool:
    return str(response.headers.get("content-type", "")).startswith("application/json")


class ModerationClientSettings(_Base):
    """§6, with its defaults."""

    base_url: str = Field(default="http://localhost:8000", min_length=1, validation_alias=MODERATION_BASE_URL)
    timeout_seconds: float = Field(default=5.0, gt=0, validation_alias=MODERATION_TIMEOUT_SECONDS)
    # An unknown policy fails the cold start here, instead of failing (open) every check later.
    policy: Policy = Field(default=Policy.DEFAULT, validation_alias=MODERATION_POLICY)
    use_library: bool = Field(default=True, validation_alias=MODERATION_USE_LIBRARY)
    allow_http_fallback: bool = Field(default=True, validation_alias=MODERATION_ALLOW_HTTP_FALLBACK)
    fail_open: bool = Field(default=True, validation_alias=MODERATION_FAIL_OPEN)


@dataclass(frozen=True)
class IntimacyCheckResult:
    """§4.4."""

    passed: bool
    score: float
    reason: str | None


class Mode(StrEnum):
    LIBRARY = "library"
    HTTP = "http"


class ModerationLibraryUnavailable(ImportError):
    """No in-process service was given. An ImportError, so that it is handled exactly like a
    library that fails to import: the HTTP fallback if allowed, a degraded result otherwise."""


def build_payload(reply_text: str, stage: int, persona_prompt: str, policy: str) -> dict[str, Any]:
    """§3.1, exactly."""
    return {
        "text": reply_text,
        "dimensions": [DIMENSION],
        "context": {
            "profile": {"persona": persona_prompt, "intimacy_stage": stage},
            "profile_version": PROFILE_VERSION,
        },
        "policy": policy,
    }


def parse_response(payload: Mapping[str, Any]) -> IntimacyCheckResult:
    """§4 and §10: only a `decision.final` of "pass" (any case, any surrounding space) passes.

    A payload that is not a JSON object at all raises TypeError: the service broke its contract,
    and the caller's fail_open decides. Inside the object, missing or odd fields degrade as §4
    says rather than raising, since a verdict without a score is still a verdict.
    """
    if not isinstance(payload, Mapping):
        raise TypeError("the moderation response is not a JSON object")
    decision = _normalised_decision(_field(payload, "decision").get("final"))
    intimacy = _field(_field(payload, "results"), DIMENSION)
    passed = decision == PASS_DECISION
    reason = None
    if not passed:
        given = intimacy.get("reason")
        # An empty or non-text reason says nothing; the decision itself is the better reason.
        reason = given if isinstance(given, str) and given.strip() else f"moderation_decision={decision}"
    return IntimacyCheckResult(passed, _score(intimacy.get("score")), reason)


def _field(mapping: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = mapping.get(key)
    return value if isinstance(value, Mapping) else {}


def _normalised_decision(final: Any) -> str:
    # Missing (or null) reads as "", which is not "pass"; the reason then ends in "=".
    return "" if final is None else str(final).strip().lower()


def _score(value: Any) -> float:
    """§4.2: float(), and 0.0 when absent or not convertible. NaN and infinities count as not
    convertible: they would poison any average or threshold the score later meets."""
    if value is None:
        return 0.0
    try:
        score = float(value)
    except (TypeError, ValueError, OverflowError):
        return 0.0
    return score if math.isfinite(score) else 0.0


class IntimacyChecker:
    """One per cold start. `library` is the in-process moderation service (the §3.1 payload in,
    the §4 response out), None when unavailable; `token` is called for each HTTP request, so a
    rotating token stays current.

    `last_mode` is the mode that answered the latest check, None when it degraded (§8.2: which
    path ran is the first thing to ask). It is plain instance state: Lambda runs one check at a
    time per process.
    """

    def __init__(
        self,
        settings: ModerationClientSettings | None = None,
        *,
        library: Library | None = None,
        token: Callable[[], str] | None = None,
    ) -> None:
        self.settings = settings if settings is not None else ModerationClientSettings.from_env()
        self._library = library
        self._token = token
        self.last_mode: Mode | None = None

    def check(self, reply_text: str, intimacy_level: int, persona_prompt: str) -> IntimacyCheckResult:
        payload = build_payload(
            _text(reply_text, "reply_text"),
            _stage(intimacy_level),
            _text(persona_prompt, "persona_prompt"),
            self.settings.policy,
        )
        self.last_mode = None
        mode = Mode.LIBRARY if self.settings.use_library else Mode.HTTP
        try:
            try:
                response = self._ask_library(payload) if mode is Mode.LIBRARY else self._ask_http(payload)
            except ImportError:
                # §5.2: only an unavailable library falls back; a library that ran and failed
                # has answered, badly, and asking again over HTTP would double the latency.
                if mode is not Mode.LIBRARY or not self.settings.allow_http_fallback:
                    raise
                mode = Mode.HTTP
                response = self._ask_http(payload)
            result = parse_response(response)
        except Invalid:
            # The service refused this reply or persona as input: the caller's mistake, not an
            # outage, and failing open would let exactly the unchecked text through.
            raise
        except Exception as exc:  # noqa: BLE001 - §6.1: every failure of the chain becomes a result
            return self._degraded(mode, exc)
        self.last_mode = mode
        logger.debug(
            "intimacy check", extra={"mode": mode.value, "passed": result.passed, "score": result.score}
        )
        return result

    def _ask_library(self, payload: dict[str, Any]) -> Mapping[str, Any]:
        if self._library is None:
            raise ModerationLibraryUnavailable("no in-process moderation service")
        return self._library(payload)

    def _ask_http(self, payload: dict[str, Any]) -> Any:
        # Imported here: most checks run in-process and should not pay httpx's import at cold start.
        import httpx

        headers = {"Authorization": f"Bearer {self._token()}"} if self._token is not None else {}
        response = httpx.post(
            self.settings.base_url.rstrip("/") + CHECK_PATH,
            json=payload,
            headers=headers,
            timeout=self.settings.timeout_seconds,
        )
        if response.status_code in _INPUT_REFUSED:
            # The same refusal library mode raises as Invalid: the reply itself was not checkable.
            error = _field(response.json() if _is_json(response) else {}, "error")
            raise Invalid(
                str(error.get("code") or "validation_error"),
                str(
                    error.get("message")
                    or f"the moderation service refused the input ({response.status_code})"
                ),
                field=str(error.get("field") or "text"),
            )
        response.raise_for_status()  # any other non-2xx, redirects included, is a failure
        return response.json()

    def _degraded(self, mode: Mode, exc: Exception) -> IntimacyCheckResult:
        """§6.1. Only the type name is kept: the message may quote the request."""
        kind = type(exc).__name__
        fail_open = self.settings.fail_open
        count(FAILURE_METRIC)
        logger.warning(
            "intimacy check failed",
            extra={"mode": mode.value, "exception_type": kind, "fail_open": fail_open},
        )
        if fail_open:
            return IntimacyCheckResult(True, 0.0, f"{FAIL_OPEN_REASON}: {kind}")
        return IntimacyCheckResult(False, 0.0, f"{FAIL_CLOSED_REASON}: {kind}")


def _stage(level: Any) -> int:
    try:
        return stage_for_level(level)
    except ValueError:
        raise Invalid(
            "intimacy_level_out_of_range",
            "intimacy_level must be a whole number from 0 to 100",
            field="intimacy_level",
        ) from None


def _text(value: Any, field: str) -> str:
    # A non-string would reach the service as some other JSON type, fail there, and fail open.
    if not isinstance(value, str):
        raise Invalid(f"{field}_not_text", f"{field} must be a string", field=field)
    return value
