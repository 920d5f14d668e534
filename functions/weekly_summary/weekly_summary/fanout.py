"""The fan-out: a week too large for one invocation becomes partitions, one SQS message each.

The coordinator (the scheduled tick, or a week's backfill) splits the week's due users into
contiguous user-id ranges of `users_per_invocation` users. Every message goes to the
`WeeklySummaryPartitions` queue, whose event source invokes this same function once per message
(template.yaml); each invocation runs the usual page loop over its range, so the per-page commits
stay idempotent: a partition retried by SQS skips (scheduled) or rewrites (backfill) what it had
already written. boto3 is part of the Lambda runtime and is imported on first use only.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date, datetime
from functools import cache
from typing import Any

from weekly_summary import repository
from weekly_summary.engine.weeks import iso_week
from weekly_summary.schemas import PartitionRequest

# SendMessageBatch takes at most ten entries.
_SQS_BATCH = 10

Send = Callable[[list[PartitionRequest]], None]


def partitions(
    week: date, due_at: datetime | None, bounds: list[str], *, first: str = repository.FIRST_USER
) -> list[PartitionRequest]:
    """Ranges (first, b1], (b1, b2], ..., (bn, end) from the inclusive upper bounds `bounds`."""
    uppers: list[str | None] = [*bounds, None]
    lowers = [first, *bounds]
    return [
        PartitionRequest.model_validate(
            {
                "week": iso_week(week),
                "due_at": due_at,
                "after": lower,
                "until": upper,
                "index": index,
                "count": len(uppers),
            }
        )
        for index, (lower, upper) in enumerate(zip(lowers, uppers, strict=True))
    ]


@cache
def sqs_client() -> Any:
    import boto3

    return boto3.client("sqs")


def sqs_sender(queue_url: str) -> Send:
    def send(requests: list[PartitionRequest]) -> None:
        client = sqs_client()
        for start in range(0, len(requests), _SQS_BATCH):
            chunk = requests[start : start + _SQS_BATCH]
            answer = client.send_message_batch(
                QueueUrl=queue_url,
                Entries=[
                    {"Id": str(request.index), "MessageBody": json.dumps(request.model_dump(mode="json"))}
                    for request in chunk
                ],
            )
            failed = answer.get("Failed") or []
            if failed:
                # The tick is retried whole; partitions already sent are idempotent to run twice.
                raise RuntimeError(f"SQS refused {len(failed)} partition message(s): {failed[0].get('Code')}")

    return send
