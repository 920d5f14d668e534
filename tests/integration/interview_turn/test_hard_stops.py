"""Hard stops over HTTP (spec: Failure Handling): a stop request, acute distress and self-harm
intent each end the interview with the configured safe line, hold depth, close the session with
its reason, and self-harm adds the crisis guidance of the narrator's locale."""

from __future__ import annotations

import pytest

from tests.integration.interview_turn.helpers import (
    CONCRETE,
    DISTRESS,
    SELF_HARM,
    SELF_HARM_ZH,
    SESSIONS,
    STOP,
    assert_contract,
    assert_turn_response,
    config,
    contract_of,
    post_turn,
    start,
    stored_session,
    take,
)

HARD_STOPS = [
    (STOP, "stop_request", "close_gracefully"),
    (DISTRESS, "acute_distress", "pause_and_ground"),
    (SELF_HARM, "self_harm", "crisis_support"),
    ("Please stop the interview.", "stop_request", "close_gracefully"),
    ("我不想继续了，今天就到这里。", "stop_request", "close_gracefully"),
    ("我喘不过气，我快崩溃了。", "acute_distress", "pause_and_ground"),
]


@pytest.mark.parametrize(("answer", "reason", "tactic"), HARD_STOPS)
def test_a_hard_stop_closes_the_session_with_its_reason(api, users, db, answer, reason, tactic):
    narrator = users.create()
    language = "zh" if any("\u4e00" <= c <= "\u9fff" for c in answer) else "en"
    sid = start(api, narrator, language=language, locale=None)["session_id"]
    take(api, narrator, sid, "我们1985年搬到了北京。" if language == "zh" else CONCRETE, consent=True)
    body = take(api, narrator, sid, answer)

    assert body["winning_rule"] == "safety_override"
    assert (body["persona_used"], body["safety_action"], body["tactic_used"]) == (
        "SAFETY_FALLBACK",
        "stop",
        tactic,
    )
    assert body["conversation_phase"] == "close"
    assert body["depth_level_after"] == body["depth_level_before"]
    assert body["loop_state"] is None
    assert body["signals"]["hard_stop"] == reason
    assert body["signals"]["refusal_or_discomfort"] is True
    assert body["turn"]["session_status"] == "closed"
    assert body["response_text"].startswith(
        config("negative-constraints.json")["hard_stops"][reason][language][0]
    )

    session = stored_session(db, sid)
    assert (session["status"], session["closed_reason"]) == ("closed", reason)
    assert session["closed_at"] is not None
    history = api.get(f"{SESSIONS}/{sid}", narrator.token).body
    assert (history["status"], history["closed_reason"]) == ("closed", reason)
    assert history["closed_at"] is not None
    assert contract_of(history["turns"][-1]) == assert_contract(contract_of(body))

    after = post_turn(api, narrator.token, sid, "Actually, let me go on.")
    assert (after.status, after.error["code"], after.error["state"]) == (409, "session_closed", "closed")


@pytest.mark.parametrize(
    ("language", "locale", "answer", "must_mention"),
    [
        ("en", "en-US", SELF_HARM, ["988"]),
        ("en", "en-GB", SELF_HARM, ["116 123"]),
        ("en", None, SELF_HARM, ["findahelpline.com"]),
        ("zh", "zh-CN", SELF_HARM_ZH, ["400-161-9995"]),
        ("zh", None, SELF_HARM_ZH, ["findahelpline.com"]),
    ],
    ids=["en-US", "en-GB", "en", "zh-CN", "zh"],
)
def test_self_harm_gets_the_crisis_guidance_of_the_sessions_locale(
    api, users, db, language, locale, answer, must_mention
):
    narrator = users.create()
    sid = start(api, narrator, language=language, locale=locale)["session_id"]
    body = take(api, narrator, sid, answer)
    guidance = config("negative-constraints.json")["crisis_guidance"]
    expected = guidance[locale] if locale else guidance[language]
    assert body["signals"]["hard_stop"] == "self_harm"
    assert expected in body["response_text"]
    for needle in must_mention:
        assert needle in body["response_text"]
    assert (body["persona_used"], body["safety_action"]) == ("SAFETY_FALLBACK", "stop")
    assert stored_session(db, sid)["closed_reason"] == "self_harm"
    other_guidance = [text for key, text in guidance.items() if key not in {locale, language}]
    assert not any(text in body["response_text"] for text in other_guidance)


def test_the_generic_line_is_not_used_where_a_local_hotline_is_configured(api, users):
    narrator = users.create()
    sid = start(api, narrator, locale="en-US")["session_id"]
    body = take(api, narrator, sid, SELF_HARM)
    assert "findahelpline.com" not in body["response_text"]


def test_self_harm_outranks_a_stop_request_in_the_same_message(api, users):
    narrator = users.create()
    sid = start(api, narrator, locale="en-US")["session_id"]
    body = take(api, narrator, sid, "I want to stop the interview. Some days I want to kill myself.")
    assert body["signals"]["hard_stop"] == "self_harm"
    assert "988" in body["response_text"]


def test_a_retried_stop_is_replayed_not_refused_as_closed(api, users, db):
    narrator = users.create()
    sid = start(api, narrator)["session_id"]
    first = post_turn(api, narrator.token, sid, STOP)
    again = post_turn(api, narrator.token, sid, STOP)
    keyed = post_turn(api, narrator.token, sid, "Please stop the interview.", key="k1")
    assert (first.status, again.status) == (200, 200)
    assert_turn_response(first.body)
    assert again.body == first.body
    assert (keyed.status, keyed.error["code"]) == (409, "session_closed")
    assert stored_session(db, sid)["turn_count"] == 1
