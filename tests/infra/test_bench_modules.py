"""Every benchmark module imports: a benchmark is run by hand, rarely, so a name moved elsewhere
(as `build_twin` once was) would otherwise surface only when someone next measures.

They are imported in a child interpreter: a benchmark sets up its process at import (Powertools'
log level, the handler environment), which must not leak into the tests that follow."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# Found by file, not by pkgutil.walk_packages, which imports every package it walks (here).
MODULES = sorted(
    ".".join(path.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
    for path in (REPO / "bench").rglob("*.py")
    # `python -m bench.x` entry points run their benchmark when imported.
    if path.name != "__main__.py"
)
_IMPORT_EACH = r"""
import importlib, json, sys, traceback
failures = {}
for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
    except Exception:
        failures[name] = traceback.format_exc(limit=3)
print(json.dumps(failures))
"""


def test_every_benchmark_module_imports():
    assert {"bench.cold_start_packaged", "bench.memory_warm", "bench.sps_encounter"} <= set(MODULES)
    completed = subprocess.run(
        [sys.executable, "-c", _IMPORT_EACH, *MODULES],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    failures = json.loads(completed.stdout.strip().splitlines()[-1])
    assert failures == {}, "\n".join(failures.values())
