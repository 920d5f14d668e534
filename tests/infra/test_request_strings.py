"""Every string a request can carry goes through the bounded-text type, or a stricter one.

The walk covers every route of every function in template.yaml: its body (recursively, through
lists, dicts, unions and nested models), its query, path and header parameters, and those of its
dependencies. A `str` passes when it is `persona_rails.text.user_text` (normalized, no control
characters, bounded length), `PrintableText` with a maximum length, or constrained by a pattern
(`persona_rails.text.identifier` and ids). Anything else is how a NUL reached Postgres as a 500
(issue 24: `context.profile_version`)."""

from __future__ import annotations

import importlib
import types
import typing
from collections.abc import Iterator
from functools import partial
from typing import Any, Union

import annotated_types
import pytest
from fastapi.routing import APIRoute
from pydantic import AfterValidator, BaseModel
from pydantic.fields import FieldInfo

from persona_rails import text
from persona_rails_dev.template import functions

# Validators that refuse control characters and lone surrogates as user_text does, in one pass.
CHECKED_TEXT = {"_debate_text"}  # chair_interrupt.schemas: 50,000 characters checked by one regex
# Inline documents (SPS scenarios and personas) are validated by their own strict models, walked below.
DOCUMENTS = {"scenario", "persona"}
# The bearer token is verified (signature, claims) before anything reads it.
VERIFIED = {"authorization"}

HTTP_FUNCTIONS = [f for f in functions().values() if f.routes]


def _app(function: Any) -> Any:
    module_name, _, _ = function.handler.rpartition(".")
    return importlib.import_module(module_name).app


def _flat(metadata: list[Any]) -> Iterator[Any]:
    for item in metadata:
        yield item
        if isinstance(item, FieldInfo):  # Field(...), Header(...) inside Annotated
            yield from _flat(list(item.metadata))


def _acceptable(metadata: list[Any]) -> bool:
    metadata = list(_flat(metadata))
    validators = [m.func for m in metadata if isinstance(m, AfterValidator)]
    if any(isinstance(v, partial) and v.func is text._bounded for v in validators):
        return True
    has_max = any(isinstance(m, annotated_types.MaxLen) or getattr(m, "max_length", None) for m in metadata)
    if (text._normalized in validators or any(v.__name__ in CHECKED_TEXT for v in validators)) and has_max:
        return True
    return any(getattr(m, "pattern", None) for m in metadata)


def _strings(
    annotation: Any,
    metadata: list[Any],
    where: str,
    seen: set[type],
    skip: frozenset[str] | set[str] = frozenset(),
) -> Iterator[str]:
    """The paths of unacceptable `str`s inside `annotation` (fields named in `skip` left out)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        inner, *extra = typing.get_args(annotation)
        yield from _strings(inner, [*metadata, *extra], where, seen)
        return
    if annotation is str:
        if not _acceptable(metadata):
            yield where
        return
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if annotation in seen:
            return
        seen.add(annotation)
        for name, field in annotation.model_fields.items():
            if name not in skip:
                yield from _strings(field.annotation, list(field.metadata), f"{where}.{name}", seen, skip)
        return
    if origin in (Union, types.UnionType):
        # `Annotated[str | None, Field(max_length=…)]`: the constraints hold for the str inside.
        for argument in typing.get_args(annotation):
            if argument is not type(None):
                yield from _strings(argument, metadata, where, seen)
        return
    if origin in (list, tuple, set, frozenset, dict):
        for index, argument in enumerate(typing.get_args(annotation)):
            if argument is Ellipsis:
                continue
            # A dict's keys are strings a request carries too.
            yield from _strings(
                argument, [], f"{where}[{'key' if origin is dict and index == 0 else '*'}]", seen
            )


def _parameters(dependant: Any) -> Iterator[Any]:
    for kind in ("path_params", "query_params", "header_params", "cookie_params", "body_params"):
        yield from getattr(dependant, kind)
    for sub in dependant.dependencies:
        yield from _parameters(sub)


def _api_routes(routes: list[Any]) -> Iterator[APIRoute]:
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        # An included router (FastAPI keeps it whole since 0.13x) holds the routes themselves.
        original = getattr(route, "original_router", None)
        if original is not None:
            yield from _api_routes(original.routes)


def _unbounded(function: Any) -> list[str]:
    found = []
    routes = list(_api_routes(_app(function).routes))
    assert routes, f"{function.logical_id}: no route found to walk"
    for route in routes:
        for parameter in _parameters(route.dependant):
            info = parameter.field_info
            where = f"{sorted(route.methods)[0]} {route.path} {parameter.name}"
            if parameter.name in VERIFIED:
                continue
            found.extend(_strings(info.annotation, list(info.metadata), where, set(), skip=DOCUMENTS))
    return found


@pytest.mark.parametrize("function", HTTP_FUNCTIONS, ids=lambda f: f.logical_id)
def test_every_request_string_is_bounded_text_or_stricter(function):
    assert _unbounded(function) == []


@pytest.mark.integration
@pytest.mark.parametrize(
    ("where", "expected_field"),
    [
        ("answer", "scenario.subjective_catalog[0].answers[0]"),
        ("key", "scenario.demographics"),
        ("persona", "persona.label"),
    ],
)
@pytest.mark.parametrize("route", ["start", "validate"])
def test_an_inline_document_with_a_nul_anywhere_is_a_422_naming_it(api, users, where, expected_field, route):
    from tests.integration.sps_encounter.helpers import (
        ENCOUNTERS,
        VALIDATE,
        catalog_document,
        inline_scenario,
    )

    scenario = inline_scenario()
    body: dict[str, Any] = {"scenario": scenario, "seed": 1}
    if where == "answer":
        scenario["subjective_catalog"][0]["answers"][0] = "About three\u0000 weeks ago."
    elif where == "key":
        scenario["demographics"]["na\u0000me"] = "x"
    else:
        persona = catalog_document("personas", scenario["default_persona"])
        persona["label"] = "calm\u0000"
        body["persona"] = persona
    if route == "validate":
        body = {**body, "transcript": [{"turnIndex": 0, "role": "learner", "text": "hello"}]}
        del body["seed"]
    reply = api.post(VALIDATE if route == "validate" else ENCOUNTERS, users.create().token, body)
    assert reply.status == 422, reply.body
    assert reply.error["field"] == expected_field
    assert "control characters" in reply.error["message"]


def test_the_walk_finds_a_plain_str():
    class Probe(BaseModel):
        fine: text.user_text(1, 10)  # type: ignore[valid-type]
        loose: list[str]
        nested: dict[str, typing.Annotated[str, annotated_types.MaxLen(3)]]

    assert sorted(_strings(Probe, [], "body", set())) == [
        "body.loose[*]",
        "body.nested[*]",
        "body.nested[key]",
    ]
