"""The deploy issue's "done when": a simulated Lambda serves every event fixture from the built artifact.

The artifact is the x86_64 twin of `make package` (persona_rails_dev.lambda_twin: the same lock,
CodeUris and 3.12 bytecode; arm64's native modules cannot load here). Each function runs in one
fresh `python3.12 -I -B` process, as one Lambda execution environment: its sys.path is the
function's folder, the layer's python/ and the runtime's packages, then the standard library,
nothing from the repository or the virtualenv. Its environment is the template's with each secret
named by a `*_PARAMETER` only; the values live in a moto SSM server that this test runs, reached
over HTTP as the real SSM would be. The database is the session's embedded Postgres.

Every fixture in events/ is served, in the order a user would send them, and must answer its
expected status; the function's secrets are read once, at init, in one GetParameters call.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from persona_rails_dev.event_fixtures import EVENTS_DIR, load_event
from persona_rails_dev.lambda_twin import CHILD_PRELUDE
from persona_rails_dev.template import REPO_ROOT, functions
from tests.support.moto_ssm import MotoSsm, moto_ssm_server

FIXTURE_JWT_SECRET = "super-secret-jwt-token-with-at-least-32-characters-long"
# Every fixture of every function, in the order a user sends them, with the status it must get.
# None: an event that is not an HTTP request (the weekly function answers with a report).
SCRIPT: dict[str, list[tuple[str, int | None]]] = {
    "InterceptSessionFunction": [
        ("start", 201),
        ("reason", 200),
        ("appeal", 200),
        ("decision", 200),
        ("get", 200),
        ("export-history", 200),
        ("delete-history", 200),
    ],
    "ModerationCheckFunction": [("check", 200), ("check-stage-aware", 200), ("check-as-backend", 200)],
    "InterviewTurnFunction": [
        ("start", 201),
        ("start-as-backend", 201),
        ("turn", 200),
        ("turn-vague", 200),
        ("turn-refusal", 200),
        ("get", 200),
        ("turn-stop", 200),
    ],
    "ChairInterruptFunction": [
        ("quick-check", 200),
        ("evaluate", 200),
        ("evaluate-on-cooldown", 200),
        ("evaluate-as-orchestrator", 200),
        ("stats", 200),
        ("reset-cooldowns", 200),
    ],
    "SpsEncounterFunction": [
        ("scenarios", 200),
        ("start", 201),
        ("start-as-platform", 201),
        ("turn", 200),
        ("turn-identity", 200),
        ("turn-guardrail", 200),
        ("get", 200),
        ("validate", 200),
    ],
    "WeeklySummaryFunction": [
        ("backfill-user", None),
        ("backfill-week", None),
        ("partition", None),
        ("scheduled", None),
    ],
}

CHILD = (
    r"""
import json, sys
spec = json.loads(sys.stdin.read())
"""
    + CHILD_PRELUDE
    + r"""
import importlib
from persona_rails import ssm
ssm_calls = []
_call_once = ssm._call_once
def counted(url, body, *args):
    ssm_calls.append(json.loads(body)["Names"])
    return _call_once(url, body, *args)
ssm._call_once = counted

module_name, _, attribute = spec["handler"].rpartition(".")
handler = getattr(importlib.import_module(module_name), attribute)  # the cold start
calls_at_init = list(ssm_calls)

answers = []
for name, event in spec["events"]:
    reply = handler(event, Context())
    http = isinstance(reply, dict) and "statusCode" in reply
    answers.append({
        "name": name,
        "status": reply["statusCode"] if http else None,
        "body": (reply.get("body") or "")[:400] if http else json.dumps(reply)[:400],
    })
