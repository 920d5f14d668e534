"""The JSON Schemas of the interview artifacts and of the turn contract (spec: Appendix A).

Generated from the pydantic models that validate them, written to `config/schemas/` and checked
in, so a designer's editor can validate a file before it ships. `make interview-schemas`
rewrites them; a test fails while one is stale.

    python -m interview_turn.schema_files           # rewrite
    python -m interview_turn.schema_files --check   # exit 1 when a file is stale
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from interview_turn.artifacts import CONFIG_DIR, SCHEMAS
from interview_turn.schemas import TurnContract

SCHEMA_DIR = CONFIG_DIR / "schemas"
DRAFT = "https://json-schema.org/draft/2020-12/schema"


def schema_name(artifact: str) -> str:
    return artifact.removesuffix(".json") + ".schema.json"


def documents() -> dict[str, dict[str, Any]]:
    found = {}
    for artifact, model in SCHEMAS.items():
        found[schema_name(artifact)] = {
            "$schema": DRAFT,
            "$id": schema_name(artifact),
            **model.model_json_schema(),
        }
    found["turn-contract.schema.json"] = {
        "$schema": DRAFT,
        "$id": "turn-contract.schema.json",
        **TurnContract.model_json_schema(mode="serialization"),
    }
    return found


def render(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def stale(directory: Path = SCHEMA_DIR) -> list[str]:
    return [
        name
        for name, document in documents().items()
        if not (directory / name).exists()
        or (directory / name).read_text(encoding="utf-8") != render(document)
    ]


def write(directory: Path = SCHEMA_DIR) -> None:
    directory.mkdir(exist_ok=True)
    for name, document in documents().items():
        (directory / name).write_text(render(document), encoding="utf-8")


if __name__ == "__main__":
    if "--check" in sys.argv:
        outdated = stale()
        if outdated:
            print(f"stale: {', '.join(outdated)}; run `make interview-schemas`", file=sys.stderr)
            sys.exit(1)
    else:
        write()
