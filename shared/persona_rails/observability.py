"""Powertools logger, metrics and tracer, one of each per process.

Raw user text never goes through these: callers log ids, enums and numbers only.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from functools import cache, wraps
from typing import TYPE_CHECKING, Any, TypeVar

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit

from persona_rails import env

if TYPE_CHECKING:
    from aws_lambda_powertools import Tracer

__all__ = ["MetricUnit", "count", "logger", "metrics", "milliseconds", "publishing_metrics", "tracer"]

HandlerT = TypeVar("HandlerT", bound=Callable[..., Any])

# An invocation that records no metric (a read, a stats route) is normal: Powertools would warn
# on each one, in the middle of `make dev`'s demo and of every log stream.
warnings.filterwarnings("ignore", message="No application metrics to publish", category=UserWarning)

_SERVICE = os.environ.get(env.SERVICE_NAME, "persona-rails")

logger = Logger(service=_SERVICE)
metrics = Metrics(namespace=os.environ.get(env.METRICS_NAMESPACE, "PersonaRails"), service=_SERVICE)


@cache
def tracer() -> Tracer:
    # The X-Ray SDK costs ~100 ms to import; only Lambda with active tracing pays for it.
    from aws_lambda_powertools import Tracer

    return Tracer(service=_SERVICE)


def count(name: str, value: int = 1) -> None:
    metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)


def milliseconds(name: str, value: float) -> None:
    metrics.add_metric(name=name, unit=MetricUnit.Milliseconds, value=value)


def tracing_enabled() -> bool:
    """True only inside Lambda with tracing left on, so local runs never import the X-Ray SDK."""
    in_lambda = bool(os.environ.get("AWS_LAMBDA_FUNCTION_NAME"))
    disabled = os.environ.get("POWERTOOLS_TRACE_DISABLED", "").lower() in {"1", "true"}
    return in_lambda and not disabled


def publishing_metrics(handler: HandlerT) -> HandlerT:
    """Powertools' `log_metrics`, plus a fix: with POWERTOOLS_METRICS_DISABLED=true, Powertools 3
    skips the flush without clearing the buffer, so a warm process accumulates every value and
    dumps them every 100. We clear it after each invocation whatever the setting."""
    flushing = metrics.log_metrics(handler)

    @wraps(handler)
    def invoke(*args: Any, **kwargs: Any) -> Any:
        try:
            return flushing(*args, **kwargs)
        finally:
            metrics.clear_metrics()

    return invoke  # type: ignore[return-value]
