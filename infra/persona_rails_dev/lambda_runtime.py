"""Load a handler the way Lambda does, and give it a Lambda context.

Lambda puts the function's code (CodeUri) and each layer's content on sys.path; nothing is
installed as a package. We do the same, so an import that would fail in Lambda fails here.
"""

from __future__ import annotations

import importlib
import os
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from persona_rails_dev.template import Function, literal_environment

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


@dataclass
class LambdaContext:
    function_name: str
    memory_limit_in_mb: int = 512
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    log_group_name: str = "/aws/lambda/local"
    log_stream_name: str = "local"

    @property
    def invoked_function_arn(self) -> str:
        return f"arn:aws:lambda:local:000000000000:function:{self.function_name}"

    def get_remaining_time_in_millis(self) -> int:
        return 10_000
