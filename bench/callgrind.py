"""Instructions a Python snippet executes, counted by callgrind: a measure that does not move with
the machine's load (a shared 2-CPU machine moves timed medians by a third from run to run)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys


def available() -> bool:
    return shutil.which("valgrind") is not None


def instructions(child: str, *args: str) -> int:
    """Instructions of `python -c child *args` (hash seed fixed, so dict order cannot move it)."""
    completed = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            "-c",
            child,
            *args,
        ],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    found = re.search(r"Collected : (\d+)", completed.stderr)
    if found is None:
        raise RuntimeError(f"callgrind printed no total:\n{completed.stderr[-2000:]}")
    return int(found.group(1))
