"""SnapStart: a restored snapshot drops the connections its init pooled, and opens new ones that work."""

from __future__ import annotations

import os
import shutil
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


_SNAPSHOT_PROBE = r"""
import importlib, json, sys
handler = importlib.import_module(sys.argv[1])
if sys.argv[1].startswith("intercept_session"):
    from intercept_session.urgency_config import urgency_rules
    compiled = urgency_rules.cache_info().currsize == 1
elif sys.argv[1].startswith("interview_turn"):
    compiled = {"compiled_lexicon", "compiled_constraints"} <= set(vars(handler.config))
else:
    from sps_encounter import artifacts
    cases = list(artifacts._CASES.values())
    compiled = bool(cases) and all("slot_match" in vars(case) and "_built" in vars(case.guardrails) for case in cases)
print(json.dumps({"compiled": compiled}))
"""


@pytest.mark.parametrize(
    "name", ["InterceptSessionFunction", "InterviewTurnFunction", "SpsEncounterFunction"]
)
@pytest.mark.parametrize("initialization", ["snap-start", "on-demand"])
def test_an_init_that_ends_in_a_snapshot_compiles_what_a_first_turn_would(name, initialization, tmp_path):
    """Under SnapStart init runs once per published version, so it compiles every pattern a restored
    copy's first turn would need; an on-demand init leaves them to first use (a start needs none)."""
    import json

    from persona_rails_dev.package import seal_config
    from persona_rails_dev.template import functions
    from tests.support.lambda_child import lambda_env, run_python

    # The runtime's module (PyPI snapshot-restore-py), which only Lambda's image provides.
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    (runtime / "snapshot_restore_py.py").write_text("def register_after_restore(hook):\n    pass\n")
    function = functions()[name]
    # The function's code as `make package` ships it: its config sealed, so an on-demand init
    # skips the full check (which, from a source checkout, builds every case).
    code = tmp_path / function.package
    shutil.copytree(function.code_uri, code, ignore=shutil.ignore_patterns("__pycache__"))
    sealed = seal_config(function.package, code)
    assert (sealed is None) == (name == "InterceptSessionFunction")  # its config has nothing to seal
    env = lambda_env(function, code_uri=code, AWS_LAMBDA_INITIALIZATION_TYPE=initialization)
    env["PYTHONPATH"] = os.pathsep.join([env["PYTHONPATH"], str(runtime)])
    result = run_python(_SNAPSHOT_PROBE, function.module, env=env)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"compiled": initialization == "snap-start"}
