"""One plugin per moderation dimension: what the service asks of each.

A plugin judges the request for its dimension (reading what it needs in its own short
transaction) and returns its result and label; the service then decides with the PolicyEngine
(§14.2) and asks every plugin for the rows to write, which go to Postgres together in one
transaction, once the final decision is known. `intimacy` is the first plugin
(`intimacy_plugin.py`); a new dimension adds a plugin, a `Dimension` value and a `Results` field.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol
from uuid import UUID

from pydantic import BaseModel

from persona_rails.identity import Caller
from persona_rails.moderation.scoring import Label

if TYPE_CHECKING:
    from persona_rails.config import Artifact
    from persona_rails.db import Database
    from persona_rails.local_model import LocalModel
    from persona_rails.moderation.lexicon import Lexicon
    from persona_rails.moderation.schemas import CheckRequest, CheckResponse
    from persona_rails.settings import LlmSettings, ModerationSettings

Statement = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class PluginRun:
    label: Label
    result: BaseModel
    # The plugin's rows for this check, given the response the service decided.
    write: Callable[[CheckResponse], list[Statement]]
    # Ids, enums and numbers for the check's log line; never text.
    log: dict[str, Any] = field(default_factory=dict)


class Plugin(Protocol):
    def run(self, caller: Caller, request: CheckRequest, check_id: UUID) -> PluginRun: ...


class CheckSetup(Protocol):
    """What a plugin reads of the service that runs it: this process's database, settings,
    lexicon and local model."""

    db: Database
    settings: ModerationSettings
    llm: LlmSettings
    lexicon: Artifact[Lexicon]
    local_model: LocalModel | None
    function_name: str

    @property
    def llm_asked(self) -> bool: ...
