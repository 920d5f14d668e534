"""The shape every function's personas share; each function subclasses it with its own templates.

A function declares which templates its personas must have (and the placeholders each may use),
the message limit and the largest fills; its config file is then a `PersonaSet` of that model,
loaded with `persona_rails.config.load_artifact`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from persona_rails.templates import check_templates


class UnknownPersonaError(KeyError):
    def __init__(self, key: str, valid: Iterable[str]) -> None:
        self.key = key
        self.valid = sorted(valid)
        super().__init__(f"unknown persona_key '{key}'; valid keys: {', '.join(self.valid)}")


class BasePersona(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    # What a subclass declares: template name -> the placeholders it may use.
    TEMPLATES: ClassVar[Mapping[str, frozenset[str]]] = {}
    MESSAGE_LIMIT: ClassVar[int] = 60
    LARGEST_FILLS: ClassVar[Mapping[str, object]] = {}

    key: str = Field(pattern=r"^[a-z][a-z0-9-]{1,40}$")
    # Bumped by the designer whenever the persona's words change; stored with what it said.
    version: int = Field(ge=1)
    display_name: str = Field(min_length=1, max_length=20)
    prompt: str = Field(min_length=1, max_length=1200)
    templates: dict[str, str]

    @field_validator("templates")
    @classmethod
    def _templates_fit(cls, templates: dict[str, str]) -> dict[str, str]:
        check_templates(templates, cls.TEMPLATES, limit=cls.MESSAGE_LIMIT, largest_fills=cls.LARGEST_FILLS)
        return templates


PersonaT = TypeVar("PersonaT", bound=BasePersona)


class PersonaSet(BaseModel, Generic[PersonaT]):
    model_config = ConfigDict(frozen=True, extra="forbid")

    comment: str | None = None
    version: str | None = None
    personas: list[PersonaT] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_keys(self) -> PersonaSet[PersonaT]:
        keys = [persona.key for persona in self.personas]
        duplicates = sorted({key for key in keys if keys.count(key) > 1})
        if duplicates:
            raise ValueError(f"duplicate persona keys {duplicates}")
        return self

    @property
    def keys(self) -> list[str]:
        return sorted(persona.key for persona in self.personas)

    def get(self, key: str) -> PersonaT:
        for persona in self.personas:
            if persona.key == key:
                return persona
        raise UnknownPersonaError(key, self.keys)