sys.stdout.write("\n" + json.dumps({
    "answers": answers,
    "ssm_calls_at_init": calls_at_init,
    "ssm_calls": ssm_calls,
    "files": {name: getattr(sys.modules.get(name), "__file__", None) for name in spec["check_files"]},
    "loaded": sorted(name for name in ("openai", "supabase", "boto3", "botocore.session") if name in sys.modules),
}) + "\n")
"""
)


def _fixture_dir(logical_id: str) -> str:
    """InterceptSessionFunction -> intercept-session: the events/ folder of a function."""
    stem = logical_id.removesuffix("Function")
    return "".join(f"-{c.lower()}" if c.isupper() else c for c in stem).lstrip("-")


# Expected of a fixture of a function with no script: any 2xx.
SUCCESS = "2xx"


def steps_for(logical_id: str) -> list[tuple[str, int | str | None]]:
    """The function's script, or for one with none its fixtures in name order, each expected to
    succeed: any 2xx when it is an HTTP request, any answer (None) when it is not."""
    if logical_id in SCRIPT:
        return SCRIPT[logical_id]
    http = bool(functions()[logical_id].routes)
    return [
        (path.stem, SUCCESS if http else None)
        for path in sorted((EVENTS_DIR / _fixture_dir(logical_id)).glob("*.json"))
    ]


def test_the_script_covers_every_fixture_of_every_function():
    assert set(SCRIPT) <= set(functions())
    for logical_id in functions():
        steps = steps_for(logical_id)
        on_disk = {path.stem for path in (EVENTS_DIR / _fixture_dir(logical_id)).glob("*.json")}
        assert steps, f"{logical_id} has no fixture under events/{_fixture_dir(logical_id)}/"
        assert [name for name, _ in steps if name in on_disk] == [name for name, _ in steps]
        assert {name for name, _ in steps} == on_disk, logical_id


@pytest.fixture(scope="module")
def twin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from persona_rails_dev.lambda_twin import build_twin

    if os.environ.get("PERSONA_RAILS_SKIP_PACKAGE") == "1":  # as tests/infra/test_package.py
        pytest.skip("PERSONA_RAILS_SKIP_PACKAGE=1")
    return build_twin(tmp_path_factory.mktemp("twin") / "build")


@pytest.fixture(scope="module")
def moto_ssm() -> Iterator[MotoSsm]:
    with moto_ssm_server() as server:
        yield server


@pytest.fixture(scope="module")
def seeded(db: Any) -> None:
    with db.as_owner() as tx:
        tx.execute((REPO_ROOT / "supabase" / "seed.sql").read_text(encoding="utf-8"))
        # The fixtures' dialog starts afresh, whatever another test did with its session id.
        tx.execute("DELETE FROM public.intercept_sessions WHERE id = 'a1b2c3d4-0000-4000-8000-000000000001'")


def serve(twin: Path, logical_id: str, env: dict[str, str], events: list[Any]) -> dict[str, Any]:
    from persona_rails_dev.lambda_twin import function_path, runtime_python

    function = functions()[logical_id]
    spec = {
        "sys_path": function_path(twin, logical_id),
        "handler": function.handler,
        "function_name": logical_id,
        "events": events,
        "check_files": [function.package, "persona_rails"],
        "remaining_ms": 60_000,
    }
    completed = subprocess.run(
        [*runtime_python(), "-c", CHILD],
        input=json.dumps(spec, ensure_ascii=False),
        env=env,
        cwd="/",
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    report: dict[str, Any] = json.loads(completed.stdout.strip().splitlines()[-1])
    report["stderr"] = completed.stderr
    return report


@pytest.mark.parametrize("logical_id", sorted(functions()))
def test_the_built_function_serves_every_fixture_with_secrets_only_from_ssm(
    twin, moto_ssm, seeded, database_url, logical_id
):
    from persona_rails_dev.lambda_twin import deployed_environment

    env, parameters = deployed_environment(
        logical_id,
        twin,
        {"DATABASE_URL": database_url, "SUPABASE_JWT_SECRET": FIXTURE_JWT_SECRET},
        {**moto_ssm.environment, "POWERTOOLS_LOG_LEVEL": "WARNING"},
    )
    for name, value in parameters.items():
        moto_ssm.put(name, value)
    # Only the parameters may serve: no secret value is in the environment.
    assert parameters
    assert not set(parameters.values()) & set(env.values())

    steps = steps_for(logical_id)
    events = [[name, load_event(f"{_fixture_dir(logical_id)}/{name}.json")] for name, _ in steps]
    report = serve(twin, logical_id, env, events)

    answered = [
        (a["name"], SUCCESS if expected == SUCCESS and 200 <= (a["status"] or 0) < 300 else a["status"])
        for a, (_, expected) in zip(report["answers"], steps, strict=True)
    ]
    assert answered == steps, report["answers"]
    # Every secret at init, in one round trip to SSM, and never again for the requests that followed.
    assert report["ssm_calls_at_init"] == [sorted(parameters)]
    assert report["ssm_calls"] == report["ssm_calls_at_init"]
    # The code that ran is the built artifact's.
    for module, path in report["files"].items():
        assert path.startswith(str(twin)), f"{module} came from {path}"
    # No SDK that the deployed function does not need was imported to serve them (Powertools imports
    # the bare botocore package to tag its user agent; no botocore session or client is built).
    assert report["loaded"] == [], report["loaded"]
    for value in parameters.values():
        assert value not in report["stderr"]


def test_a_missing_parameter_fails_the_cold_start_naming_it(twin, moto_ssm, database_url):
    from persona_rails_dev.lambda_twin import deployed_environment

    logical_id = "ModerationCheckFunction"
    env, _ = deployed_environment(logical_id, twin, {"DATABASE_URL": database_url}, moto_ssm.environment)
    env["DATABASE_URL_PARAMETER"] = "/persona-rails/twin/never-created"
    with pytest.raises(
        AssertionError, match="DATABASE_URL_PARAMETER=/persona-rails/twin/never-created: parameter not found"
    ):
        serve(twin, logical_id, env, [])
