"""`persona_rails.decisions.diff`: what `rails replay` prints when a recomputed decision differs."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from persona_rails.decisions import DecisionRecord, canonical, diff

STORED: dict[str, Any] = {
    "verdict": "delay",
    "confidence": 0.75,
    "category": "work",
    "persona_response": "给你10分钟缓冲，回来后我要看到执行结果。",
    "flags": {"emergency": False, "downgraded": None},
}


def test_identical_outputs_have_no_diff():
    assert diff(STORED, dict(STORED)) == []


def test_key_order_is_not_a_difference():
    reordered = dict(reversed(list(STORED.items())))
    reordered["flags"] = {"downgraded": None, "emergency": False}
    assert list(reordered) != list(STORED)
    assert diff(STORED, reordered) == []


def test_a_changed_value_shows_both_sides():
    lines = diff(STORED, {**STORED, "verdict": "deny"})

    assert lines[:2] == ["--- stored", "+++ replayed"]
    assert '-  "verdict": "delay"' in lines
    assert '+  "verdict": "deny"' in lines
    changed = [line for line in lines[2:] if line[:1] in "+-"]
    assert changed == ['-  "verdict": "delay"', '+  "verdict": "deny"']


def test_a_nested_change_a_missing_and_an_extra_key_all_show():
    replayed = {key: value for key, value in STORED.items() if key != "category"}
    replayed["flags"] = {"emergency": True, "downgraded": None}
    replayed["delay_minutes"] = 10

    changed = [line for line in diff(STORED, replayed)[2:] if line[:1] in "+-"]

    assert '-  "category": "work",' in changed
    assert '+  "delay_minutes": 10,' in changed
    assert '-    "emergency": false' in changed
    assert '+    "emergency": true' in changed


def test_a_number_that_changed_type_or_precision_is_a_difference():
    assert diff(STORED, {**STORED, "confidence": 0.750001}) != []
    assert diff({"n": 1}, {"n": "1"}) != []


def test_text_is_compared_as_written_not_escaped():
    lines = diff(STORED, {**STORED, "persona_response": "这个理由站不住脚。"})
    assert '+  "persona_response": "这个理由站不住脚。",' in lines


def test_values_json_cannot_hold_are_compared_by_their_text():
    at = datetime(2026, 11, 22, 1, 30, tzinfo=UTC)
    assert diff({"at": at}, {"at": str(at)}) == []
    assert canonical({"at": at}) == '{\n  "at": "2026-11-22 01:30:00+00:00"\n}'


def test_a_record_is_built_from_a_database_row():
    row = {
        "id": "0b0c2d6e-0000-4000-8000-000000000001",
        "user_id": "0b0c2d6e-0000-4000-8000-000000000002",
        "function_name": "ModerationFunction",
        "kind": "moderation.label",
        "subject_type": "message",
        "subject_id": "0b0c2d6e-0000-4000-8000-000000000003",
        "engine_version": "moderation/1",
        "config_version": "2026.11.1+3f2a9c1b04de",
        "inputs": {"text": "hi"},
        "output": {"label": "ham"},
        "source": "offline",
        "model": None,
        "raw_reply": None,
        "seed": 42,
        "created_at": datetime(2026, 11, 22, tzinfo=UTC),  # in the row, not in the record
    }

    record = DecisionRecord.from_row(row)

    assert record == DecisionRecord(**{key: value for key, value in row.items() if key != "created_at"})
