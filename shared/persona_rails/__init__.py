"""Persona Rails shared Lambda layer: config, storage, auth, LLM client and observability."""
