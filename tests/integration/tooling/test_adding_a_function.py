"""Adding a function takes four things (issue 23, item 2): its folder, its template entry, its
migration and its fixtures. Everything else picks it up: `rails template` (log group, alarms,
dashboard), `rails openapi`, `rails invoke`, `rails serve` and the smoke dialogs, and the infra
tests that cover every function.

Shown on a temporary copy of the repository (its tracked and new files, as a clone would have them),
where a trivial function is added and the tools and tests are run from the copy itself.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from persona_rails_dev.template import REPO_ROOT, TEMPLATE_VARIABLE
from persona_rails_dev.template_ops import BEGIN

# 1. The folder: a FastAPI app behind Mangum, like every HTTP function, storing a note for its caller.
NOTE_INIT = '"""EchoNoteFunction: stores a short note for its caller (a test of adding a function)."""\n'
NOTE_API = '''"""POST /echo-notes: store the caller's note under RLS and answer it."""

from fastapi import APIRouter, status
from pydantic import BaseModel, Field

from persona_rails.http.dependencies import DbDep, UserOnly
from persona_rails.http.openapi import errors

router = APIRouter(prefix="/echo-notes")


class NoteIn(BaseModel):
    text: str = Field(min_length=1, max_length=200)


class NoteOut(BaseModel):
    id: int
    text: str


@router.post("", response_model=NoteOut, status_code=status.HTTP_201_CREATED, responses=errors(401, 404, 422))
async def add_note(body: NoteIn, caller: UserOnly, db: DbDep) -> NoteOut:
    with db.as_user(caller.claims) as tx:
        row = tx.one("INSERT INTO public.echo_notes (text) VALUES (:text) RETURNING id, text", text=body.text)
    assert row is not None
    return NoteOut(id=row["id"], text=row["text"])
'''
NOTE_HANDLER = '''"""Lambda entry of EchoNoteFunction (template.yaml: echo_note.handler.lambda_handler)."""

from echo_note.api import router
from persona_rails.http.app import create_app, lambda_handler_for

