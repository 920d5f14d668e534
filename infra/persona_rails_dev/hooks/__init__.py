"""Per-function commands for `rails`, found by convention rather than listed in the CLI.

For a function `FooBarFunction` in template.yaml, the module `persona_rails_dev.hooks.foo_bar`,
when it exists, may define:

- `register(commands, function)`: add subcommands to `rails` (an argparse subparsers object);
  each sets `run=callable(args) -> exit status`;
- `demo(base_url, print_fn)`: what `rails serve --demo` runs against the served API.

A function without a hook module is still served, invokable and tested; it just adds no commands.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from persona_rails_dev.template import Function


def hook_for(function: Function) -> ModuleType | None:
    name = f"{__name__}.{function.snake_name}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            return None
        raise
