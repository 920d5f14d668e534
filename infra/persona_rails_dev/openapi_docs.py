"""Write (or check) docs/openapi/<function>.json for every HTTP function in template.yaml.

Each document comes from the app its handler module builds, inside a worker process that sees
only the function's CodeUri and the layer, as Lambda does (`rails openapi`, `rails openapi --check`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from persona_rails_dev.template import REPO_ROOT, Function, functions
from persona_rails_dev.workers import Worker, lambda_environment

DOCS_DIR = REPO_ROOT / "docs" / "openapi"
_GENERATE_TIMEOUT_SECONDS = 60.0


def document_path(function: Function) -> Path:
    return DOCS_DIR / f"{function.kebab_name}.json"


def render(document: dict[str, Any]) -> str:
    return json.dumps(document, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def generate(function: Function) -> str:
    worker = Worker(function, lambda_environment(function))
    try:
        document: dict[str, Any] = worker.request({"kind": "openapi"}, _GENERATE_TIMEOUT_SECONDS)
    finally:
        worker.stop()
    return render(document)


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
