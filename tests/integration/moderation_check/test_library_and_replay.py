"""Library mode and HTTP mode give the same decisions on one corpus; every stored check replays
with no network, including LLM-scored ones, and a check whose text was not kept says so."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

import pytest

from persona_rails.db import Database
from persona_rails.identity import Caller, CallerKind
from persona_rails.moderation.checker import IntimacyChecker, Mode, ModerationClientSettings
from persona_rails.moderation.service import moderation_service
from persona_rails.settings import cached_settings
from persona_rails_dev.replay import replay
from persona_rails_dev.server import LocalApi, in_process, make_server, serve_in_background
from persona_rails_dev.template import functions
from tests.support.fake_openai import json_content

FUNCTION = "ModerationCheckFunction"
CORPUS = [
    ("你好，今天过得怎么样？", 10),
    ("谢谢你的帮助", 30),
    ("我很关心你，希望你一切都好", 50),
    ("我关心你，会一直陪伴你，珍惜我们的时光", 70),
    ("亲爱的，我好想你", 90),
    ("老婆，我爱你，想和你一起睡", 100),
    ("晚安，亲亲", 0),
]


def client(**variables: str) -> ModerationClientSettings:
    """The checker's settings as its MODERATION_* variables would give them."""
    return ModerationClientSettings.model_validate(variables)


@pytest.fixture(autouse=True)
def fresh_settings() -> Iterator[None]:
    cached_settings.cache_clear()
    yield
    cached_settings.cache_clear()


@pytest.fixture
def http_base_url(database_url: str) -> Iterator[str]:
    server = make_server(LocalApi(in_process(functions().values())), port=0)
    serve_in_background(server)
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


@pytest.mark.parametrize("policy", ["default", "stage_aware"])
def test_library_mode_and_http_mode_decide_alike(users, db, http_base_url, policy, monkeypatch):
    # Two users, so that neither mode reuses the other's earlier checks.
    in_process_user, http_user = users.create(), users.create()
    service = moderation_service(db)
    caller = Caller(in_process_user.id, CallerKind.USER)
    library = IntimacyChecker(
        client(MODERATION_POLICY=policy), library=partial(service.check_payload, caller)
    )
    over_http = IntimacyChecker(
        client(MODERATION_POLICY=policy, MODERATION_BASE_URL=http_base_url, MODERATION_USE_LIBRARY="false"),
        token=lambda: http_user.token,
    )
    for text, level in CORPUS:
        by_library = library.check(text, level, "温柔体贴的陪伴型角色")
        assert library.last_mode is Mode.LIBRARY
        by_http = over_http.check(text, level, "温柔体贴的陪伴型角色")
        assert over_http.last_mode is Mode.HTTP
        assert by_library == by_http, text
        assert by_library.reason is None or not by_library.reason.startswith("moderation_service")


def test_a_broken_service_fails_open_or_closed_as_configured(users, db: Database):
    user = users.create()
    caller = Caller(user.id, CallerKind.USER)

    def unreachable(payload: dict) -> dict:
        raise ConnectionError("database down")

    opened = IntimacyChecker(client(MODERATION_FAIL_OPEN="true"), library=unreachable)
    closed = IntimacyChecker(client(MODERATION_FAIL_OPEN="false"), library=unreachable)
    assert opened.check("亲爱的", 50, "").reason == "moderation_service_unavailable: ConnectionError"
    assert opened.check("亲爱的", 50, "").passed is True
    assert closed.check("亲爱的", 50, "").reason == "moderation_service_error: ConnectionError"
    assert closed.check("亲爱的", 50, "").passed is False
    assert caller.user_id == user.id


def _record_ids(db, user_id: str) -> list[str]:
    with db.as_owner() as tx:
        return [
            str(row["id"])
            for row in tx.rows(
                "SELECT id FROM public.decision_records WHERE user_id = CAST(:u AS uuid) ORDER BY created_at",
                u=user_id,
            )
        ]


def test_every_check_replays_identically_including_llm_scores_and_reuse(
    api, users, db, database_url, fake_openai, capfd
):
    from tests.integration.moderation_check.test_check import PATH, payload

    user = users.create()
    fake_openai.script(json_content({"score": 0.9}))
    assert (
        api.post(PATH, user.token, payload("我很关心你，希望你一切都好")).body["results"]["intimacy"][
            "sources"
        ]["third_party"]
        == 0.9
    )
    fake_openai.script(json_content({"score": 0.1}))
    api.post(PATH, user.token, payload("谢谢你的帮助", policy="stage_aware"))
    assert api.post(PATH, user.token, payload("谢谢你的帮助", policy="stage_aware")).body["results"][
        "intimacy"
    ]["reused"]
    ids = _record_ids(db, user.id)
    assert len(ids) == 3
    capfd.readouterr()
    assert replay(functions()[FUNCTION], database_url, ids) == 0
    out = capfd.readouterr().out
    assert out.count(": identical") == 3


def test_a_check_whose_text_was_not_kept_says_it_cannot_be_replayed(
    api, users, db, database_url, monkeypatch, capfd
):
    from tests.integration.moderation_check.test_check import PATH, payload

    monkeypatch.setenv("PERSONA_RAILS_MODERATION_STORE_TEXT", "false")
    cached_settings.cache_clear()
    user = users.create()
    assert api.post(PATH, user.token, payload("谢谢你的帮助")).status == 200
    (record_id,) = _record_ids(db, user.id)
    with db.as_owner() as tx:
        inputs = tx.one("SELECT inputs FROM public.decision_records WHERE id = CAST(:i AS uuid)", i=record_id)
    assert inputs["inputs"]["text"] is None
    capfd.readouterr()
    assert replay(functions()[FUNCTION], database_url, [record_id]) == 2
    assert "not replayable: the inputs were not kept" in capfd.readouterr().out


def test_a_reply_the_service_refuses_as_input_raises_instead_of_failing_open(users, db, http_base_url):
    from persona_rails.errors import Invalid

    user = users.create()
    service = moderation_service(db)
    caller = Caller(user.id, CallerKind.USER)
    library = IntimacyChecker(
        client(MODERATION_FAIL_OPEN="true"), library=partial(service.check_payload, caller)
    )
    over_http = IntimacyChecker(
        client(
            MODERATION_FAIL_OPEN="true", MODERATION_BASE_URL=http_base_url, MODERATION_USE_LIBRARY="false"
        ),
        token=lambda: user.token,
    )
    for checker in (library, over_http):
        for reply in ("亲爱的\x07，我好想你", "亲爱的" + "。" * 4001, ""):
            with pytest.raises(Invalid) as refused:
                checker.check(reply, 50, "温柔体贴的陪伴型角色")
            assert refused.value.field == "text"


def test_an_unknown_policy_setting_fails_at_start_not_open_at_every_check():
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="MODERATION_POLICY"):
        client(MODERATION_POLICY="Stage_Aware")


def test_a_caller_given_a_uuid_works_as_its_text(users, db):
    import uuid

    user = users.create()
    caller = Caller(uuid.UUID(user.id), CallerKind.USER)  # type: ignore[arg-type]
    checker = IntimacyChecker(client(), library=partial(moderation_service(db).check_payload, caller))
    assert checker.check("谢谢你的帮助", 10, "").passed is True
    assert checker.last_mode is Mode.LIBRARY
