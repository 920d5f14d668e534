"""Request helpers every function uses: idempotent retries by fingerprint, and bounded user text."""

from __future__ import annotations

import hashlib
import unicodedata
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

from persona_rails.errors import Conflict
from persona_rails.idempotency import fingerprint, replay_or_conflict, retried_turn
from persona_rails.text import PrintableText, user_text

# -- fingerprint ---------------------------------------------------------------------------------


def test_a_fingerprint_is_the_sha256_of_canonical_json():
    assert fingerprint({"b": 1, "a": "é"}) == hashlib.sha256('{"a":"é","b":1}'.encode()).hexdigest()


def test_key_order_and_spacing_never_change_it():
    first = {"user_decision": "comply", "accepted_delay": True, "nested": {"x": 1, "y": [1, 2]}}
    second = {"nested": {"y": [1, 2], "x": 1}, "accepted_delay": True, "user_decision": "comply"}
    assert fingerprint(first) == fingerprint(second)


@pytest.mark.parametrize(
    "other",
    [
        {"user_decision": "override", "accepted_delay": True},
        {"user_decision": "comply", "accepted_delay": False},
        {"user_decision": "comply", "accepted_delay": True, "emergency_reason": None},
        {"user_decision": "comply"},
    ],
)
def test_any_other_request_has_another_fingerprint(other: dict[str, Any]):
    assert fingerprint(other) != fingerprint({"user_decision": "comply", "accepted_delay": True})


def test_list_order_and_types_matter():
    assert fingerprint([1, 2]) != fingerprint([2, 1])
    assert fingerprint({"n": 1}) != fingerprint({"n": "1"})
    assert fingerprint("老板让我回消息") != fingerprint("老板让我回消息 ")


def test_values_json_cannot_hold_are_fingerprinted_by_their_text():
    session_id = uuid.UUID("3f2a9c1b-04de-4000-8000-000000000001")
    at = datetime(2026, 11, 22, 9, 30, tzinfo=UTC)
    assert fingerprint({"id": session_id, "at": at}) == fingerprint({"id": str(session_id), "at": str(at)})


# -- replay or conflict ----------------------------------------------------------------------------

CONFLICT = Conflict("session_id_conflict", "session_id is already used by a different session")


def test_the_same_request_again_replays_what_was_stored():
    stored = {"id": "s1", "start_fingerprint": fingerprint({"a": 1}), "state": "awaiting_reason"}

    replayed = replay_or_conflict(
        stored, fingerprint({"a": 1}), fingerprint_of=lambda row: row["start_fingerprint"], conflict=CONFLICT
    )

    assert replayed is stored


def test_another_request_for_the_same_slot_is_the_given_conflict():
    stored = {"id": "s1", "start_fingerprint": fingerprint({"a": 1})}

    with pytest.raises(Conflict) as caught:
        replay_or_conflict(
            stored,
            fingerprint({"a": 2}),
            fingerprint_of=lambda row: row["start_fingerprint"],
            conflict=CONFLICT,
        )

    assert caught.value is CONFLICT


@pytest.mark.parametrize(
    "stored",
    [None, {"id": "s1", "start_fingerprint": None}],
    ids=["nothing-stored", "stored-without-a-fingerprint"],
)
def test_nothing_to_compare_with_is_a_conflict_too(stored: dict[str, Any] | None):
    with pytest.raises(Conflict) as caught:
        replay_or_conflict(
            stored,
            fingerprint({"a": 1}),
            fingerprint_of=lambda row: row["start_fingerprint"],
            conflict=CONFLICT,
        )
    assert caught.value is CONFLICT


# -- a conversation's retried turn ------------------------------------------------------------------

NOW = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
TURN_PRINT = fingerprint({"text": "I grew up by the sea."})


def _turn(print_: str = TURN_PRINT, key: str | None = None, seconds_ago: float = 5) -> dict[str, Any]:
    return {
        "request_fingerprint": print_,
        "idempotency_key": key,
        "created_at": NOW - timedelta(seconds=seconds_ago),
    }


def test_a_keyed_retry_replays_the_turn_stored_under_its_key():
    keyed = _turn(key="k1")
    assert retried_turn(_turn(), keyed, "k1", TURN_PRINT, 60, now=NOW) is keyed
    assert retried_turn(_turn(), None, "k1", TURN_PRINT, 60, now=NOW) is None


def test_a_key_sent_again_with_another_turn_is_a_conflict_naming_the_header():
    with pytest.raises(Conflict) as caught:
        retried_turn(None, _turn(key="k1"), "k1", fingerprint({"text": "other"}), 60, now=NOW)
    assert (caught.value.code, caught.value.field) == ("idempotency_key_reused", "Idempotency-Key")


def test_without_a_key_only_the_same_request_within_the_window_is_a_retry():
    last = _turn(seconds_ago=59)
    assert retried_turn(last, None, None, TURN_PRINT, 60, now=NOW) is last
    assert retried_turn(_turn(seconds_ago=61), None, None, TURN_PRINT, 60, now=NOW) is None
    assert retried_turn(last, None, None, fingerprint({"text": "other"}), 60, now=NOW) is None
    # A turn taken with a key is replayed only by its key.
    assert retried_turn(_turn(key="k1"), None, None, TURN_PRINT, 60, now=NOW) is None
    assert retried_turn(None, None, None, TURN_PRINT, 60, now=NOW) is None


