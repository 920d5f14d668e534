"""The strict JSON schema that OpenAI's structured outputs accept, generated from a pydantic model.

Strict mode wants every property required, `additionalProperties: false` on every object, and
refuses length and range keywords (`maxLength`, `minimum` ...) with a 400 on every call; older
models refuse `minimum`/`maximum` too. So the model keeps those constraints and checks them on
our side (`parse_reply`), and the schema sent carries types, enums and structure only.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import BaseModel

_REFUSED = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "maxLength",
        "minLength",
        "maximum",
        "minimum",
        "exclusiveMaximum",
        "exclusiveMinimum",
        "multipleOf",
        "pattern",
        "format",
        "maxItems",
        "minItems",
        "uniqueItems",
    }
)


def _strict(node: Any, definitions: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_strict(item, definitions) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return _strict(definitions[node["$ref"].rsplit("/", 1)[-1]], definitions)
    strict = {key: _strict(value, definitions) for key, value in node.items() if key not in _REFUSED}
    if strict.get("type") == "object" and "properties" in strict:
        strict["properties"] = {
            name: _strict(schema, definitions) for name, schema in node["properties"].items()
        }
        strict["required"] = list(strict["properties"])
        strict["additionalProperties"] = False
    return strict


@cache
def strict_json_schema(model: type[BaseModel]) -> dict[str, Any]:
    document = model.model_json_schema()
    definitions = document.pop("$defs", {})
    schema: dict[str, Any] = _strict(document, definitions)
    return schema
