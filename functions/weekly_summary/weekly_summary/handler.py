"""Lambda entry of WeeklySummaryFunction (template.yaml: weekly_summary.handler.lambda_handler).

A plain handler, no HTTP, invoked three ways:
- by EventBridge Scheduler every hour (the tick): every user whose week just ended, or, past
  what one invocation can do, the partitions sent to the partitions queue;
- by an operator with a backfill event (a week and/or a user);
- by the partitions queue (SQS, one message per invocation): one partition of a fanned-out week.
A failed tick or backfill raises, so the scheduler's and Lambda's retries re-run it (safely:
finished users are committed) and the dead-letter queue then keeps the event. A failed partition
is reported as a batch item failure, so SQS redelivers it and then moves it to its dead-letter queue.
"""

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from persona_rails.coldstart import end_of_init
from persona_rails.db import get_database
from persona_rails.observability import logger, metrics, publishing_metrics
from persona_rails.secrets import require_secrets
from persona_rails.settings import cached_settings
from weekly_summary.fanout import sqs_sender
from weekly_summary.personas import insight_persona_config
from weekly_summary.schemas import PartitionRequest, RunRequest, sqs_records
from weekly_summary.service import RunReport, run_partition, run_weekly
from weekly_summary.settings import WeeklySettings

# Validated at init so a broken personas file or secret parameter fails the deploy's first cold start.
insight_persona_config()
require_secrets()


def _remaining(context: Any) -> Callable[[], float] | None:
    clock = getattr(context, "get_remaining_time_in_millis", None)
    return (lambda: clock() / 1000) if callable(clock) else None


def _invalid(problem: str) -> None:
    # Named fields only: the event is an operator's or the scheduler's, but stay terse anyway.
    metrics.add_metric(name="InvalidEvent", unit="Count", value=1)
    logger.error("invalid weekly-summary event", extra={"problem": problem.splitlines()[0]})


def _count(report: RunReport) -> None:
    metrics.add_metric(name="SummariesWritten", unit="Count", value=report.processed)
    metrics.add_metric(name="UsersSkipped", unit="Count", value=report.skipped)
    metrics.add_metric(name="InsightFallbacks", unit="Count", value=report.tally.insight_fallbacks)


def _run_partitions(records: list[dict[str, Any]], context: Any) -> dict[str, Any]:
    failures = []
    for record in records:
        message_id = record.get("messageId")
        try:
            partition = PartitionRequest.model_validate_json(record.get("body") or "")
        except ValidationError as exc:
            _invalid(str(exc))
            failures.append({"itemIdentifier": message_id})
            continue
        try:
            report = run_partition(
                get_database(),
                cached_settings(WeeklySettings),
                partition,
                personas=insight_persona_config().value,
                remaining=_remaining(context),
            )
        except Exception:  # noqa: BLE001 - one partition's failure is that message's, not the batch's
            # Logged with the run's report by the service; SQS redelivers the message.
            failures.append({"itemIdentifier": message_id})
            continue
        _count(report)
    return {"batchItemFailures": failures}


@logger.inject_lambda_context(log_event=False)
@publishing_metrics
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        records = sqs_records(event)
        if records is not None:
            return _run_partitions(records, context)
        request = RunRequest.from_event(event)
    except ValueError as exc:
        _invalid(str(exc))
        raise
    settings = cached_settings(WeeklySettings)
    report = run_weekly(
        get_database(),
        settings,
        request,
        datetime.now(UTC),
        personas=insight_persona_config().value,
        remaining=_remaining(context),
        send=sqs_sender(settings.partition_queue_url) if settings.partition_queue_url else None,
    )
    _count(report)
    metrics.add_metric(name="PartitionsSent", unit="Count", value=report.partitions_sent)
    return report.as_dict()


# The init is over: the collector back on, what it built frozen (persona_rails.coldstart).
end_of_init()
