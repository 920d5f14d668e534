"""An LLM-written insight sentence, when enabled; the persona's template is always the fallback."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from persona_rails.llm import LlmFault, run_step
from persona_rails.settings import LlmSettings
from weekly_summary.engine.summary import CATEGORY_LABELS, SPEC_QUESTION, Insight
from weekly_summary.personas import INSIGHT_LIMIT, InsightPersona


class InsightReply(BaseModel):
    """The reply the LLM must give; its strict JSON schema is generated from this model."""

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
            "紧急解锁": summary["emergency_unlocks"],
            "超出每周额度的紧急解锁": summary["emergency_excess"],
        },
        ensure_ascii=False,
    )


def _messages(persona: InsightPersona, summary: dict[str, Any]) -> list[dict[str, str]]:
    return [
        {
            "role": "system",
            "content": (
                f"{persona.prompt}\nWrite this user's weekly insight: one Chinese sentence of at most "
                f"{INSIGHT_LIMIT} characters, in {persona.display_name}'s voice, built on the week's most "
                f"frequent excuse type: it must contain the words {SPEC_QUESTION}. Emergency unlocks "
                "past the weekly allowance may be mentioned, with care and never as a reproach. Answer "
                "with the JSON the schema describes."
            ),
        },
        {"role": "user", "content": _facts(summary)},
    ]


def _insight_from(reply: InsightReply, persona_key: str) -> Insight:
    text = reply.insight.strip()
    if SPEC_QUESTION not in text:
        # The insight exists to answer the spec's question; one that does not is no insight.
        raise LlmFault("off_spec", "the insight does not name the week's excuse type")
    return Insight(text, persona_key, "llm")


def llm_insight(
    settings: LlmSettings, persona: InsightPersona, summary: dict[str, Any], fallback: Insight
) -> Insight:
    step = run_step(
        settings,
        name="weekly_insight",
        messages=lambda: _messages(persona, summary),
        reply_model=InsightReply,
        from_reply=lambda reply: _insight_from(reply, fallback.persona_key),
        offline=lambda: fallback,
        max_tokens=120,
    )
    return step.answer
