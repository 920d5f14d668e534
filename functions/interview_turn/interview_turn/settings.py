"""InterviewTurnFunction's own settings, read once per cold start."""

from __future__ import annotations

from pydantic import Field

from persona_rails import env
from persona_rails.settings import _Base


class InterviewSettings(_Base):
    # Off by default: the heuristics are the contract; the LLM-assisted mode adds a second call.
    llm_signals: bool = Field(default=False, validation_alias=env.INTERVIEW_LLM_SIGNALS)