app = create_app("EchoNoteFunction", router)
lambda_handler = lambda_handler_for(app)
'''

# 2. The template entry.
NOTE_ENTRY = """  EchoNoteFunction:
    Type: AWS::Serverless::Function
    Properties:
      Description: Stores a short note for its caller.
      CodeUri: functions/echo_note/
      Handler: echo_note.handler.lambda_handler
      LoggingConfig:
        LogGroup: !Ref EchoNoteLogGroup
      ReservedConcurrentExecutions: !If
        - HasReservedConcurrency
        - !Ref HttpFunctionReservedConcurrency
        - !Ref AWS::NoValue
      DeploymentPreference:
        Type: Canary10Percent5Minutes
        Alarms:
          - !Ref EchoNoteErrorsAlarm
          - !Ref EchoNoteLatencyAlarm
      Environment:
        Variables:
          POWERTOOLS_SERVICE_NAME: echo-note
          DATABASE_URL_PARAMETER: !Ref DatabaseUrlParameter
          SUPABASE_JWT_SECRET_PARAMETER: !Ref SupabaseJwtSecretParameter
      Policies:
        - !Ref ReadDatabaseUrlSecret
        - !If [HasSupabaseJwtSecretParameter, !Ref ReadSupabaseJwtSecret, !Ref "AWS::NoValue"]
      Events:
        AddNote:
          Type: HttpApi
          Properties:
            ApiId: !Ref HttpApi
            Method: POST
            Path: /echo-notes

"""

# 3. The migration: a table readable by its owner only, written by the function under RLS.
NOTE_MIGRATION = """CREATE TABLE public.echo_notes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id uuid NOT NULL DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
  text text NOT NULL CHECK (char_length(text) BETWEEN 1 AND 200),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX echo_notes_user_idx ON public.echo_notes (user_id);
ALTER TABLE public.echo_notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY echo_notes_select_own ON public.echo_notes FOR SELECT TO authenticated
  USING ((SELECT auth.uid()) = user_id);
CREATE POLICY echo_notes_insert_own ON public.echo_notes FOR INSERT TO persona_rails_function
  WITH CHECK ((SELECT auth.uid()) = user_id);
REVOKE ALL ON public.echo_notes FROM anon, authenticated;
GRANT SELECT ON public.echo_notes TO authenticated;
GRANT INSERT ON public.echo_notes TO persona_rails_function;
"""

# The infra tests that cover every function, run in the copy (the packaging ones need a build).
INFRA_TESTS = [
    "tests/infra/test_template.py",
    "tests/infra/test_template_ops.py",
    "tests/infra/test_openapi_documents.py",
    "tests/infra/test_schema_lints.py",
    "tests/infra/test_import_budget.py::test_every_budget_names_a_function_of_the_template",
    "tests/infra/test_import_budget.py::test_the_handler_imports_within_its_budget_without_heavy_sdks[EchoNoteFunction]",
    "tests/integration/tooling/test_smoke.py",
    "tests/integration/tooling/test_local_stack.py::test_each_functions_openapi_document_is_served",
]


def _fixture() -> dict:
    """4. The fixture: an API Gateway v2 event, made from an existing one (its token is the seed user's)."""
    event = json.loads((REPO_ROOT / "events" / "moderation-check" / "check.json").read_text(encoding="utf-8"))
    event.update(routeKey="POST /echo-notes", rawPath="/echo-notes", body=json.dumps({"text": "hello"}))
    event["requestContext"].update(routeKey="POST /echo-notes", requestId="fixture-echo-note")
    event["requestContext"]["http"]["path"] = "/echo-notes"
    event.pop("pathParameters", None)
    return event


def _copy_of_the_repository(to: Path) -> None:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO_ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPO_ROOT / name
        if source.is_file():  # a tracked file deleted in this working tree is not copied
            (to / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, to / name)


def _add_the_function(repo: Path) -> None:
    package = repo / "functions" / "echo_note" / "echo_note"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(NOTE_INIT, encoding="utf-8")
    (package / "api.py").write_text(NOTE_API, encoding="utf-8")
    (package / "handler.py").write_text(NOTE_HANDLER, encoding="utf-8")
    template = repo / "template.yaml"
    text = template.read_text(encoding="utf-8")
    template.write_text(text.replace(BEGIN + "\n", NOTE_ENTRY + BEGIN + "\n", 1), encoding="utf-8")
    (repo / "supabase" / "migrations" / "29991231000000_echo_notes.sql").write_text(
        NOTE_MIGRATION, encoding="utf-8"
    )
    (repo / "events" / "echo-note").mkdir()
    (repo / "events" / "echo-note" / "add.json").write_text(
        json.dumps(_fixture(), indent=2) + "\n", encoding="utf-8"
    )


@dataclass(frozen=True)
class Copy:
    """The copy with the function added, after the two commands its author runs: `rails template`
    and `rails openapi` (each test reads the copy as they left it, in any order)."""

    path: Path
    stale_before: int  # `rails template --check` before `rails template`
    template: subprocess.CompletedProcess[str]
    openapi: subprocess.CompletedProcess[str]


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Copy:
    root = tmp_path_factory.mktemp("copy")
    _copy_of_the_repository(root)
    _add_the_function(root)
    stale = _rails(root, "template", "--check").returncode
    return Copy(root, stale, _rails(root, "template"), _rails(root, "openapi"))


def _environment(repo: Path) -> dict[str, str]:
    """The copy's own tooling (its infra/ first on the path) and nothing pointing at this checkout."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PERSONA_RAILS_", "DATABASE_URL"))
    }
    env.pop(TEMPLATE_VARIABLE, None)
    env["PYTHONPATH"] = str(repo / "infra")
    return env


def _run(repo: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        cwd=repo,
        env=_environment(repo),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _rails(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return _run(repo, "-m", "persona_rails_dev.cli", *args)


def test_the_copy_runs_its_own_tooling(copy):
    where = _run(copy.path, "-c", "import persona_rails_dev.template as t; print(t.REPO_ROOT)")
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()) == copy.path.resolve()


def test_rails_template_writes_its_log_group_alarms_and_dashboard_lines(copy):
    assert copy.stale_before == 1  # the copy's template is stale until `rails template` runs
    assert copy.template.returncode == 0, copy.template.stderr
    assert _rails(copy.path, "template", "--check").returncode == 0
    generated = (copy.path / "template.yaml").read_text(encoding="utf-8").split(BEGIN, 1)[1]
    for resource in (
        "EchoNoteLogGroup",
        "EchoNoteErrorsAlarm",
        "EchoNoteThrottlesAlarm",
        "EchoNoteLatencyAlarm",
    ):
        assert f"  {resource}:\n" in generated, resource
    assert "EchoNoteFunction" in generated.split("AWS::CloudWatch::Dashboard", 1)[1]


def test_rails_openapi_writes_its_document(copy):
    assert copy.openapi.returncode == 0, copy.openapi.stderr
    assert _rails(copy.path, "openapi", "--check").returncode == 0
    document = json.loads((copy.path / "docs" / "openapi" / "echo-note.json").read_text(encoding="utf-8"))
    assert "post" in document["paths"]["/echo-notes"]


def test_rails_invoke_runs_its_fixture_on_the_embedded_database(copy):
    try:
        invoked = _rails(copy.path, "invoke", "EchoNoteFunction", "-e", "events/echo-note/add.json")
    finally:
        _rails(copy.path, "db", "--stop")
    assert invoked.returncode == 0, invoked.stderr[-3000:]
    answer = json.loads(invoked.stdout)
    assert answer["statusCode"] == 201, answer
    assert json.loads(answer["body"])["text"] == "hello"


def test_the_infra_tests_serve_and_smoke_cover_it(copy):
    completed = _run(
        copy.path, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rA", *INFRA_TESTS, timeout=900
    )
    assert completed.returncode == 0, completed.stdout[-4000:]
    passed = [line for line in completed.stdout.splitlines() if line.startswith("PASSED")]
    # The function is among the parameters of the per-function tests, and the smoke ran its fixture.
    assert any("EchoNoteFunction" in line for line in passed), completed.stdout[-4000:]
    assert any("test_the_smoke_flows_pass_against_the_local_stack" in line for line in passed)
