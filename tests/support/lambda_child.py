"""Run Python in a child interpreter that sees what a function sees in Lambda.

Only the function's CodeUri, the layer and the installed packages are importable, and the
environment is the function's own (workers.lambda_environment, as `rails serve` gives it), so an
import or a variable that would be missing in Lambda is missing here too.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from persona_rails_dev.template import Function
from persona_rails_dev.workers import lambda_environment, site_packages

QUIET = {"POWERTOOLS_LOG_LEVEL": "ERROR", "POWERTOOLS_METRICS_DISABLED": "true"}


def lambda_env(function: Function, *, code_uri: Path | None = None, **variables: str) -> dict[str, str]:
    """The function's environment; `code_uri` swaps in another copy of its code (a broken one, say)."""
    env = lambda_environment(function, overrides={**QUIET, **variables})
    if code_uri is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            [str(code_uri), *map(str, function.layer_paths), *site_packages()]
        )
    return env


def layer_only_env(layer: Path, **variables: str) -> dict[str, str]:
    """The layer and the installed packages, no function: for checks of the layer on its own."""
    env = {name: value for name, value in os.environ.items() if name in {"PATH", "HOME", "LANG", "TMPDIR"}}
    env.update(QUIET, PYTHONPATH=os.pathsep.join([str(layer), *site_packages()]), **variables)
    return env


def run_python(code: str, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-S", "-c", code, *args],
        env=env,
        cwd="/",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
