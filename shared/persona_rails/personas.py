"""Personas as versioned data: load and validate once, render templates within a length limit.

Each function ships its own personas file; this module gives them one shape and one set of
checks, so a persona designer's typo fails at cold start with the file, persona and field named,
never in front of a user.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

PLACEHOLDER = re.compile(r"\{\{\s*(\w+)\s*\}\}")
ELLIPSIS = "…"


class PersonaConfigError(ValueError):
    """A personas file is malformed; the message names the file, persona and field."""


class UnknownPersonaError(KeyError):
    def __init__(self, key: str, valid: Iterable[str]) -> None:
        self.key = key
        self.valid = sorted(valid)
        super().__init__(f"unknown persona_key '{key}'; valid keys: {', '.join(self.valid)}")


class Persona(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str = Field(pattern=r"^[a-z][a-z0-9-]{1,40}$")
    version: int = Field(ge=1)
    display_name: str = Field(min_length=1, max_length=20)
    tone: str = Field(min_length=1, max_length=200)
    avatar_asset_key: str = Field(pattern=r"^[a-z0-9/_.-]+$")
    prompt: str = Field(min_length=1, max_length=1200)
    templates: dict[str, str]

    @field_validator("templates")
    @classmethod
    def _templates_not_empty(cls, templates: dict[str, str]) -> dict[str, str]:
        empty = [name for name, text in templates.items() if not text.strip()]
        if empty:
            raise ValueError(f"empty templates: {', '.join(empty)}")
        return templates


def placeholders(template: str) -> set[str]:
    return set(PLACEHOLDER.findall(template))


def render(template: str, values: Mapping[str, object]) -> str:
    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            raise KeyError(f"template placeholder '{name}' has no value")
        return str(values[name])

    return PLACEHOLDER.sub(fill, template)


def fit(template: str, values: Mapping[str, object], limit: int, shrinkable: Iterable[str] = ()) -> str:
    """Render, then shorten free-text fills (never the template's own words) until within `limit`."""
    text = render(template, values)
    if len(text) <= limit:
        return text
    shortened = dict(values)
    for name in shrinkable:
        if name not in placeholders(template):
            continue
        overflow = len(text) - limit
        current = str(shortened[name])
        keep = max(1, len(current) - overflow - len(ELLIPSIS))
        shortened[name] = current[:keep] + ELLIPSIS
        text = render(template, shortened)
        if len(text) <= limit:
            return text
    raise ValueError(f"template cannot fit in {limit} characters: {template!r}")


class PersonaCatalog:
    def __init__(self, personas: Mapping[str, Persona]) -> None:
        self._personas = dict(personas)

    @property
    def keys(self) -> list[str]:
        return sorted(self._personas)

    def get(self, key: str) -> Persona:
        try:
            return self._personas[key]
        except KeyError:
            raise UnknownPersonaError(key, self._personas) from None

    @classmethod
    def load(
        cls,
        path: Path,
        *,
        templates: Mapping[str, Iterable[str]],
        message_limit: int,
        sample_values: Mapping[str, object],
    ) -> PersonaCatalog:
        """Parse and validate a personas file. `templates` names every required template and the
        placeholders it may use; each must render within the limit for the largest values the
        product allows (`sample_values`)."""
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
            entries = document["personas"]
        except (OSError, json.JSONDecodeError, KeyError, TypeError) as exc:
            raise PersonaConfigError(f"{path}: not a personas document ({exc})") from exc
        personas: dict[str, Persona] = {}
        for index, entry in enumerate(entries):
            where = f"{path}: personas[{index}]"
            try:
                persona = Persona.model_validate(entry)
            except ValidationError as exc:
                raise PersonaConfigError(f"{where}: {exc}") from exc
            where = f"{path}: persona '{persona.key}'"
            if persona.key in personas:
                raise PersonaConfigError(f"{where}: duplicate key")
            missing = templates.keys() - persona.templates.keys()
            if missing:
                raise PersonaConfigError(f"{where}: missing templates {sorted(missing)}")
            for name, template in persona.templates.items():
                if name not in templates:
                    raise PersonaConfigError(f"{where}: unexpected template '{name}'")
                unknown = placeholders(template) - set(templates[name])
                if unknown:
                    raise PersonaConfigError(f"{where}: template '{name}' uses unknown {sorted(unknown)}")
                if len(render(template, sample_values)) > message_limit:
                    raise PersonaConfigError(
                        f"{where}: template '{name}' exceeds {message_limit} characters"
                        " with the largest fills"
                    )
            personas[persona.key] = persona
        if not personas:
            raise PersonaConfigError(f"{path}: no personas")
        return cls(personas)
