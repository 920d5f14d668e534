"""The fan-out, exercised locally: the tick sends partitions to an SQS queue (moto), and each
message, fed back as the SQS event Lambda would deliver, runs through the real handler.

moto stands in for SQS only; the database is the embedded Postgres.
"""

import json
from datetime import date

import moto
import pytest

from persona_rails.settings import cached_settings
from persona_rails_dev.lambda_runtime import LambdaContext, load_handler
from persona_rails_dev.template import functions
from tests.support.history import add_session, at

WEEK_START = date(2023, 1, 30)  # 2023-W05, a week of its own
TICK = "2023-02-06T12:00:00Z"  # Monday 20:00 in UTC+8: everyone's week is due


@pytest.fixture
def partitions_queue(monkeypatch):
    """An SQS queue in moto, named by the function's settings; every cached client forgotten."""
    from weekly_summary import fanout

    for name, value in {
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    with moto.mock_aws():
        import boto3

        url = boto3.client("sqs").create_queue(QueueName="WeeklySummaryPartitions")["QueueUrl"]
        monkeypatch.setenv("PERSONA_RAILS_WEEKLY_PARTITION_QUEUE_URL", url)
        monkeypatch.setenv("PERSONA_RAILS_WEEKLY_PARTITION_USERS", "3")
        monkeypatch.setenv("PERSONA_RAILS_WEEKLY_BATCH_SIZE", "2")
        fanout.sqs_client.cache_clear()
        cached_settings.cache_clear()
        try:
            yield url
        finally:
            fanout.sqs_client.cache_clear()
            cached_settings.cache_clear()


def receive_all(url):
    import boto3

    client, messages = boto3.client("sqs"), []
    while True:
        batch = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
        if not batch:
            return messages
        messages.extend(batch)
        for message in batch:
            client.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])


def sqs_event(message):
    """What the SQS event source hands the function for one message (BatchSize: 1)."""
    return {
        "Records": [
            {
                "messageId": message["MessageId"],
                "receiptHandle": message["ReceiptHandle"],
                "body": message["Body"],
                "attributes": {"ApproximateReceiveCount": "1"},
                "messageAttributes": {},
                "md5OfBody": message["MD5OfBody"],
                "eventSource": "aws:sqs",
                "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:WeeklySummaryPartitions",
                "awsRegion": "us-east-1",
            }
        ]
    }


def summaries_of_the_week(db):
    with db.as_owner() as tx:
        return tx.rows(
            "SELECT user_id::text AS user_id, count(*) AS n FROM public.weekly_summaries"
            " WHERE week_start = CAST(:w AS date) GROUP BY user_id",
            w=WEEK_START.isoformat(),
        )


def test_a_large_week_fans_out_and_every_partition_runs_through_the_handler(db, users, partitions_queue):
    people = sorted(users.create().id for _ in range(8))
    for person in people:
        add_session(db, person, local_start=at(date(2023, 2, 1), 9))
    handler = load_handler(functions()["WeeklySummaryFunction"])
    context = LambdaContext("WeeklySummaryFunction", timeout_seconds=900)

    # The coordinator: 8 due users, 3 per invocation -> 3 partitions, and no summary written here.
    coordinator = handler({"scheduled_time": TICK}, context)
    assert (coordinator["partitions_sent"], coordinator["processed"]) == (3, 0)
    assert summaries_of_the_week(db) == []

    messages = receive_all(partitions_queue)
    bodies = sorted((json.loads(message["Body"]) for message in messages), key=lambda body: body["index"])
    assert [(body["index"], body["count"]) for body in bodies] == [(0, 3), (1, 3), (2, 3)]
    assert [body["until"] for body in bodies] == [people[2], people[5], None]
    for message in messages:
        assert handler(sqs_event(message), context) == {"batchItemFailures": []}
    assert sorted(summaries_of_the_week(db), key=lambda row: row["user_id"]) == [
        {"user_id": person, "n": 1} for person in people
    ]

    # SQS delivers at least once: a partition run twice still leaves one summary per user.
    assert handler(sqs_event(messages[0]), context) == {"batchItemFailures": []}
    assert len(summaries_of_the_week(db)) == 8
    assert all(row["n"] == 1 for row in summaries_of_the_week(db))
    # The next tick finds nobody left to do and sends nothing.
    again = handler({"scheduled_time": TICK}, context)
    assert (again["partitions_sent"], again["processed"]) == (0, 0)
    assert receive_all(partitions_queue) == []


def test_a_week_within_one_invocation_is_not_fanned_out(db, users, partitions_queue):
    people = [users.create().id for _ in range(2)]
    for person in people:
        add_session(db, person, local_start=at(date(2023, 3, 8), 9))  # 2023-W10
    handler = load_handler(functions()["WeeklySummaryFunction"])
    answer = handler({"week": "2023-W10"}, LambdaContext("WeeklySummaryFunction", timeout_seconds=900))
    assert (answer["partitions_sent"], answer["processed"]) == (0, 2)
    assert receive_all(partitions_queue) == []


def test_a_partition_message_that_is_not_one_is_reported_as_a_failed_item(partitions_queue):
    handler = load_handler(functions()["WeeklySummaryFunction"])
    message = {
        "MessageId": "m-1",
        "ReceiptHandle": "r-1",
        "Body": json.dumps({"kind": "weekly_partition", "week": "2023-W99"}),
        "MD5OfBody": "x",
    }
    answer = handler(sqs_event(message), LambdaContext("WeeklySummaryFunction"))
    assert answer == {"batchItemFailures": [{"itemIdentifier": "m-1"}]}
