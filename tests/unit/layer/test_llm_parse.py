"""parse_reply: a reply that is not the schema's shape is `malformed`; the right shape with a value
outside its allowed range is `out_of_range`. Pure: no client, no network."""

from __future__ import annotations

import json
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

from intercept_session.engine.model import Category, Verdict
from intercept_session.engine.turn import LlmVerdict
from persona_rails.llm.structured import LlmFault, parse_reply

VALID: dict[str, Any] = {
    "reason_category": "work",
    "verdict": "delay",
    "confidence": 0.75,
    "justification": "work need without a time",
}


def with_(**changes: Any) -> str:
    return json.dumps({**VALID, **changes})


def without(name: str) -> str:
    return json.dumps({key: value for key, value in VALID.items() if key != name})


def fault_of(content: str | None, schema: type[BaseModel] = LlmVerdict) -> str:
    with pytest.raises(LlmFault) as caught:
        parse_reply(content, schema)
    return caught.value.reason


def test_a_valid_reply_parses_into_the_schema():
    parsed = parse_reply(json.dumps(VALID), LlmVerdict)

    assert parsed == LlmVerdict(
        reason_category=Category.WORK,
        verdict=Verdict.DELAY,
        confidence=0.75,
        justification="work need without a time",
    )


@pytest.mark.parametrize("confidence", [0, 1, 0.0, 1.0])
def test_confidence_bounds_are_inclusive(confidence: float):
    assert parse_reply(with_(confidence=confidence), LlmVerdict).confidence == confidence


def test_justification_at_the_limit_is_accepted():
    assert len(parse_reply(with_(justification="x" * 300), LlmVerdict).justification) == 300


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(None, id="none"),
        pytest.param("", id="empty"),
        pytest.param("The verdict is allow.", id="prose"),
        pytest.param('{"verdict": "allow"', id="truncated-json"),
        pytest.param("```json\n" + json.dumps(VALID) + "\n```", id="fenced-json"),
        pytest.param("[]", id="list"),
        pytest.param("null", id="null"),
        pytest.param('"allow"', id="bare-string"),
        pytest.param("0.9", id="bare-number"),
        pytest.param(without("justification"), id="missing-justification"),
        pytest.param(without("verdict"), id="missing-verdict"),
        pytest.param(with_(extra="field"), id="extra-field"),
        pytest.param(with_(confidence="high"), id="confidence-not-a-number"),
        pytest.param(with_(confidence=None), id="confidence-null"),
        pytest.param(with_(justification=42), id="justification-a-number"),
        # A value of the wrong JSON type is a shape error even where the field is an enum.
        pytest.param(with_(verdict=None), id="verdict-null"),
        pytest.param(with_(verdict=1), id="verdict-a-number"),
        pytest.param(with_(verdict=["allow"]), id="verdict-a-list"),
        pytest.param(with_(reason_category={"work": True}), id="category-an-object"),
        # A shape error wins over a range error in the same reply: the reply is not the schema's.
        pytest.param(json.dumps({"verdict": "maybe", "confidence": 1.7}), id="missing-and-out-of-range"),
        # Valid JSON that PostgreSQL text cannot store: saving the turn would fail.
        pytest.param(with_(justification="boss\u0000asked"), id="nul-in-a-string"),
    ],
)
def test_shape_errors_are_malformed(content: str | None):
    assert fault_of(content) == "malformed"


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(with_(confidence=1.7), id="confidence-above-1"),
        pytest.param(with_(confidence=-0.1), id="confidence-below-0"),
        pytest.param(with_(confidence=1.0001), id="confidence-just-above-1"),
        pytest.param(with_(verdict="maybe"), id="unknown-verdict"),
        pytest.param(with_(verdict="ALLOW"), id="verdict-wrong-case"),
        pytest.param(with_(reason_category="sports"), id="unknown-category"),
        pytest.param(with_(justification="x" * 301), id="justification-too-long"),
        pytest.param(with_(verdict="maybe", confidence=2), id="two-range-errors"),
    ],
)
def test_range_errors_are_out_of_range(content: str):
    assert fault_of(content) == "out_of_range"


class _Choice(BaseModel):
    pick: Literal["a", "b"]
    score: int = Field(gt=0, lt=10)


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ({"pick": "c", "score": 5}, "out_of_range"),
        ({"pick": "a", "score": 0}, "out_of_range"),
        ({"pick": "a", "score": 10}, "out_of_range"),
        ({"pick": "a", "score": "many"}, "malformed"),
        ({"pick": "a"}, "malformed"),
    ],
)
def test_classification_holds_for_any_schema(payload: dict[str, Any], reason: str):
    assert fault_of(json.dumps(payload), _Choice) == reason


def test_the_fault_names_what_was_wrong():
    with pytest.raises(LlmFault, match=r"^out_of_range: less_than_equal$"):
        parse_reply(with_(confidence=1.7), LlmVerdict)
    with pytest.raises(LlmFault, match=r"^malformed: not JSON$"):
        parse_reply("nope", LlmVerdict)


class _Unbounded(BaseModel):
    urgency: float
    scores: list[float] = []


@pytest.mark.parametrize(
    "content",
    [
        '{"urgency": NaN}',
        '{"urgency": Infinity}',
        '{"urgency": -Infinity}',
        '{"urgency": 1e999}',
        '{"urgency": 0.5, "scores": [0.1, NaN]}',
    ],
)
def test_a_non_finite_number_is_malformed_even_where_the_schema_sets_no_bound(content: str):
    # Clamped to [0, 1], Infinity would have been an urgency of 1.0 and NaN one of 0.
    with pytest.raises(LlmFault, match=r"^malformed: non-finite number$"):
        parse_reply(content, _Unbounded)


@pytest.mark.parametrize("number", ["NaN", "Infinity"])
def test_a_non_finite_confidence_is_outside_its_bounds(number: str):
    assert fault_of(with_(confidence=0.5).replace("0.5", number)) == "out_of_range"
