"""One structured-output chat completion, validated against a pydantic model.

Anything short of a valid answer raises LlmFault with a short reason (timeout, rate_limited,
server_error, connection, client_error, malformed, out_of_range, refused), which callers record
before answering from their deterministic fallback. The SDK is imported on first use only, so a
function running without an LLM never pays for it.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from persona_rails.llm.schema import strict_json_schema
from persona_rails.settings import LlmSettings

ModelT = TypeVar("ModelT", bound=BaseModel)

# Errors that mean "the JSON had the right shape but a value outside its allowed range".
_RANGE_ERRORS = {
    "less_than_equal",
    "greater_than_equal",
    "less_than",
    "greater_than",
    "literal_error",
    "enum",
    "string_too_long",
    "too_long",
}


class LlmFault(Exception):
    def __init__(self, reason: str, detail: str = "", *, raw: str | None = None) -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        # The reply that was refused, when there was one (kept for diagnosis, never logged).
        self.raw = raw


@dataclass(frozen=True)
class LlmReply(Generic[ModelT]):
    value: ModelT
    model: str
    latency_ms: int
    # The message content exactly as received: what a decision record keeps for replay.
    raw: str


@cache
def _client(api_key: str, base_url: str | None, timeout: float) -> Any:
    import openai

    # No SDK retries: a retry would blow the turn's latency budget, and the offline
    # evaluator is a better answer than a late one.
    return openai.OpenAI(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0)


def _classify_sdk_error(exc: Exception) -> LlmFault:
    import openai

    if isinstance(exc, openai.APIResponseValidationError):
        return LlmFault("malformed", "response body")
    if isinstance(exc, openai.APITimeoutError):
        return LlmFault("timeout")
    if isinstance(exc, openai.RateLimitError):
        return LlmFault("rate_limited")
    if isinstance(exc, openai.APIStatusError):
        return LlmFault("server_error" if exc.status_code >= 500 else "client_error", str(exc.status_code))
    if isinstance(exc, openai.APIConnectionError):
        return LlmFault("connection")
    return LlmFault("client_error", type(exc).__name__)


def parse_reply(content: object, schema: type[ModelT]) -> ModelT:
    """Validate the model's JSON strictly: `true` is no confidence and "0.5" is no number."""
    if not isinstance(content, str) or not content.strip():
        raise LlmFault("malformed", "no text content")
    try:
        value = schema.model_validate_json(content, strict=True)
    except ValidationError as exc:
        errors = exc.errors()
        if any(error["type"] == "json_invalid" for error in errors):
            raise LlmFault("malformed", "not JSON", raw=content) from exc
        in_range = all(_is_range_error(error) for error in errors)
        kinds = ",".join(sorted({error["type"] for error in errors}))
        raise LlmFault("out_of_range" if in_range else "malformed", kinds, raw=content) from exc
    if _holds_nul(value.model_dump(mode="json")):
        # "\u0000" is valid JSON, but PostgreSQL text cannot store it: the turn would fail to save.
        raise LlmFault("malformed", "NUL character", raw=content)
    if _holds_non_finite(value.model_dump()):
        # NaN, Infinity and 1e999 parse as floats; clamped, Infinity would be a confidence of 1.
        raise LlmFault("malformed", "non-finite number", raw=content)
    return value


def _holds_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_holds_nul(item) for item in value.values())
    if isinstance(value, list):
        return any(_holds_nul(item) for item in value)
    return False


def _holds_non_finite(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(_holds_non_finite(item) for item in value.values())
    if isinstance(value, list | tuple):
        return any(_holds_non_finite(item) for item in value)
    return False


def _is_range_error(error: Any) -> bool:
    """A value of the right JSON type outside what the schema allows (1.7 for a 0..1 confidence,
    "maybe" for an enum); a value of the wrong type (null, a list) is a malformed reply instead."""
    if error["type"] not in _RANGE_ERRORS:
        return False
    if error["type"] in {"enum", "literal_error"}:
        return isinstance(error.get("input"), str)
    return True


def complete_structured(
    settings: LlmSettings,
    messages: list[dict[str, str]],
    *,
    schema: type[ModelT],
    schema_name: str,
    max_tokens: int = 300,
    temperature: float = 0,
) -> LlmReply[ModelT]:
    """One call whose reply must validate against `schema`; the strict JSON schema sent to the
    model is generated from it (`strict_json_schema`), never written a second time."""
    if settings.api_key is None or settings.model is None:
        raise LlmFault("not_configured")
    import openai

    json_schema = strict_json_schema(schema)
    client = _client(settings.api_key, settings.base_url, settings.timeout_seconds)
    started = time.perf_counter()
    try:
        completion = _within_deadline(
            settings.timeout_seconds,
            lambda: client.chat.completions.create(
                model=settings.model,
                messages=messages,
                temperature=temperature,
                max_tokens=max_tokens,
                response_format={
                    "type": "json_schema",
                    "json_schema": {"name": schema_name, "schema": json_schema, "strict": True},
                },
            ),
        )
    except LlmFault:
        raise
    except openai.OpenAIError as exc:
        raise _classify_sdk_error(exc) from exc
    except ValueError as exc:
        # The SDK hands a 200 body that is not JSON straight to json.loads.
        raise LlmFault("malformed", "response body is not JSON") from exc
    except Exception as exc:
        raise LlmFault("client_error", type(exc).__name__) from exc
    latency_ms = int((time.perf_counter() - started) * 1000)
    content, model = _first_message(completion)
    value = parse_reply(content, schema)
    assert isinstance(content, str)  # parse_reply accepts text only
    return LlmReply(value=value, model=model or settings.model, latency_ms=latency_ms, raw=content)


def _within_deadline(seconds: float, call: Callable[[], Any]) -> Any:
    """Run `call`, giving up after `seconds` in total.

    The SDK's timeout bounds each network read, not the whole reply: a server sending a byte at
    a time could hold a turn for minutes. The call runs on a daemon thread that is abandoned
    (its own read timeout ends it) when the deadline passes.
    """
    outcome: dict[str, Any] = {}
    finished = threading.Event()

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller below
            outcome["error"] = exc
        finally:
            finished.set()

    threading.Thread(target=run, name="llm-call", daemon=True).start()
    if not finished.wait(seconds):
        raise LlmFault("timeout", "overall deadline")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _first_message(completion: Any) -> tuple[object, str | None]:
    """The first choice's content, from a response whose shape the SDK did not check."""
    try:
        message = completion.choices[0].message
        refusal, content = getattr(message, "refusal", None), message.content
        model = completion.model if isinstance(completion.model, str) else None
    except (AttributeError, IndexError, KeyError, TypeError) as exc:
        raise LlmFault("malformed", "unexpected response shape") from exc
    if refusal:
        raise LlmFault("refused")
    return content, model
