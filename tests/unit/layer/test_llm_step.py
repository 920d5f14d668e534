"""`persona_rails.llm.run_step`, the one LLM step every engine shares, at the layer level: a reply
model of the test's own (not the interception verdict), the real `openai` SDK against the scripted
server on 127.0.0.1, and what the step hands back to a function's service.

The interception function's own fault matrix lives in tests/integration/intercept_session/
test_llm_path.py and reply parsing in test_llm_parse.py; here: the StepResult fields, the
LlmFallback metric, the schema on the wire and the offline path's imports.
"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field

from persona_rails.llm import LlmFault, Source, StepResult, run_step, strict_json_schema
from persona_rails.llm.step import FALLBACK_METRIC
from persona_rails.settings import LlmSettings
from tests.support.fake_openai import (
    Behaviour,
    Completion,
    Delay,
    Disconnect,
    FakeOpenAI,
    json_content,
    rate_limited,
    server_error,
)
from tests.support.fixtures import FAKE_MODEL, FAKE_TIMEOUT_SECONDS
from tests.support.lambda_child import layer_only_env, run_python

SHARED = Path(__file__).resolve().parents[3] / "shared"


class Label(StrEnum):
    SPAM = "spam"
    HAM = "ham"


class Evidence(BaseModel):
    # No extra="forbid" here: strict mode needs `additionalProperties: false` all the same.
    quote: str = Field(max_length=80, description="a short quote")
    weight: int = Field(ge=1, le=5)


class Judgement(BaseModel):
    """A moderation-like reply: nested model, enum, bounds, optional, and fields named like schema
    keywords (`title`, `description`), which must survive as properties."""

    model_config = ConfigDict(extra="forbid")

    label: Label
    score: float = Field(ge=0, le=1)
    title: str = Field(min_length=1, max_length=40)
    description: str | None = None
    evidence: list[Evidence] = Field(max_length=3)


GOOD = {
    "label": "spam",
    "score": 0.8,
    "title": "buy now",
    "description": None,
    "evidence": [{"quote": "cheap pills", "weight": 4}],
}
OFFLINE_ANSWER = ("offline", Label.HAM)
MESSAGES = [{"role": "system", "content": "judge"}, {"role": "user", "content": "<text>hi</text>"}]


def fallback_count() -> int:
    from persona_rails.observability import metrics

    return len(metrics.provider.metric_set.get(FALLBACK_METRIC, {}).get("Value", []))


@pytest.fixture(autouse=True)
def clean_metrics():
    from persona_rails.observability import metrics

    metrics.clear_metrics()
    yield
    metrics.clear_metrics()


def step(settings: LlmSettings, **overrides: Any) -> StepResult[tuple[str, Label]]:
    arguments: dict[str, Any] = {
        "name": "moderation_judgement",
        "messages": lambda: MESSAGES,
        "reply_model": Judgement,
        "from_reply": lambda reply: ("llm", reply.label),
        "offline": lambda: OFFLINE_ANSWER,
        **overrides,
    }
    return run_step(settings, **arguments)


def walk(node: Any) -> list[dict[str, Any]]:
    """Every JSON object in a schema, depth first."""
    if isinstance(node, list):
        return [found for item in node for found in walk(item)]
    if not isinstance(node, dict):
        return []
    return [node, *(found for value in node.values() for found in walk(value))]


# -- a valid reply ----------------------------------------------------------------------------------


def test_a_valid_reply_is_the_answer_and_carries_what_a_record_stores(fake_openai: FakeOpenAI):
    # Odd spacing on purpose: the raw reply is kept exactly as received.
    raw = '{"label":"spam",  "score": 0.8, "title": "buy now", "description": null,\n "evidence": [{"quote": "cheap pills", "weight": 4}]}'
    fake_openai.script(Completion(raw, model="served-model-2026-01-01"))

    result = step(LlmSettings.from_env())

    assert result.answer == ("llm", Label.SPAM)
    assert result.source is Source.LLM
    assert result.model == "served-model-2026-01-01"  # what answered, not what was asked for
    assert result.fallback_reason is None
    assert result.raw_reply == raw
    assert isinstance(result.latency_ms, int)
    assert 0 <= result.latency_ms < 5000
    assert fallback_count() == 0
    assert len(fake_openai.requests) == 1


def test_the_request_carries_the_strict_schema_generated_from_the_reply_model(fake_openai: FakeOpenAI):
    fake_openai.script(json_content(GOOD))

    step(LlmSettings.from_env(), max_tokens=123)

    body = fake_openai.last_request.body
    assert body["model"] == FAKE_MODEL
    assert body["messages"] == MESSAGES
    assert (body["temperature"], body["max_tokens"]) == (0, 123)
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {
            "name": "moderation_judgement",
            "schema": strict_json_schema(Judgement),
            "strict": True,
        },
    }
    schema = body["response_format"]["json_schema"]["schema"]
    # Derived from the model: its fields, all required (strict mode), nothing else allowed.
    assert list(schema["properties"]) == list(Judgement.model_fields)
    assert schema["required"] == list(Judgement.model_fields)
    assert schema["additionalProperties"] is False
    assert schema["properties"]["label"]["enum"] == ["spam", "ham"]
    assert schema["properties"]["score"] == {"type": "number"}
    assert schema["properties"]["title"] == {"type": "string"}
    assert schema["properties"]["description"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    # The nested model is inlined, and strict too.
    evidence = schema["properties"]["evidence"]["items"]
    assert evidence == {
        "type": "object",
        "properties": {"quote": {"type": "string"}, "weight": {"type": "integer"}},
        "required": ["quote", "weight"],
        "additionalProperties": False,
    }
    # Keywords strict mode refuses are left to our own validation of the reply.
    refused = {"$ref", "$defs", "minimum", "maximum", "maxLength", "minLength", "maxItems", "default"}
    for node in walk(schema):
        if node is schema["properties"] or node is evidence["properties"]:
            continue  # property names, not keywords
        assert not refused & set(node), node
        assert "title" not in node, node
        assert "description" not in node, node


def test_another_reply_model_sends_its_own_schema(fake_openai: FakeOpenAI):
    class Insight(BaseModel):
        insight: str = Field(max_length=60)

    fake_openai.script(json_content({"insight": "少刷一点"}))

    result = run_step(
        LlmSettings.from_env(),
        name="weekly_insight",
        messages=lambda: MESSAGES,
        reply_model=Insight,
        from_reply=lambda reply: reply.insight,
        offline=lambda: "template",
    )

    assert (result.source, result.answer) == (Source.LLM, "少刷一点")
    sent = fake_openai.last_request.body["response_format"]["json_schema"]
    assert sent["name"] == "weekly_insight"
    assert sent["schema"] == {
        "type": "object",
        "properties": {"insight": {"type": "string"}},
        "required": ["insight"],
        "additionalProperties": False,
    }


# -- any fault falls back ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("behaviour", "reason"),
    [
        pytest.param(server_error(502), "server_error", id="502"),
        pytest.param(rate_limited(), "rate_limited", id="429"),
        pytest.param(Completion("I think it is spam."), "malformed", id="prose"),
        pytest.param(json_content({**GOOD, "score": 1.5}), "out_of_range", id="score-1.5"),
        pytest.param(
            json_content({**GOOD, "evidence": [{"quote": "x", "weight": 9}]}),
            "out_of_range",
            id="nested-range",
        ),
        pytest.param(json_content({**GOOD, "title": "x" * 41}), "out_of_range", id="title-too-long"),
        pytest.param(Completion(None, refusal="no"), "refused", id="refusal"),
        pytest.param(Disconnect(), "connection", id="reset"),
        pytest.param(Delay(30, then=json_content(GOOD)), "timeout", id="timeout"),
    ],
)
def test_a_fault_answers_offline_says_why_and_counts_the_fallback(
    fake_openai: FakeOpenAI, logs, behaviour: Behaviour, reason: str
):
    fake_openai.script(behaviour)

    result = step(LlmSettings.from_env())

    assert result.answer == OFFLINE_ANSWER
    assert result.source is Source.OFFLINE
    assert (result.model, result.fallback_reason, result.raw_reply) == (None, reason, None)
    assert result.latency_ms >= 0
    if reason == "timeout":
        assert result.latency_ms >= FAKE_TIMEOUT_SECONDS * 1000 * 0.9
    assert fallback_count() == 1
    assert len(fake_openai.requests) == 1  # no retry
    warnings = [json.loads(line) for line in logs.getvalue().splitlines() if line.strip()]
    assert [(w["level"], w["step"], w["fallback_reason"]) for w in warnings] == [
        ("WARNING", "moderation_judgement", reason)
    ]


@pytest.mark.parametrize(
    ("refusal", "reason"),
    [(ValueError("not for this engine"), "rejected"), (LlmFault("off_topic"), "off_topic")],
)
def test_a_reply_the_engine_refuses_falls_back_too(fake_openai: FakeOpenAI, refusal: Exception, reason: str):
    fake_openai.script(json_content(GOOD))

    def refuse(_: Judgement) -> tuple[str, Label]:
        raise refusal

    result = step(LlmSettings.from_env(), from_reply=refuse)

    assert (result.source, result.answer, result.fallback_reason) == (Source.OFFLINE, OFFLINE_ANSWER, reason)
    assert (result.model, result.raw_reply) == (None, None)
    assert fallback_count() == 1


def test_fallbacks_are_counted_each_time(fake_openai: FakeOpenAI):
    fake_openai.script(server_error(), json_content(GOOD), server_error())

    sources = [step(LlmSettings.from_env()).source for _ in range(3)]

    assert sources == [Source.OFFLINE, Source.LLM, Source.OFFLINE]
    assert fallback_count() == 2


def test_without_configuration_no_call_is_made_and_nothing_is_a_fault(fake_openai: FakeOpenAI):
    def no_prompt() -> list[dict[str, str]]:
        raise AssertionError("the prompt is not built when no LLM is configured")

    result = step(LlmSettings(), messages=no_prompt)

    assert result.answer == OFFLINE_ANSWER
    assert (result.source, result.model, result.fallback_reason, result.raw_reply) == (
        Source.OFFLINE,
        None,
        None,
        None,
    )
    assert fake_openai.requests == []
    assert fallback_count() == 0


# -- the offline path never imports openai -----------------------------------------------------------

_OFFLINE_PROBE = """
import json, sys
from pydantic import BaseModel
from persona_rails.llm import run_step
from persona_rails.settings import LlmSettings

