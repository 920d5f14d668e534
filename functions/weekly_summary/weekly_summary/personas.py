"""The voices of the weekly insight: one per interception persona, in `config/insight_personas.json`.

Loaded and validated once per cold start (the handler calls `insight_persona_config()` at init);
the engine receives the loaded set as an argument.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import ClassVar

from persona_rails.config import Artifact, load_artifact
from persona_rails.personas import BasePersona, PersonaSet

PERSONAS_FILE = Path(__file__).with_name("config") / "insight_personas.json"
INSIGHT_LIMIT = 60
INSIGHT_FILLS = frozenset({"top_category", "top_count", "compliance_rate", "sessions", "overrides"})
LARGEST_FILLS: dict[str, object] = {
    "top_category": "放松休息",
    "top_count": 9999,
    "compliance_rate": 100,
    "sessions": 9999,
    "overrides": 9999,
}


class InsightPersona(BasePersona):
    TEMPLATES: ClassVar = {"insight": INSIGHT_FILLS, "insight_quiet": INSIGHT_FILLS}
    MESSAGE_LIMIT: ClassVar = INSIGHT_LIMIT
    LARGEST_FILLS: ClassVar = LARGEST_FILLS


InsightPersonas = PersonaSet[InsightPersona]


@cache
def insight_persona_config() -> Artifact[InsightPersonas]:
    return load_artifact(PERSONAS_FILE, InsightPersonas)
