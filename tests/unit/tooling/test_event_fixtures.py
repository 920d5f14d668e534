"""The events/ fixtures as the tooling sends them: a start's `timestamp` on the day nearest now, at
the fixture's own time and offset, so a stored fixture never goes stale (a start more than 24
hours from the server clock is refused) and sending it twice sends the same body."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest

from persona_rails_dev.cli import main as rails
from persona_rails_dev.event_fixtures import EVENTS_DIR, current, load_event, refreshed

STORED = datetime.fromisoformat("2026-11-22T09:30:00+08:00")


@pytest.mark.parametrize(
    ("now", "expected"),
    [
        ("2027-03-01T09:30:00+08:00", "2027-03-01T09:30:00+08:00"),
        # 20:00 in Beijing: this morning's 09:30 is 10.5 hours back, tomorrow's 13.5 ahead.
        ("2027-03-01T12:00:00+00:00", "2027-03-01T09:30:00+08:00"),
        # 22:00 in Beijing: tomorrow's 09:30 is nearer.
        ("2027-03-01T14:00:00+00:00", "2027-03-02T09:30:00+08:00"),
        # Just after midnight in Beijing.
        ("2027-02-28T16:05:00+00:00", "2027-03-01T09:30:00+08:00"),
    ],
)
def test_the_timestamp_keeps_its_time_and_offset_on_the_nearest_day(now, expected):
    moved = current(STORED, datetime.fromisoformat(now))
    assert moved.isoformat() == expected
    assert abs(moved - datetime.fromisoformat(now)) <= timedelta(hours=12)


def test_the_stored_start_is_sent_for_now_and_the_same_twice():
    stored = json.loads((EVENTS_DIR / "intercept-session/start.json").read_text(encoding="utf-8"))
    sent = load_event("intercept-session/start.json")
    body, stored_body = json.loads(sent["body"]), json.loads(stored["body"])
    stamped = datetime.fromisoformat(body["timestamp"])
    assert stamped.utcoffset() == timedelta(hours=8)
    assert stamped.timetz().replace(tzinfo=None) == STORED.time()
    assert abs(stamped - datetime.now(stamped.tzinfo)) <= timedelta(hours=12)
    # Everything else is the fixture's, and the file itself is untouched.
    assert {**body, "timestamp": stored_body["timestamp"]} == stored_body
    assert {k: v for k, v in sent.items() if k != "body"} == {k: v for k, v in stored.items() if k != "body"}
    assert load_event("intercept-session/start.json") == sent
    assert load_event("intercept-session/start.json", refresh=False) == stored


@pytest.mark.parametrize(
    "body",
    [
        None,
        "not json",
        "[1, 2]",
        '{"reason_text": "no timestamp here"}',
        '{"timestamp": 1795311000}',
        '{"timestamp": "2026-11-22T09:30:00"}',  # no offset: sent as it is, and refused as it is
    ],
)
def test_other_bodies_are_sent_as_stored(body):
    event = {"version": "2.0", "body": body}
    assert refreshed(event) is event


def test_rails_event_prints_the_fixture_as_it_is_sent(capsys):
    assert rails(["event", "intercept-session/start.json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == load_event("intercept-session/start.json")
    assert rails(["event", "intercept-session/no-such.json"]) == 2
    assert "no event file" in capsys.readouterr().err
