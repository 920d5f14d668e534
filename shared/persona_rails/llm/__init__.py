"""Structured-output calls to any OpenAI-compatible endpoint, and the fallback step every engine uses."""

from persona_rails.llm.schema import strict_json_schema
from persona_rails.llm.step import Source, StepResult, run_step
from persona_rails.llm.structured import LlmFault, LlmReply, complete_structured

__all__ = [
    "LlmFault",
    "LlmReply",
    "Source",
    "StepResult",
    "complete_structured",
    "run_step",
    "strict_json_schema",
]
