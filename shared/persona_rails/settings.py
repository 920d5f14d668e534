"""Typed configuration, read from the environment once per cold start.

Each function composes the mixins it needs, as in the handler cookbook; `cached_settings`
validates a settings class once and returns the same object for every invocation. A secret comes
from the SSM parameter its `*_PARAMETER` variable names, when one is named (persona_rails.secrets).
Plain pydantic models read `os.environ` themselves: pydantic-settings did the same job for ~15 ms
of every cold start.
"""

from __future__ import annotations

import os
from functools import cache
from typing import TYPE_CHECKING, Any, Self, TypeVar

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from persona_rails import env
from persona_rails.secrets import resolve_secrets

if TYPE_CHECKING:
    from persona_rails.signed_state import StateSigner


class _Base(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    @classmethod
    def from_env(cls, **overrides: Any) -> Self:
        """Validate from the environment (field aliases are the variable names)."""
        # template.yaml passes "" for parameters left unset, which must mean "not configured".
        present = {name: value for name, value in os.environ.items() if value != ""}
        # Only this class's own secrets are fetched: AuthSettings never reads the database URL.
        aliases = [field.validation_alias for field in cls.model_fields.values()]
        secrets = resolve_secrets(present, [alias for alias in aliases if isinstance(alias, str)])
        return cls.model_validate({**present, **secrets, **overrides})


class DatabaseSettings(_Base):
    database_url: str | None = Field(default=None, validation_alias=env.DATABASE_URL)
    embedded_pgdata: str | None = Field(default=None, validation_alias=env.EMBEDDED_PGDATA)
    # How long one database read may block before the connection counts as dead.
    db_timeout_seconds: float = Field(default=30, gt=0, le=3600, validation_alias=env.DB_TIMEOUT_SECONDS)


class AuthSettings(_Base):
    jwt_secret: str | None = Field(default=None, validation_alias=env.SUPABASE_JWT_SECRET)
    jwks_url: str | None = Field(default=None, validation_alias=env.SUPABASE_JWKS_URL)
    jwt_audience: str = Field(default="authenticated", validation_alias=env.JWT_AUDIENCE)


class LlmSettings(_Base):
    api_key: str | None = Field(default=None, validation_alias=env.OPENAI_API_KEY)
    base_url: str | None = Field(default=None, validation_alias=env.OPENAI_BASE_URL)
    model: str | None = Field(default=None, validation_alias=AliasChoices(env.LLM_MODEL))
    timeout_seconds: float = Field(default=2.5, gt=0, le=30, validation_alias=env.LLM_TIMEOUT_SECONDS)

    @property
    def configured(self) -> bool:
        return bool(self.model and self.api_key)


SettingsT = TypeVar("SettingsT", bound=_Base)


@cache
def cached_settings(settings_class: type[SettingsT]) -> SettingsT:
    return settings_class.from_env()


class StateSettings(_Base):
    state_keys: str | None = Field(default=None, validation_alias=env.STATE_KEYS)

    def signer(self) -> StateSigner:
        from persona_rails.signed_state import StateSigner, parse_keys

        return StateSigner(parse_keys(self.state_keys or ""))


class InterceptSettings(_Base):
    """The interception dialog's knobs, shared by InterceptSessionFunction (its next start closes
    the user's abandoned dialogs), InterceptHousekeepingFunction (it closes everyone's, and purges
    raw reasons past retention) and WeeklySummaryFunction (it counts a dialog open past the grace
    as abandoned)."""

    abandon_grace_seconds: int = Field(
        default=600, ge=0, le=86_400, validation_alias=env.INTERCEPT_ABANDON_GRACE_SECONDS
    )
    reason_retention_days: int = Field(default=90, ge=1, le=3650, validation_alias=env.REASON_RETENTION_DAYS)


class ModerationSettings(_Base):
    """ModerationCheckFunction's knobs (and library mode's): retrieval, what is stored, the LLM."""

    retrieval_threshold: float = Field(
        default=0.95, gt=0, le=1, validation_alias=env.MODERATION_RETRIEVAL_THRESHOLD
    )
    store_text: bool = Field(default=True, validation_alias=env.MODERATION_STORE_TEXT)
    llm_score: bool = Field(default=True, validation_alias=env.MODERATION_LLM_SCORE)
    embedding_model: str | None = Field(default=None, validation_alias=env.EMBEDDING_MODEL)
