"""Config as versioned data: a function's JSON artifacts, validated at init and versioned.

Each function ships its own artifacts (personas, policies, lexicons, scenarios) as JSON files
beside its code, with a pydantic model as their schema. `load_artifact` reads one, validates it
and gives it a version: the hash of its canonical content (reformatting a file keeps it), plus
the human `version` field where the artifact has one. A broken file fails the cold start with
the file and the JSON path at fault, never a user's request. Engines receive the loaded value as
an argument and read no files.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

SchemaT = TypeVar("SchemaT", bound=BaseModel)
HASH_CHARS = 12


class ConfigError(ValueError):
    """An artifact cannot be used; the message names the file and the JSON path at fault."""

    def __init__(self, path: Path, json_path: str, problem: str) -> None:
        super().__init__(f"{path}: {json_path}: {problem}")
        self.path = path
        self.json_path = json_path
        self.problem = problem


@dataclass(frozen=True)
class Artifact(Generic[SchemaT]):
    path: Path
    value: SchemaT
    content_hash: str
    human_version: str | None

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def version(self) -> str:
        """What decision records store: `2026.11.1+3f2a9c1b04de`, or the hash alone."""
        short = self.content_hash[:HASH_CHARS]
        return f"{self.human_version}+{short}" if self.human_version else short


def json_path(location: tuple[int | str, ...]) -> str:
    path = "$"
    for part in location:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def content_hash(document: Any) -> str:
    canonical = json.dumps(document, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def load_artifact(path: Path, schema: type[SchemaT], *, sealed: bool = False) -> Artifact[SchemaT]:
    """Validated strictly, as the JSON Schemas published from the same models read the file: a
    number written as a string ("0.85") or a boolean as 1 is an error, not a coercion. `sealed`:
    the file was verified at build time (persona_rails.config_seal); validators that check it
    expensively may read `info.context["sealed"]` and skip."""
    try:
        text = path.read_text(encoding="utf-8")
        document = json.loads(text)
    except OSError as exc:
        raise ConfigError(path, "$", f"cannot read the file ({exc.strerror})") from exc
    except json.JSONDecodeError as exc:
        raise ConfigError(path, "$", f"not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(path, "$", f"not UTF-8 (byte {exc.start})") from exc
    try:
        value = schema.model_validate_json(text, strict=True, context={"sealed": sealed})
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ConfigError(path, json_path(tuple(first["loc"])), first["msg"]) from exc
    human = document.get("version") if isinstance(document, dict) else None
    return Artifact(path, value, content_hash(document), str(human) if human is not None else None)
