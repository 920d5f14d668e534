"""SnapStart: a restored snapshot drops the connections its init pooled, and opens new ones that work."""

from __future__ import annotations

import sys
import types

import pytest

from persona_rails import snapstart
from persona_rails.db import get_database
from persona_rails.llm import structured


def test_after_restore_the_pool_and_the_llm_client_are_new_and_the_database_answers(database_url):
    # A fresh pool, as an init would have: earlier tests in this process may have pooled several.
    snapstart.recreate_network_clients()
    frozen = get_database()
    with frozen.as_owner() as tx:
        assert tx.one("SELECT 1 AS one") == {"one": 1}
    assert frozen._idle.qsize() == 1  # the pooled connection a snapshot would capture
    llm_client = structured._client("key", "http://127.0.0.1:9/v1", 1.0)

    snapstart.recreate_network_clients()

    assert frozen._idle.qsize() == 0
    restored = get_database()
    assert restored is not frozen
    with restored.as_owner() as tx:
        assert tx.one("SELECT 2 AS two") == {"two": 2}
    assert structured._client("key", "http://127.0.0.1:9/v1", 1.0) is not llm_client
    structured._client.cache_clear()


def test_the_hook_is_registered_only_for_a_snapstart_init(monkeypatch: pytest.MonkeyPatch):
    registered = []
    # The runtime's module (PyPI snapshot-restore-py); only its registration call matters here.
    runtime_module = types.ModuleType("snapshot_restore_py")
    runtime_module.register_after_restore = registered.append  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "snapshot_restore_py", runtime_module)

    monkeypatch.setenv("AWS_LAMBDA_INITIALIZATION_TYPE", "on-demand")
    assert snapstart.register() is False
    monkeypatch.setenv("AWS_LAMBDA_INITIALIZATION_TYPE", "snap-start")
    assert snapstart.register() is True
    assert registered == [snapstart.recreate_network_clients]
