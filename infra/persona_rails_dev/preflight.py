"""What `make test` needs from the machine, checked before anything is installed, each failure in
one line: Python 3.11 or newer to run the tooling, CPython 3.12 (Lambda's python3.12) to compile
the packaged bytecode, and the package index, from which the AWS SAM CLI is installed.

Standard library only: it runs under the system `python3`, before the virtualenv exists.

    python3 infra/persona_rails_dev/preflight.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

PYTHON312_VARIABLE = "PERSONA_RAILS_PYTHON312"
SKIP_PACKAGE_VARIABLE = "PERSONA_RAILS_SKIP_PACKAGE"
# What CPython 3.12 writes into its bytecode's file names (sys.implementation.cache_tag).
CACHE_TAG_312 = "cpython-312"
OLDEST_PYTHON = (3, 11)


def _output(command: list[str]) -> str:
    """A probe's stdout, or "" when the command is missing or fails (a pyenv shim without its version)."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603 - a fixed probe
    except OSError:
        return ""
    return done.stdout if done.returncode == 0 else ""


def find_python312() -> str | None:
    """A CPython 3.12 interpreter: $PERSONA_RAILS_PYTHON312, python3.12 on PATH, or pyenv's newest 3.12."""
    candidates = [os.environ.get(PYTHON312_VARIABLE, ""), shutil.which("python3.12") or ""]
    pyenv = shutil.which("pyenv")
    if pyenv:
        listed = _output([pyenv, "versions", "--bare"]).split()
        root = _output([pyenv, "root"]).strip()
        versions = sorted(
            (v for v in listed if v.startswith("3.12.") and v[5:].isdigit()),
            key=lambda v: int(v[5:]),
            reverse=True,
        )
        candidates += [f"{root}/versions/{version}/bin/python3.12" for version in versions]
    for candidate in filter(None, candidates):
        probe = [candidate, "-I", "-c", "import sys; print(sys.implementation.cache_tag)"]
        if _output(probe).strip() == CACHE_TAG_312:
            return candidate
    return None


def problems(environ: dict[str, str] | os._Environ[str] = os.environ) -> list[str]:
    found = []
    if sys.version_info < OLDEST_PYTHON:
        version = ".".join(map(str, sys.version_info[:3]))
        found.append(f"make test needs Python 3.11 or newer (this is {version}): set PYTHON=python3.11")
    if environ.get(SKIP_PACKAGE_VARIABLE) != "1" and find_python312() is None:
        found.append(
            "make test needs CPython 3.12 (Lambda's python3.12) for the packaging tests: put python3.12 "
            f"on PATH (e.g. PYENV_VERSION=3.11.7:3.12.1), set {PYTHON312_VARIABLE} to it, "
            f"or skip them with {SKIP_PACKAGE_VARIABLE}=1"
        )
    return found


def main() -> int:
    found = problems()
    for line in found:
        print(line, file=sys.stderr)
    return 2 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
