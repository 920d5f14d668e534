"""Per-function commands for `rails`, found by convention rather than listed in the CLI.

For a function `FooBarFunction` in template.yaml, the module `persona_rails_dev.hooks.foo_bar`,
when it exists, may define:

- `register(commands, function)`: add subcommands to `rails` (an argparse subparsers object);
  each sets `run=callable(args) -> exit status`;
- `demo(base_url, print_fn)`: what `rails serve --demo` runs against the served API;
- `SMOKE`: the `SmokeStep`s of its `rails smoke` dialog, when sending its fixtures one by one
  is not enough (a start whose answer names what the next steps address).

A function without a hook module is still served, invokable, smoke-tested (each of its fixtures
whose route needs no id, expecting a 2xx) and tested; it just adds no commands.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

from persona_rails_dev.template import Function


@dataclass(frozen=True)
class SmokeStep:
    fixture: str  # events/<function>/<fixture>.json: method, route and body
    expect: tuple[int, ...]
    keeps: str | None = None  # the answer's field that names what the next steps address


def hook_for(function: Function) -> ModuleType | None:
    name = f"{__name__}.{function.snake_name}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            return None
        raise
