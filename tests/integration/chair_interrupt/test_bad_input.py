"""Bad input: a 4xx JSON error naming the field, never a 500, and nothing written. Each owner
starts with a debate holding one interrupt (a cooldown, a log row, a record); after every refusal
the owner's rows are counted again and must not have changed."""

from __future__ import annotations

import pytest

from tests.integration.chair_interrupt.helpers import (
    CHALLENGE,
    DEONTOLOGIST,
    SPEAKER,
    STRAW_MAN,
    VIRTUE,
    chair,
    evaluate,
    evaluate_body,
    new_debate,
    path,
    post_evaluate,
    row_counts,
)

# Routes that write nothing may publish no metric at all.
pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")


@pytest.fixture
def started(api, users, db):
    """An owner, their debate after one interrupt (chair_2 on cooldown), and its stored counts."""
    owner = users.create()
    debate = new_debate()
    assert evaluate(api, owner, debate, STRAW_MAN).body is not None
    counts = row_counts(db, owner.id)
    assert counts == {"cooldowns": 1, "interruptions": 1, "records": 1}
    return owner, debate, counts


def _assert_validation_error(reply, field: str) -> None:
    assert reply.status == 422, reply.body
    error = reply.error
    assert error["code"] == "validation_error"
    assert error["field"] == field, error
    assert isinstance(error["message"], str)
    assert field in error["message"]
    assert "x-evaluation-id" not in reply.headers


def _with(change) -> dict:
    body = evaluate_body(CHALLENGE)
    change(body)
    return body


def _set(*keys_and_value):
    *keys, last, value = keys_and_value

    def change(body):
        target = body
        for key in keys:
            target = target[key]
        target[last] = value

    return change


def _drop(*keys):
    *parents, last = keys

    def change(body):
        target = body
        for key in parents:
            target = target[key]
        del target[last]

    return change


BAD_EVALUATIONS = [
    # (id, change, field)
    ("aggressiveness-0", _set("interruptions", "aggressiveness", 0), "interruptions.aggressiveness"),
    ("aggressiveness-6", _set("interruptions", "aggressiveness", 6), "interruptions.aggressiveness"),
    ("aggressiveness-string", _set("interruptions", "aggressiveness", "3"), "interruptions.aggressiveness"),
    ("aggressiveness-float", _set("interruptions", "aggressiveness", 3.5), "interruptions.aggressiveness"),
    ("aggressiveness-bool", _set("interruptions", "aggressiveness", True), "interruptions.aggressiveness"),
    ("aggressiveness-null", _set("interruptions", "aggressiveness", None), "interruptions.aggressiveness"),
    ("cooldown-negative", _set("interruptions", "cooldown_seconds", -1), "interruptions.cooldown_seconds"),
    ("cooldown-string", _set("interruptions", "cooldown_seconds", "60"), "interruptions.cooldown_seconds"),
    ("cooldown-float", _set("interruptions", "cooldown_seconds", 1.5), "interruptions.cooldown_seconds"),
    ("enabled-string", _set("interruptions", "enabled", "true"), "interruptions.enabled"),
    ("enabled-int", _set("interruptions", "enabled", 1), "interruptions.enabled"),
    ("interruptions-missing", _drop("interruptions"), "interruptions"),
    ("interruptions-extra", _set("interruptions", "max_per_round", 3), "interruptions.max_per_round"),
    ("speaker-among-others", _set("other_chairs", [VIRTUE, SPEAKER]), "other_chairs"),
    (
        "speaker-position-among-others",
        _set("other_chairs", [VIRTUE, chair("chair_1", "deontology", "Gemini")]),
        "other_chairs",
    ),
    (
        "duplicate-positions",
        _set("other_chairs", [VIRTUE, dict(DEONTOLOGIST, position="chair_2")]),
        "other_chairs",
    ),
    ("no-other-chairs", _set("other_chairs", []), "other_chairs"),
    (
        "too-many-chairs",
        _set("other_chairs", [chair(f"chair_{n}", "deontology", "M") for n in range(2, 10)]),
        "other_chairs",
    ),
    (
        "unknown-framework-speaker",
        _set("current_speaker", "framework", "stoicism"),
        "current_speaker.framework",
    ),
    (
        "unknown-framework-other",
        _set("other_chairs", [dict(VIRTUE, framework="Virtue Ethics")]),
        "other_chairs[0].framework",
    ),
    (
        "bad-position",
        _set("other_chairs", [dict(VIRTUE, position="chair 2; DROP")]),
        "other_chairs[0].position",
    ),
    ("empty-model-id", _set("current_speaker", "model_id", ""), "current_speaker.model_id"),
    ("chair-extra-field", _set("current_speaker", "persona", "calm"), "current_speaker.persona"),
    ("recent-content-4001", _set("recent_content", "a" * 4001), "recent_content"),
    ("recent-content-4001-cjk", _set("recent_content", "长" * 4001), "recent_content"),
    ("recent-content-empty", _set("recent_content", ""), "recent_content"),
    ("recent-content-whitespace", _set("recent_content", "  \n\t "), "recent_content"),
    ("recent-content-nul", _set("recent_content", "They just\x00 want power"), "recent_content"),
    ("recent-content-escape", _set("recent_content", "They just want\x1b[31m power"), "recent_content"),
    ("recent-content-number", _set("recent_content", 42), "recent_content"),
    ("recent-content-missing", _drop("recent_content"), "recent_content"),
    ("topic-301", _set("topic", "t" * 301), "topic"),
    ("topic-empty", _set("topic", ""), "topic"),
    ("debate-so-far-nul", _set("debate_so_far", "earlier\x00"), "debate_so_far"),
    ("debate-so-far-50001", _set("debate_so_far", "d" * 50_001), "debate_so_far"),
    ("extra-field", _set("mood", "heated"), "mood"),
    ("user-id-not-uuid", _set("user_id", "not-a-uuid"), "user_id"),
]


