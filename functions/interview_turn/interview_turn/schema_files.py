"""The JSON Schemas of the interview artifacts and of the turn contract (spec: Appendix A).

Generated from the pydantic models that validate them, written to `config/schemas/` and checked
in, so a designer's editor can validate a file before it ships. `make interview-schemas`
rewrites them; a test fails while one is stale.

    python -m interview_turn.schema_files           # rewrite
    python -m interview_turn.schema_files --check   # exit 1 when a file is stale
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from interview_turn.artifacts import CONFIG_DIR, SCHEMAS
from interview_turn.schemas import TurnContract
from persona_rails import schema_documents
from persona_rails.schema_documents import DRAFT, schema_document, schema_name

SCHEMA_DIR = CONFIG_DIR / "schemas"
__all__ = ["DRAFT", "SCHEMA_DIR", "documents", "schema_name", "stale", "write"]


def documents() -> dict[str, dict[str, Any]]:
    found = {
        schema_name(artifact): schema_document(schema_name(artifact), model)
        for artifact, model in SCHEMAS.items()
    }
    found["turn-contract.schema.json"] = schema_document(
        "turn-contract.schema.json", TurnContract, "serialization"
    )
    return found


def stale(directory: Path = SCHEMA_DIR) -> list[str]:
    return schema_documents.stale(documents(), directory)


def write(directory: Path = SCHEMA_DIR) -> None:
    schema_documents.write(documents(), directory)


if __name__ == "__main__":
    sys.exit(schema_documents.main(documents(), SCHEMA_DIR, "interview-schemas"))
