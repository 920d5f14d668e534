"""The JSON Schemas of the SPS documents: scenario, persona, lexicon, policy, baseline rules,
and the validator's transcript input and result output (spec §11).

Generated from the pydantic models that validate them, written to `config/schemas/` and checked
in, so a case author's editor can validate a file before it ships. `make sps-schemas` rewrites
them; a test fails while one is stale.

    python -m sps_encounter.schema_files           # rewrite
    python -m sps_encounter.schema_files --check   # exit 1 when a file is stale
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from sps_encounter.artifacts import CONFIG_DIR, SCHEMAS
from sps_encounter.schemas import TranscriptTurn, ValidationResult

SCHEMA_DIR = CONFIG_DIR / "schemas"
DRAFT = "https://json-schema.org/draft/2020-12/schema"


class Transcript(BaseModel):
    """§11's input: the turns of one encounter, in order."""

    transcript: list[TranscriptTurn]


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
    found["transcript.schema.json"] = {
        "$schema": DRAFT,
        "$id": "transcript.schema.json",
        **Transcript.model_json_schema(),
    }
    found["validation-result.schema.json"] = {
        "$schema": DRAFT,
        "$id": "validation-result.schema.json",
        **ValidationResult.model_json_schema(mode="serialization"),
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
            print(f"stale: {', '.join(outdated)}; run `make sps-schemas`", file=sys.stderr)
            sys.exit(1)
    else:
        write()
