"""The JSON Schemas of the SPS documents: scenario, persona, lexicon, policy, baseline rules,
and the validator's transcript input and result output (spec §11).

Generated from the pydantic models that validate them, written to `config/schemas/` and checked
in, so a case author's editor can validate a file before it ships. `make sps-schemas` rewrites
them; a test fails while one is stale.

    python -m sps_encounter.schema_files           # rewrite
    python -m sps_encounter.schema_files --check   # exit 1 when a file is stale
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from persona_rails import schema_documents
from persona_rails.schema_documents import DRAFT, schema_document, schema_name
from sps_encounter.artifacts import CONFIG_DIR, SCHEMAS
from sps_encounter.schemas import TranscriptTurn, ValidationResult

SCHEMA_DIR = CONFIG_DIR / "schemas"
__all__ = ["DRAFT", "SCHEMA_DIR", "documents", "schema_name", "stale", "write"]


class Transcript(BaseModel):
    """§11's input: the turns of one encounter, in order."""

    transcript: list[TranscriptTurn]


def documents() -> dict[str, dict[str, Any]]:
    found = {
        schema_name(artifact): schema_document(schema_name(artifact), model)
        for artifact, model in SCHEMAS.items()
    }
    found["transcript.schema.json"] = schema_document("transcript.schema.json", Transcript)
    found["validation-result.schema.json"] = schema_document(
        "validation-result.schema.json", ValidationResult, "serialization"
    )
    return found


def stale(directory: Path = SCHEMA_DIR) -> list[str]:
    return schema_documents.stale(documents(), directory)


def write(directory: Path = SCHEMA_DIR) -> None:
    schema_documents.write(documents(), directory)


if __name__ == "__main__":
    sys.exit(schema_documents.main(documents(), SCHEMA_DIR, "sps-schemas"))