@pytest.mark.parametrize(
    ("change", "field"), [case[1:] for case in BAD_EVALUATIONS], ids=[case[0] for case in BAD_EVALUATIONS]
)
def test_a_bad_evaluation_is_a_422_naming_the_field_and_writes_nothing(api, db, started, change, field):
    owner, debate, before = started
    reply = post_evaluate(api, owner.token, debate, _with(change))
    _assert_validation_error(reply, field)
    assert row_counts(db, owner.id) == before


@pytest.mark.parametrize(
    ("raw", "status", "code"),
    [
        ("{not json", 400, "invalid_json"),
        ('{"recent_content": "They just want power"', 400, "invalid_json"),
        (b'{"recent_content": "\xff\xfe"}', 400, "invalid_json"),
        ("", 400, "missing_body"),
        ("[1, 2]", 422, "validation_error"),
        ('"They just want power"', 422, "validation_error"),
        ("null", 422, "validation_error"),
    ],
    ids=["garbage", "truncated", "not-utf8", "empty", "array", "bare-string", "null"],
)
def test_an_evaluate_body_that_is_not_a_json_object_is_refused(api, db, started, raw, status, code):
    owner, debate, before = started
    reply = api.post(path(debate, "evaluate"), owner.token, raw_body=raw)
    assert reply.status == status, reply.body
    assert reply.error["code"] == code
    assert row_counts(db, owner.id) == before


@pytest.mark.parametrize("debate_id", ["not-a-uuid", "123", "de0a7e00-0000-4000-8000-00000000000g"])
def test_a_debate_id_that_is_not_a_uuid_is_a_422_on_every_route(api, db, started, debate_id):
    owner, _, before = started
    replies = {
        "evaluate": post_evaluate(api, owner.token, debate_id, evaluate_body()),
        "quick-check": api.post(path(debate_id, "quick-check"), owner.token, {"content": STRAW_MAN}),
        "stats": api.get(path(debate_id, "stats"), owner.token),
        "reset-cooldowns": api.post(path(debate_id, "reset-cooldowns"), owner.token),
    }
    for route, reply in replies.items():
        assert reply.status == 422, (route, reply.body)
        assert reply.error["field"] == "debate_id", (route, reply.error)
    assert row_counts(db, owner.id) == before


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"content": ""}, "content"),
        ({"content": "   "}, "content"),
        ({"content": "a" * 4001}, "content"),
        ({"content": "they just want\x00"}, "content"),
        ({"content": None}, "content"),
        ({}, "content"),
        ({"content": "They just want power", "language": "en"}, "language"),
    ],
    ids=["empty", "whitespace", "4001", "nul", "null", "missing", "extra-field"],
)
def test_a_bad_quick_check_is_a_422_naming_the_field(api, db, started, body, field):
    owner, debate, before = started
    reply = api.post(path(debate, "quick-check"), owner.token, body)
    _assert_validation_error(reply, field)
    assert row_counts(db, owner.id) == before


def test_content_of_exactly_4000_characters_is_accepted(api, users):
    owner = users.create()
    content = ("They just want to win. " * 200)[:4000]
    assert evaluate(api, owner, new_debate(), content).body is not None
    quick = api.post(path(new_debate(), "quick-check"), owner.token, {"content": content})
    assert quick.status == 200
    assert quick.body["potential_trigger"] is True


def test_without_a_token_every_route_is_401_and_writes_nothing(api, db, started):
    owner, debate, before = started
    for reply in (
        post_evaluate(api, None, debate, evaluate_body()),
        api.post(path(debate, "quick-check"), None, {"content": STRAW_MAN}),
        api.get(path(debate, "stats"), None),
        api.post(path(debate, "reset-cooldowns"), None),
        post_evaluate(api, "not-a-jwt", debate, evaluate_body()),
    ):
        assert reply.status == 401, reply.body
        assert reply.error["code"] == "unauthorized"
    assert row_counts(db, owner.id) == before
