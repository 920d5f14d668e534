"""Read template.yaml, the single source of truth for functions, handlers, routes and schedules.

`PERSONA_RAILS_TEMPLATE` points the tooling at another template (a copy with one more function,
say); every path in it is relative to that template's folder, as SAM reads it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
TEMPLATE_VARIABLE = "PERSONA_RAILS_TEMPLATE"
# Lambda's defaults when neither Globals nor the function sets them.
DEFAULT_TIMEOUT_SECONDS = 3
DEFAULT_MEMORY_MB = 128


def template_path() -> Path:
    return Path(os.environ.get(TEMPLATE_VARIABLE) or REPO_ROOT / "template.yaml").resolve()


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

    def match_path(self, path: str) -> dict[str, str] | None:
        pattern = "^" + re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(self.path)) + "$"
        found = re.match(pattern, path)
        return found.groupdict() if found else None

    def match(self, method: str, path: str) -> dict[str, str] | None:
        if method.upper() != self.method:
            return None
        return self.match_path(path)


@dataclass(frozen=True)
class Cors:
    """An HttpApi's CorsConfiguration, as API Gateway applies it."""

    allow_origins: tuple[str, ...] = ()
    allow_methods: tuple[str, ...] = ()
    allow_headers: tuple[str, ...] = ()
    expose_headers: tuple[str, ...] = ()
    max_age: int | None = None
    allow_credentials: bool = False


@dataclass(frozen=True)
class Function:
    logical_id: str
    handler: str
    code_uri: Path
    layer_paths: tuple[Path, ...]
    environment: dict[str, Any]
    routes: tuple[Route, ...] = ()
    schedules: tuple[dict[str, Any], ...] = field(default_factory=tuple)
    timeout_seconds: int = DEFAULT_TIMEOUT_SECONDS
    memory_mb: int = DEFAULT_MEMORY_MB

    @property
    def module(self) -> str:
        return self.handler.rsplit(".", 1)[0]

    @property
    def attribute(self) -> str:
        return self.handler.rsplit(".", 1)[1]

    @property
    def package(self) -> str:
        return self.module.split(".")[0]

    @property
    def kebab_name(self) -> str:
        """InterceptSessionFunction -> intercept-session: the name of its events/ and docs/openapi/ files."""
        base = self.logical_id.removesuffix("Function")
        return re.sub(r"(?<=[a-z0-9])([A-Z])", r"-\1", base).lower()

    @property
    def snake_name(self) -> str:
        return self.kebab_name.replace("-", "_")


@cache
def _load(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = yaml.load(path.read_text(encoding="utf-8"), Loader=_CfnLoader)  # noqa: S506
    return document


def load_template(path: Path | None = None) -> dict[str, Any]:
    return _load(path or template_path())


def forget_loaded() -> None:
    """Drop the templates read so far: the next read sees a file just rewritten (`rails template`)."""
    _load.cache_clear()


def functions(path: Path | None = None) -> dict[str, Function]:
    path = path or template_path()
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
            timeout_seconds=int(props.get("Timeout", globals_.get("Timeout", DEFAULT_TIMEOUT_SECONDS))),
            memory_mb=int(props.get("MemorySize", globals_.get("MemorySize", DEFAULT_MEMORY_MB))),
        )
    return found


def parameter_defaults(path: Path | None = None) -> dict[str, str]:
    parameters: dict[str, Any] = load_template(path).get("Parameters", {})
    return {name: str(spec["Default"]) for name, spec in parameters.items() if "Default" in spec}


def literal_environment(function: Function) -> dict[str, str]:
    """The plain-string variables of a function (parameters and intrinsics are left to the caller)."""
    return {name: value for name, value in function.environment.items() if isinstance(value, str)}


def resolved_environment(function: Function, path: Path | None = None) -> dict[str, str]:
    """The function's variables as a deployment with every parameter left at its default sees them.

    A `!Ref` to a parameter takes the parameter's default; a parameter without one, or any other
    intrinsic, leaves the variable out (the local stack supplies those, e.g. DATABASE_URL).
    """
    defaults = parameter_defaults(path)
    resolved = {}
    for name, value in function.environment.items():
        if isinstance(value, str):
            resolved[name] = value
        elif isinstance(value, dict) and set(value) == {"Ref"} and value["Ref"] in defaults:
            resolved[name] = defaults[value["Ref"]]
    return resolved


def http_api_cors(path: Path | None = None) -> Cors | None:
    resources: dict[str, Any] = load_template(path)["Resources"]
    for resource in resources.values():
        if resource["Type"] != "AWS::Serverless::HttpApi":
            continue
        config = resource.get("Properties", {}).get("CorsConfiguration")
        if not isinstance(config, dict):
            return None
        return Cors(
            allow_origins=tuple(config.get("AllowOrigins", ())),
            allow_methods=tuple(method.upper() for method in config.get("AllowMethods", ())),
            allow_headers=tuple(header.lower() for header in config.get("AllowHeaders", ())),
            expose_headers=tuple(header.lower() for header in config.get("ExposeHeaders", ())),
            max_age=int(config["MaxAge"]) if "MaxAge" in config else None,
            allow_credentials=bool(config.get("AllowCredentials", False)),
        )
    return None


def layer_paths(path: Path | None = None) -> list[Path]:
    path = path or template_path()
    resources: dict[str, Any] = load_template(path)["Resources"]
    return [
        path.parent / resource["Properties"]["ContentUri"]
        for resource in resources.values()
        if resource["Type"] == "AWS::Serverless::LayerVersion"
    ]
