"""Every HTTP request handler in the project (the local server, the tests' fakes) replies without
waiting on Nagle's algorithm: a reply's headers and body leave in two writes, and with Nagle on
the body waits about 40 ms for the client's delayed ACK (4227c41 found it costing CI 4 minutes).
Read from the source, so a new server is covered the day it is written. Only classes that name
`BaseHTTPRequestHandler` as a base are read: a subclass of one of them inherits its setting, and
the project has no handler deriving from `SimpleHTTPRequestHandler` or another library class."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SEARCHED = ("infra", "shared", "functions", "tests", "bench")
BASE = "BaseHTTPRequestHandler"


def handlers_with_nagle(source: str) -> list[str]:
    """The classes that derive from `BaseHTTPRequestHandler` itself and leave
    `disable_nagle_algorithm` unset."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ClassDef):
            continue
        bases = {base.id if isinstance(base, ast.Name) else getattr(base, "attr", "") for base in node.bases}
        if BASE not in bases:
            continue
        prompt = any(
            isinstance(statement, ast.Assign)
            and any(
                isinstance(target, ast.Name) and target.id == "disable_nagle_algorithm"
                for target in statement.targets
            )
            and isinstance(statement.value, ast.Constant)
            and statement.value.value is True
            for statement in node.body
        )
        if not prompt:
            found.append(node.name)
    return found


def sources() -> list[Path]:
    return sorted(
        path
        for folder in SEARCHED
        if (ROOT / folder).is_dir()
        for path in (ROOT / folder).rglob("*.py")
        if ".aws-sam" not in path.parts
    )


def test_every_request_handler_disables_nagles_algorithm():
    offenders = {
        str(path.relative_to(ROOT)): names
        for path in sources()
        if BASE in (text := path.read_text(encoding="utf-8"))
        for names in [handlers_with_nagle(text)]
        if names
    }
    assert offenders == {}


@pytest.mark.parametrize(
    ("source", "offenders"),
    [
        (
            "from http.server import BaseHTTPRequestHandler\nclass H(BaseHTTPRequestHandler):\n    pass\n",
            ["H"],
        ),
        (
            "import http.server\nclass H(http.server.BaseHTTPRequestHandler):\n    disable_nagle_algorithm = False\n",
            ["H"],
        ),
        ("class H(BaseHTTPRequestHandler):\n    disable_nagle_algorithm = True\n", []),
        ("class H(PromptHandler):\n    pass\n", []),
    ],
)
def test_the_check_finds_a_handler_that_leaves_nagle_on(source, offenders):
    assert handlers_with_nagle(source) == offenders
