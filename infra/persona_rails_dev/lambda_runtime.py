"""Load a handler into this process the way Lambda does, for tests and benchmarks.

Lambda puts the function's code (CodeUri) and each layer's content on sys.path; nothing is
installed as a package. We do the same, so an import that would fail in Lambda fails here.
`rails serve` and `rails invoke` go further and give each function a process of its own
(workers.py); the test suite loads handlers here so it can watch logs and swap settings.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from typing import Any

from persona_rails_dev.template import Function, literal_environment
from persona_rails_dev.worker_main import LambdaContext

__all__ = ["Handler", "LambdaContext", "apply_environment", "load_handler", "put_on_path"]

Handler = Callable[[dict[str, Any], Any], Any]


def put_on_path(function: Function) -> None:
    for path in (str(function.code_uri), *(str(layer) for layer in function.layer_paths)):
        if path not in sys.path:
            sys.path.insert(0, path)


def apply_environment(function: Function) -> None:
    """Set the function's literal template variables that the caller has not set already."""
    for name, value in literal_environment(function).items():
        os.environ.setdefault(name, value)


def load_handler(function: Function) -> Handler:
    put_on_path(function)
    apply_environment(function)
    module = importlib.import_module(function.module)
    handler: Handler = getattr(module, function.attribute)
    return handler
