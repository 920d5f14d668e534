"""Lambda entry of WeeklySummaryFunction (template.yaml: weekly_summary.handler.lambda_handler).

A plain handler for EventBridge Scheduler: no HTTP. A failed run raises, so the schedule's
retry policy re-runs it (safely: finished users are committed) and then the dead-letter queue
keeps the event.
"""

from datetime import UTC, datetime
from typing import Any

from persona_rails.db import get_database
from persona_rails.observability import logger, metrics, publishing_metrics
from persona_rails.settings import cached_settings
from weekly_summary.personas import insight_persona_config
from weekly_summary.schemas import RunRequest
from weekly_summary.service import run_weekly
from weekly_summary.settings import WeeklySettings

# Validated at init so a broken personas file fails the deploy's first cold start.
insight_persona_config()


@logger.inject_lambda_context(log_event=False)
@publishing_metrics
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        request = RunRequest.from_event(event)
    except ValueError as exc:
        # Named fields only: the event is an operator's or the scheduler's, but stay terse anyway.
        metrics.add_metric(name="InvalidEvent", unit="Count", value=1)
        logger.error("invalid weekly-summary event", extra={"problem": str(exc).splitlines()[0]})
        raise
    report = run_weekly(
        get_database(),
        cached_settings(WeeklySettings),
        request,
        datetime.now(UTC),
        personas=insight_persona_config().value,
    )
    metrics.add_metric(name="SummariesWritten", unit="Count", value=report.processed)
    metrics.add_metric(name="UsersSkipped", unit="Count", value=report.skipped)
    return report.as_dict()
