"""Read template.yaml, the single source of truth for functions, handlers, routes and schedules."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
TEMPLATE_PATH = REPO_ROOT / "template.yaml"


class _CfnLoader(yaml.SafeLoader):
    """YAML with CloudFormation's short-form intrinsics (!Ref, !Sub, !If ...) kept as plain data."""


def _intrinsic(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    name = "Ref" if suffix == "Ref" else f"Fn::{suffix}"
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    return {name: value}


_CfnLoader.add_multi_constructor("!", _intrinsic)


@dataclass(frozen=True)
class Route:
    method: str
    path: str

    @property
    def route_key(self) -> str:
        return f"{self.method} {self.path}"

    def match(self, method: str, path: str) -> dict[str, str] | None:
        if method.upper() != self.method:
            return None
        pattern = "^" + re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(self.path)) + "$"
        found = re.match(pattern, path)
        return found.groupdict() if found else None


@dataclass(frozen=True)
class Function:
    logical_id: str
    handler: str
    code_uri: Path
    layer_paths: tuple[Path, ...]
    environment: dict[str, Any]
    routes: tuple[Route, ...] = ()
    schedules: tuple[dict[str, Any], ...] = field(default_factory=tuple)

    @property
    def module(self) -> str:
        return self.handler.rsplit(".", 1)[0]

    @property
    def attribute(self) -> str:
        return self.handler.rsplit(".", 1)[1]


@cache
def load_template(path: Path = TEMPLATE_PATH) -> dict[str, Any]:
    document: dict[str, Any] = yaml.load(path.read_text(encoding="utf-8"), Loader=_CfnLoader)  # noqa: S506
    return document


def functions(path: Path = TEMPLATE_PATH) -> dict[str, Function]:
    document = load_template(path)
    resources: dict[str, Any] = document["Resources"]
    globals_ = document.get("Globals", {}).get("Function", {})
    found = {}
    for logical_id, resource in resources.items():
        if resource["Type"] != "AWS::Serverless::Function":
            continue
        props = resource["Properties"]
        layers = props.get("Layers", globals_.get("Layers", []))
        layer_paths = tuple(
            path.parent / resources[layer["Ref"]]["Properties"]["ContentUri"]
            for layer in layers
            if isinstance(layer, dict) and "Ref" in layer
        )
        environment = {
            **globals_.get("Environment", {}).get("Variables", {}),
            **props.get("Environment", {}).get("Variables", {}),
        }
        events = props.get("Events", {}).values()
        routes = tuple(
            Route(event["Properties"]["Method"].upper(), event["Properties"]["Path"])
            for event in events
            if event["Type"] == "HttpApi"
        )
        schedules = tuple(
            event["Properties"] for event in events if event["Type"] in {"ScheduleV2", "Schedule"}
        )
        found[logical_id] = Function(
            logical_id=logical_id,
            handler=props["Handler"],
            code_uri=path.parent / props["CodeUri"],
            layer_paths=layer_paths,
            environment=environment,
            routes=routes,
            schedules=schedules,
        )
    return found


def literal_environment(function: Function) -> dict[str, str]:
    """The plain-string variables of a function (parameters and intrinsics are left to the caller)."""
    return {name: value for name, value in function.environment.items() if isinstance(value, str)}


def layer_paths(path: Path = TEMPLATE_PATH) -> list[Path]:
    resources: dict[str, Any] = load_template(path)["Resources"]
    return [
        path.parent / resource["Properties"]["ContentUri"]
        for resource in resources.values()
        if resource["Type"] == "AWS::Serverless::LayerVersion"
    ]
