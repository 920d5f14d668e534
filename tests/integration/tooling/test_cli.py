"""`rails` as a developer types it: serve with the demo, the function hooks' commands, openapi --check."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import pytest

from persona_rails_dev.cli import build_parser
from persona_rails_dev.cli import main as rails
from persona_rails_dev.demo import run_demo
from persona_rails_dev.local_env import DEV_USER_ID
from persona_rails_dev.template import REPO_ROOT


@pytest.fixture
def restored_environment() -> Iterator[None]:
    # The weekly hook sets its function's variables in this process, as `rails weekly` does.
    saved = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(saved)


def test_serve_runs_the_demo_of_every_function_that_has_one(local_stack, database_url):
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "persona_rails_dev.cli",
            "serve",
            "--port",
            "0",
            "--demo",
            "--exit-after-demo",
        ],
        cwd=REPO_ROOT,
        env={**os.environ, "DATABASE_URL": database_url},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    out = completed.stdout
    assert "InterceptSessionFunction: ready in" in out
    assert "ModerationCheckFunction: ready in" in out
    # The scheduled function has no route, so it is not served.
    assert "WeeklySummaryFunction" not in out
    assert "=== S5-S6 decision: POST" in out
    # ModerationCheckFunction's hook: the spec's examples checked over HTTP.
    assert "=== moderation: POST /moderation/check -> 200" in out
    assert '"final": "reject"' in out
    # InterviewTurnFunction's hook: a short interview with a refusal and a stop request.
    assert "InterviewTurnFunction: ready in" in out
    assert "=== interview: POST /interview/sessions -> 201" in out
    assert '"winning_rule": "vagueness"' in out
    assert '"safety_action": "redirect"' in out
    assert '"safety_action": "stop"' in out
    # ChairInterruptFunction's hook: a straw man interrupted, then the cooldown holds.
    assert "ChairInterruptFunction: ready in" in out
    assert "chair_2 interrupts (straw_man_detected" in out
    assert '"total_interrupts": 1' in out
    # SpsEncounterFunction's hook: a short encounter, then its transcript validated clean.
    assert "SpsEncounterFunction: ready in" in out
    assert "=== sps: POST /sps/encounters -> 201" in out
    assert "[dob_challenge, rapport guarded]" in out
    assert "[refusal, rapport" in out
    assert '"errors": [], "summaryMetrics": {"issueCounts": {"errors": 0, "warnings": 0, "info": 0}' in out
    assert '"totalPatientTurns": 5' in out
    assert "Dialog completed end to end." in out


def test_function_commands_come_from_hooks_found_by_convention():
    commands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    # Core commands, then what hooks/intercept_session.py and hooks/weekly_summary.py register.
    assert {"serve", "invoke", "token", "db", "replay", "openapi"} <= set(commands)
    assert {"demo", "weekly", "summaries"} <= set(commands)


def test_the_weekly_hook_runs_the_job_and_summaries_reads_it_back(local_stack, restored_environment, capsys):
    # The demo dialogs run at UTC+8 (the dev user's home offset), so this week is theirs there.
    run_demo(local_stack, print_fn=lambda *_: None)
    today = datetime.now(timezone(timedelta(hours=8))).date()
    year, week, _ = today.isocalendar()
    monday = today - timedelta(days=today.weekday())
    assert rails(["weekly", "--week", f"{year}-W{week:02d}", "--user", DEV_USER_ID]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["weeks"] == [f"{year}-W{week:02d}"]
    assert (report["processed"], report["failed"]) == (1, 0)
    assert rails(["summaries", "--sub", DEV_USER_ID]) == 0
    out = capsys.readouterr().out
    assert f'"week_start": "{monday.isoformat()}"' in out


def test_openapi_check_passes_on_the_committed_documents():
    assert rails(["openapi", "--check"]) == 0


def test_replay_refuses_an_unknown_function_and_a_missing_id(capsys):
    assert rails(["replay", "NoSuchFunction", "--all"]) == 2
    assert "template.yaml declares" in capsys.readouterr().err
    assert rails(["replay", "InterceptSessionFunction"]) == 2
    # A function that records no decisions says so instead of failing in its child interpreter.
    assert rails(["replay", "WeeklySummaryFunction", "--all"]) == 2
    assert "keeps no replayable decisions" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        rails(["replay", "InterceptSessionFunction", "not-a-uuid"])


def test_rails_token_mints_a_service_role_token_the_functions_accept(restored_environment, capsys):
    from persona_rails.auth import SERVICE_ROLE, verify
    from persona_rails_dev.local_env import LOCAL_JWT_SECRET

    assert rails(["token", "--service-role", "--ttl", "60"]) == 0
    token = capsys.readouterr().out.strip()
    claims = verify(token, secret=LOCAL_JWT_SECRET, jwks_url=None, audience="authenticated")
    assert claims.role == SERVICE_ROLE
    assert "sub" not in claims.raw
