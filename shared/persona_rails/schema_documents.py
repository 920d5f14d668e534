"""JSON Schemas of a function's config artifacts, generated from the pydantic models that
validate them, checked in beside the artifacts and kept current by a test.

A function lists its documents (`{"scenario.schema.json": {...}}`); this writes them, tells
which checked-in files are stale, and runs as the function's `python -m <package>.schema_files`
(`--check` exits 1 while one is stale, naming the make target that rewrites them).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

DRAFT = "https://json-schema.org/draft/2020-12/schema"
Documents = Mapping[str, dict[str, Any]]


def schema_name(artifact: str) -> str:
    """`router-policy.json` → `router-policy.schema.json`."""
    return artifact.removesuffix(".json") + ".schema.json"


def schema_document(
    name: str, model: type[BaseModel], mode: Literal["validation", "serialization"] = "validation"
) -> dict[str, Any]:
    return {"$schema": DRAFT, "$id": name, **model.model_json_schema(mode=mode)}


def render(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def stale(documents: Documents, directory: Path) -> list[str]:
    return [
        name
        for name, document in documents.items()
        if not (directory / name).exists()
        or (directory / name).read_text(encoding="utf-8") != render(document)
    ]


def write(documents: Documents, directory: Path) -> None:
    directory.mkdir(exist_ok=True)
    for name, document in documents.items():
        (directory / name).write_text(render(document), encoding="utf-8")


def main(documents: Documents, directory: Path, make_target: str, argv: list[str] | None = None) -> int:
    if "--check" in (sys.argv[1:] if argv is None else argv):
        outdated = stale(documents, directory)
        if outdated:
            print(f"stale: {', '.join(outdated)}; run `make {make_target}`", file=sys.stderr)
            return 1
        return 0
    write(documents, directory)
    return 0
