"""The three interception personas, loaded from personas.json and validated once per cold start."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from intercept_session.engine.messages import MESSAGE_LIMIT, PLACEHOLDERS, REQUIRED_TEMPLATES, largest_fills
from persona_rails.personas import PersonaCatalog

PERSONAS_FILE = Path(__file__).with_name("personas.json")


@cache
def catalog() -> PersonaCatalog:
    return PersonaCatalog.load(
        PERSONAS_FILE,
        required_templates=REQUIRED_TEMPLATES,
        allowed_placeholders=PLACEHOLDERS,
        message_limit=MESSAGE_LIMIT,
        sample_values=largest_fills(),
    )