class Reply(BaseModel):
    answer: str

def once(settings):
    result = run_step(settings, name="probe", messages=lambda: [{"role": "user", "content": "x"}],
                      reply_model=Reply, from_reply=lambda r: r.answer, offline=lambda: "offline")
    return {"source": str(result.source), "reason": result.fallback_reason, "openai": "openai" in sys.modules}

report = {"import": "openai" in sys.modules, "offline": once(LlmSettings())}
if sys.argv[1] == "with-control":
    # Configured, against a closed port on this machine: the SDK is imported and the call fails.
    report["control"] = once(LlmSettings.model_validate({
        "OPENAI_API_KEY": "k", "PERSONA_RAILS_LLM_MODEL": "m", "OPENAI_BASE_URL": "http://127.0.0.1:1/v1",
        "PERSONA_RAILS_LLM_TIMEOUT_SECONDS": 2}))
print(json.dumps(report))
"""


def test_the_offline_path_never_imports_openai():
    # No LLM configured and no proxy variables: the SDK, when used, must reach 127.0.0.1 directly.
    result = run_python(_OFFLINE_PROBE, "with-control", env=layer_only_env(SHARED))

    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["import"] is False
    assert report["offline"] == {"source": "offline", "reason": None, "openai": False}
    # The probe does see the SDK when a call is attempted, so the False above means something.
    assert report["control"] == {"source": "offline", "reason": "connection", "openai": True}