# -- bounded user text ------------------------------------------------------------------------------

Reason = TypeAdapter(user_text(10, 20))
Printable = TypeAdapter(PrintableText)
DECOMPOSED_E = "e\u0301"  # "é" typed as e + combining acute accent: two code points, one character


def test_text_is_nfc_normalized():
    text = "caf" + DECOMPOSED_E + " au lait"
    value = Reason.validate_python(text)
    assert value == unicodedata.normalize("NFC", text)
    assert "\u0301" not in value
    assert value == "café au lait"


def test_length_counts_characters_after_nfc():
    # 9 + 2 code points, 10 characters once composed: exactly the minimum.
    assert Reason.validate_python("a" * 9 + DECOMPOSED_E) == "a" * 9 + "é"
    # 19 + 2 code points, 20 characters: exactly the maximum.
    assert Reason.validate_python("a" * 19 + DECOMPOSED_E) == "a" * 19 + "é"
    with pytest.raises(ValidationError, match="10 to 20 characters"):
        Reason.validate_python("a" * 20 + DECOMPOSED_E)


def test_length_counts_after_stripping():
    # Padding does not make a short text long enough, nor a long one too long.
    with pytest.raises(ValidationError, match=r"got 9"):
        Reason.validate_python("   " + "a" * 9 + "\n\t  ")
    assert Reason.validate_python("\u3000 " + "b" * 20 + " \n") == "b" * 20
    with pytest.raises(ValidationError, match=r"got 0"):
        Reason.validate_python(" " * 30)


def test_newlines_and_tabs_inside_are_kept():
    assert Reason.validate_python("第一行\n第二行\t第三行") == "第一行\n第二行\t第三行"


@pytest.mark.parametrize(
    "control",
    ["\x00", "\x07", "\x1b", "\r", "\x7f", "\x85", chr(0xD800), chr(0xDFFF)],
    ids=[
        "nul",
        "bell",
        "escape",
        "carriage-return",
        "delete",
        "c1-next-line",
        "high-surrogate",
        "low-surrogate",
    ],
)
def test_control_characters_and_lone_surrogates_are_rejected(control: str):
    text = "老板让我回消息" + control + "很急的事"
    for adapter in (Reason, Printable):
        with pytest.raises(ValidationError) as caught:
            adapter.validate_python(text)
        assert "control characters" in str(caught.value)


@pytest.mark.parametrize(
    "invisible",
    ["\u200b", "\ufeff", "\u2060", "\u202e", "\u2066", "\U000e0041"],
    ids=["zero-width-space", "byte-order-mark", "word-joiner", "right-to-left-override", "isolate", "tag"],
)
def test_invisible_formatting_is_dropped_and_never_counts(invisible: str):
    # Fifty invisible characters are not a ten-character reason.
    with pytest.raises(ValidationError, match="got 0"):
        Reason.validate_python(invisible * 50)
    # Inside real text they are removed, so what is stored displays as what is judged.
    assert Reason.validate_python("老板让我" + invisible * 3 + "回消息很急的事") == "老板让我回消息很急的事"
    assert Printable.validate_python("抖" + invisible + "音") == "抖音"


def test_joiners_and_direction_marks_that_scripts_need_are_kept():
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # one emoji, joined by ZWJ
    persian = "می\u200cخواهم"  # ZWNJ inside a Persian word
    assert family in Reason.validate_python("我想看 " + family + " 的视频啦")
    assert Reason.validate_python(persian + " بروم") == persian + " بروم"
    assert Reason.validate_python("abc \u200fעברית\u200e def") == "abc \u200fעברית\u200e def"


def test_text_of_joiners_alone_has_nothing_visible():
    with pytest.raises(ValidationError, match="visible characters"):
        Reason.validate_python("\u200d" * 12)


def test_a_rejected_text_is_never_echoed_in_the_error():
    secret = "my-password-is-hunter2\x00"
    for adapter in (Reason, Printable):
        with pytest.raises(ValidationError) as caught:
            adapter.validate_python(secret)
        messages = [error["msg"] for error in caught.value.errors()]
        assert messages
        assert all("hunter2" not in message for message in messages)


def test_printable_text_is_normalized_and_stripped_without_a_length_rule():
    assert Printable.validate_python("  Caf" + DECOMPOSED_E + " \n") == "Café"
    assert Printable.validate_python("") == ""
    assert Printable.validate_python("x" * 5000) == "x" * 5000


def test_the_types_work_as_model_fields():
    class Body(BaseModel):
        reason_text: user_text(10, 20)  # type: ignore[valid-type]
        app_display_name: PrintableText

    body = Body.model_validate({"reason_text": " 就是有点无聊，想放松一下 ", "app_display_name": " 抖音 "})
    assert (body.reason_text, body.app_display_name) == ("就是有点无聊，想放松一下", "抖音")
    with pytest.raises(ValidationError) as caught:
        Body.model_validate({"reason_text": "短", "app_display_name": "抖音"})
    assert [error["loc"] for error in caught.value.errors()] == [("reason_text",)]
