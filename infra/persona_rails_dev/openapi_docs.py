"""Write (or check) docs/openapi/<function>.json for every HTTP function in template.yaml.

Each document is generated inside a child interpreter that sees only the function's CodeUri and
the layer, as Lambda does, from the app its handler module builds.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from persona_rails_dev.template import REPO_ROOT, Function, functions

DOCS_DIR = REPO_ROOT / "docs" / "openapi"

_GENERATE = """
import importlib, json, sys
from persona_rails.http.openapi import document
module = importlib.import_module(sys.argv[1])
print(json.dumps(document(module.app), ensure_ascii=False, indent=2, sort_keys=True))
"""


def kebab_name(function: Function) -> str:
    base = function.logical_id.removesuffix("Function")
    return "".join(f"-{c.lower()}" if c.isupper() and i else c.lower() for i, c in enumerate(base))


def document_path(function: Function) -> Path:
    return DOCS_DIR / f"{kebab_name(function)}.json"


def generate(function: Function) -> str:
    site = [path for path in sys.path if path.endswith("site-packages")]
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    env["PYTHONPATH"] = os.pathsep.join([str(function.code_uri), *map(str, function.layer_paths), *site])
    result = subprocess.run(  # noqa: S603 - our own interpreter on our own module
        [sys.executable, "-S", "-c", _GENERATE, function.module],
        env=env,
        cwd="/",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"{function.logical_id}: cannot build its OpenAPI document:\n{result.stderr}")
    return result.stdout


def http_functions() -> list[Function]:
    return [function for function in functions().values() if function.routes]


def write_all() -> list[Path]:
    DOCS_DIR.mkdir(parents=True, exist_ok=True)
    written = []
    for function in http_functions():
        path = document_path(function)
        path.write_text(generate(function), encoding="utf-8")
        written.append(path)
    return written


def stale() -> list[str]:
    """The documents that differ from what the code generates now (or are missing)."""
    out = []
    for function in http_functions():
        path = document_path(function)
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current != generate(function):
            out.append(str(path.relative_to(REPO_ROOT)))
    return out


if __name__ == "__main__":
    if "--check" in sys.argv:
        outdated = stale()
        for name in outdated:
            print(f"stale: {name} (run: rails openapi)", file=sys.stderr)
        raise SystemExit(1 if outdated else 0)
    for written_path in write_all():
        print(written_path.relative_to(REPO_ROOT))
