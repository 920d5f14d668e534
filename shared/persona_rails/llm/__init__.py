"""Structured-output calls to any OpenAI-compatible endpoint, with every fault named for fallback."""

from persona_rails.llm.structured import LlmFault, LlmReply, complete_structured

__all__ = ["LlmFault", "LlmReply", "complete_structured"]
