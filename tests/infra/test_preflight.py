"""`make test` says what the machine lacks, in one line, before installing anything: CPython 3.12
(for the packaging tests) and the AWS SAM CLI from the package index."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from persona_rails_dev import preflight
from persona_rails_dev.template import REPO_ROOT

SCRIPT = REPO_ROOT / "infra" / "persona_rails_dev" / "preflight.py"


def _run(tmp_path: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    # An empty PATH: no python3.12 and no pyenv, as on a machine that has only the running Python.
    env = {"PATH": str(tmp_path), "HOME": str(tmp_path), **extra}
    return subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, env=env, check=False)


def test_a_machine_without_cpython_3_12_is_told_so_in_one_line(tmp_path):
    done = _run(tmp_path)
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1
    assert "CPython 3.12" in lines[0]
    assert preflight.PYTHON312_VARIABLE in lines[0]


def test_skipping_the_packaging_tests_needs_no_cpython_3_12(tmp_path):
    done = _run(tmp_path, **{preflight.SKIP_PACKAGE_VARIABLE: "1"})
    assert (done.returncode, done.stderr) == (0, "")


def test_a_cpython_3_12_named_by_the_variable_is_enough(tmp_path):
    found = preflight.find_python312()
    if found is None:
        pytest.skip("no CPython 3.12 on this machine")
    done = _run(tmp_path, **{preflight.PYTHON312_VARIABLE: found})
    assert (done.returncode, done.stderr) == (0, "")


def test_a_sam_cli_that_cannot_be_installed_fails_make_in_one_line(tmp_path):
    sam_venv = tmp_path / "sam"
    env = {
        **os.environ,
        "PIP_NO_INDEX": "1",  # no package index reachable
        "PIP_FIND_LINKS": str(tmp_path),  # and no local wheels either
        "MAKEFLAGS": "",
    }
    done = subprocess.run(
        ["make", "-s", "-C", str(REPO_ROOT), f"SAM_VENV={sam_venv}", f"{sam_venv}/bin/.installed"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode != 0
    # make's own line about the failed target ("make: ***", or "make[1]: ***" under another make).
    said = [line for line in done.stderr.splitlines() if not re.match(r"make(\[\d+\])?: ", line)]
    assert len(said) == 1, done.stderr
    assert "AWS SAM CLI" in said[0]
    assert "pip.log" in said[0]
    assert not (sam_venv / "bin" / ".installed").exists()
