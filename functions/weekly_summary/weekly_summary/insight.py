"""An LLM-written insight sentence, when enabled; the persona's template is always the fallback."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from persona_rails.interception_personas import catalog
from persona_rails.llm import LlmFault, complete_structured
from persona_rails.observability import count
from persona_rails.settings import LlmSettings
from weekly_summary.engine.summary import CATEGORY_LABELS, INSIGHT_LIMIT, SPEC_QUESTION, Insight

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["insight"],
    # The 60-character limit is checked on our side: strict mode refuses maxLength.
    "properties": {"insight": {"type": "string"}},
}


class _Reply(BaseModel):
    model_config = ConfigDict(extra="forbid")
    insight: str = Field(min_length=1, max_length=INSIGHT_LIMIT)


def _facts(summary: dict[str, Any]) -> str:
    # Numbers and labels only: no user text ever reaches this prompt.
    top = summary["top_category"]
    return json.dumps(
        {
            "本周最常出现的借口类型": CATEGORY_LABELS[top] if top else None,
            "借口次数": {CATEGORY_LABELS[k]: v for k, v in summary["category_counts"].items()},
            "拦截次数": summary["sessions"],
            "仍要解锁": summary["overrides"],
            "遵守率": summary["compliance_rate"],
            "上周拦截次数": summary["trend"]["previous_sessions"],
        },
        ensure_ascii=False,
    )


def llm_insight(settings: LlmSettings, summary: dict[str, Any], fallback: Insight) -> Insight:
    persona = catalog().get(fallback.persona_key)
    messages = [
        {
            "role": "system",
            "content": (
                f"{persona.prompt}\nWrite this user's weekly insight: one Chinese sentence of at most "
                f"{INSIGHT_LIMIT} characters, in {persona.display_name}'s voice, built on the week's most "
                f"frequent excuse type: it must contain the words {SPEC_QUESTION}. Answer with the JSON "
                "the schema describes."
            ),
        },
        {"role": "user", "content": _facts(summary)},
    ]
    try:
        reply = complete_structured(
            settings,
            messages,
            schema=_Reply,
            json_schema=_SCHEMA,
            schema_name="weekly_insight",
            max_tokens=120,
        )
    except LlmFault:
        count("InsightFallback")
        return fallback
    text = reply.value.insight.strip()
    if SPEC_QUESTION not in text:
        # The insight exists to answer the spec's question; one that does not is no insight.
        count("InsightFallback")
        return fallback
    return Insight(text, fallback.persona_key, "llm")
