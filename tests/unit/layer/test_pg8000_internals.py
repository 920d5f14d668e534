"""db/pipeline.py drives pg8000's undocumented protocol writers; an upgrade must say so loudly.

Without these internals every statement falls back to nothing: the pipeline cannot send, and
the first sign would be an AttributeError deep in a request. This test names what is gone.
"""

import ast
import inspect
import re
import tomllib
from pathlib import Path

import pg8000
import pg8000.core
import pytest

from persona_rails.db import pipeline

PYPROJECT = Path(__file__).resolve().parents[3] / "pyproject.toml"
# Attributes pipeline.py reads on a live connection: set in CoreConnection.__init__, so they
# cannot be checked on the class; every integration test exercises them.
INSTANCE_ATTRIBUTES = {"_sock", "py_types"}


def _pg8000_requirement() -> str:
    dependencies = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["dependencies"]
    return next((d for d in dependencies if re.match(r"pg8000\b", d)), "pg8000 (no requirement found)")


def test_pg8000_still_has_every_internal_the_pipeline_uses():
    missing = pipeline.missing_internals()
    if missing:
        pytest.fail(
            f"pg8000 {pg8000.__version__} no longer has: {', '.join(missing)}. "
            f"shared/persona_rails/db/pipeline.py sends statements with these pg8000 internals, "
            f"which is why pyproject.toml pins {_pg8000_requirement()!r}: keep that pin, or port "
            "db/pipeline.py to this pg8000 (and update REQUIRED_INTERNALS) before raising it.",
            pytrace=False,
        )


def test_the_check_names_an_internal_that_goes_missing(monkeypatch):
    # As if an upgrade renamed one writer method and one module-level helper.
    monkeypatch.delattr(pg8000.core.CoreConnection, "send_BIND")
    monkeypatch.delattr(pg8000.core, "_flush")
    assert pipeline.missing_internals() == ["pg8000.core._flush", "pg8000.core.CoreConnection.send_BIND"]


def test_the_list_of_internals_covers_what_the_pipeline_touches():
    """REQUIRED_INTERNALS is written by hand; a new internal used without listing it goes unchecked."""
    tree = ast.parse(inspect.getsource(pipeline))
    used = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pg8000"):
            used |= {f"{node.module}.{alias.name}" for alias in node.names}
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "connection"
            and node.attr not in INSTANCE_ATTRIBUTES
        ):
            used.add(f"pg8000.core.CoreConnection.{node.attr}")
    # The exception classes are pg8000's documented API, not internals.
    used = {name for name in used if not name.startswith("pg8000.exceptions")}
    unlisted = sorted(used - set(pipeline.REQUIRED_INTERNALS))
    assert not unlisted, f"db/pipeline.py uses pg8000 internals missing from REQUIRED_INTERNALS: {unlisted}"
