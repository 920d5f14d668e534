"""`public.analytics_events`: an event is about a subject (type, id) of any function, with no
foreign key to any function's table, and is recorded at most once per (user, subject, name):
subject ids need only be unique per user (intercept session ids are the client's, per user)."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from intercept_session import repository
from persona_rails.db import DbError
from tests.support.dialog import BORED, decide, reason, start

DIALOG_COMPLETED = "interception.dialog_completed"
PLAIN_INSERT = """
INSERT INTO public.analytics_events (subject_type, subject_id, name, properties)
VALUES (:subject_type, CAST(:subject_id AS uuid), :name, CAST(:properties AS jsonb))
"""


def events(db: Any, **where: str) -> list[dict[str, Any]]:
    conditions = " AND ".join(
        f"{column} = CAST(:{column} AS uuid)" if column.endswith("_id") else f"{column} = :{column}"
        for column in where
    )
    with db.as_owner() as tx:
        return tx.rows(f"SELECT * FROM public.analytics_events WHERE {conditions} ORDER BY id", **where)


def insert(db: Any, claims: dict[str, Any], subject_type: str, subject_id: str, name: str, **properties: Any):
    with db.as_user(claims) as tx:
        tx.execute(
            PLAIN_INSERT,
            subject_type=subject_type,
            subject_id=subject_id,
            name=name,
            properties=json.dumps(properties),
        )


# -- the table's shape ------------------------------------------------------------------------------


def test_the_subject_columns_replace_the_session_column(db):
    with db.as_owner() as tx:
        columns = {
            row["column_name"]: row["is_nullable"]
            for row in tx.rows(
                "SELECT column_name, is_nullable FROM information_schema.columns"
                " WHERE table_schema = 'public' AND table_name = 'analytics_events'"
            )
        }
    assert columns["subject_type"] == "NO"
    assert columns["subject_id"] == "NO"
    assert "session_id" not in columns


def test_no_foreign_key_ties_events_to_a_functions_table(db):
    with db.as_owner() as tx:
        referenced = {
            row["target"]
            for row in tx.rows(
                "SELECT confrelid::regclass::text AS target FROM pg_constraint"
                " WHERE conrelid = 'public.analytics_events'::regclass AND contype = 'f'"
            )
        }
    # The owner, and nothing else: events outlive no function's rows and need none to exist.
    assert referenced == {"auth.users"}


def test_the_uniqueness_is_per_user_subject_and_name(db):
    with db.as_owner() as tx:
        (row,) = tx.rows(
            "SELECT array_agg(a.attname::text ORDER BY k.ordinality) AS columns"
            " FROM pg_constraint c"
            " CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY AS k(attnum, ordinality)"
            " JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum"
            " WHERE c.conrelid = 'public.analytics_events'::regclass AND c.contype = 'u'"
            " GROUP BY c.conname"
        )
    assert row["columns"] == ["user_id", "subject_type", "subject_id", "name"]


# -- behaviour ----------------------------------------------------------------------------------------


def test_an_event_about_any_subject_is_accepted_without_such_a_row(db, users):
    alice = users.create()
    subject = str(uuid.uuid4())  # no table holds this id

    insert(db, alice.claims, "weekly_summary", subject, "summary.delivered", week="2026-W47")

    (event,) = events(db, subject_id=subject)
    assert (event["subject_type"], event["name"], str(event["user_id"])) == (
        "weekly_summary",
        "summary.delivered",
        alice.id,
    )
    assert event["properties"] == {"week": "2026-W47"}


def test_the_same_event_twice_is_refused(db, users):
    alice = users.create()
    subject = str(uuid.uuid4())
    insert(db, alice.claims, "chat_message", subject, "moderation.flagged", n=1)

    with pytest.raises(DbError) as caught:
        insert(db, alice.claims, "chat_message", subject, "moderation.flagged", n=2)

    assert caught.value.unique_violation
    assert caught.value.constraint == "analytics_events_once_per_subject"
    assert [e["properties"] for e in events(db, subject_id=subject)] == [{"n": 1}]


def test_an_insert_naming_the_uniqueness_ignores_a_second_copy(db, users):
    alice = users.create()
    subject = str(uuid.uuid4())
    for attempt in (1, 2, 3):
        with db.as_user(alice.claims) as tx:
            tx.execute(
                PLAIN_INSERT + " ON CONFLICT (user_id, subject_type, subject_id, name) DO NOTHING",
                subject_type="chat_message",
                subject_id=subject,
                name="moderation.flagged",
                properties=json.dumps({"attempt": attempt}),
            )

    # The first one stays; later copies are dropped without an error.
    assert [e["properties"] for e in events(db, subject_id=subject)] == [{"attempt": 1}]


def test_other_names_types_and_ids_are_other_events(db, users):
    alice = users.create()
    subject = str(uuid.uuid4())
    insert(db, alice.claims, "chat_message", subject, "moderation.flagged")
    insert(db, alice.claims, "chat_message", subject, "moderation.cleared")
    insert(db, alice.claims, "chat_thread", subject, "moderation.flagged")
    insert(db, alice.claims, "chat_message", str(uuid.uuid4()), "moderation.flagged")

    assert len(events(db, user_id=alice.id)) == 4


def test_the_same_subject_of_another_user_is_another_event(db, users):
    alice, bob = users.create(), users.create()
    subject = str(uuid.uuid4())
    insert(db, alice.claims, "intercept_session", subject, DIALOG_COMPLETED, who="alice")
    insert(db, bob.claims, "intercept_session", subject, DIALOG_COMPLETED, who="bob")

    assert sorted(
        (str(e["user_id"]), e["properties"]["who"]) for e in events(db, subject_id=subject)
    ) == sorted([(alice.id, "alice"), (bob.id, "bob")])


@pytest.mark.parametrize("subject_type", ["Chat", "chat-message", "1chat", "", "x" * 64])
def test_a_subject_type_must_be_a_lowercase_name(db, users, subject_type):
    alice = users.create()
    with pytest.raises(DbError, match="analytics_events_subject_type_format"):
        insert(db, alice.claims, subject_type, str(uuid.uuid4()), "moderation.flagged")


def test_an_event_in_another_users_name_is_refused(db, users):
    alice, bob = users.create(), users.create()
    with pytest.raises(DbError, match="row-level security"), db.as_user(bob.claims) as tx:
        tx.execute(
            "INSERT INTO public.analytics_events (user_id, subject_type, subject_id, name)"
            " VALUES (CAST(:u AS uuid), 'chat_message', CAST(:s AS uuid), 'moderation.flagged')",
            u=alice.id,
            s=str(uuid.uuid4()),
        )


# -- the dialog still writes its event once per session -------------------------------------------------


def test_each_session_writes_dialog_completed_once(api, db, users):
    alice = users.create()
    rule = users.rule(alice)
    first, second = start(api, alice, rule), start(api, alice, rule)
    assert reason(api, alice, first, BORED).status == 200

    assert decide(api, alice, first, "comply").status == 200
    assert decide(api, alice, first, "comply").status == 200  # a retry: replayed, nothing written
    assert decide(api, alice, first, "override").status == 409
    assert decide(api, alice, second, "comply", auto_dismissed=True).status == 200

    mine = events(db, user_id=alice.id)
    assert sorted((e["subject_type"], str(e["subject_id"]), e["name"]) for e in mine) == sorted(
        [
            ("intercept_session", first, DIALOG_COMPLETED),
            ("intercept_session", second, DIALOG_COMPLETED),
        ]
    )
    by_session = {str(e["subject_id"]): e["properties"] for e in mine}
    assert by_session[first]["user_decision"] == "comply"
    assert by_session[first]["evaluation_turns"] == 1
    assert by_session[second]["auto_dismissed"] is True
    # Writing it again (a bug, a replay tool) leaves the first one in place.
    with db.as_user(alice.claims) as tx:
        tx.batch(repository.completed_event(first, DIALOG_COMPLETED))
    again = events(db, subject_type="intercept_session", subject_id=first)
    assert [(e["id"], e["properties"]) for e in again] == [
        (e["id"], e["properties"]) for e in mine if str(e["subject_id"]) == first
    ]
