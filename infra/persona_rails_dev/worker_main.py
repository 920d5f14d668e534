"""The inside of a function's worker process: Lambda's runtime loop for one function.

`workers.py` runs this file by path (`runpy`, so its folder is not put on sys.path) with only the
function's CodeUri, the layer and site-packages on PYTHONPATH, the function's CodeUri as the
working directory and only the function's environment, so this file imports nothing from the
tooling. Requests arrive as JSON lines on stdin; replies leave as JSON lines on a private copy
of stdout, while the function's own stdout (logs, EMF metrics) is sent to stderr, the terminal.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import sys
import time
import traceback
import uuid
from dataclasses import dataclass, field
from typing import Any, TextIO


@dataclass
class LambdaContext:
    function_name: str
    memory_limit_in_mb: int = 512
    timeout_seconds: float = 10.0
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    log_group_name: str = "/aws/lambda/local"
    log_stream_name: str = "local"
    function_version: str = "$LATEST"
    _started: float = field(default_factory=time.monotonic)

    @property
    def invoked_function_arn(self) -> str:
        return f"arn:aws:lambda:local:000000000000:function:{self.function_name}"

    def get_remaining_time_in_millis(self) -> int:
        left = self.timeout_seconds - (time.monotonic() - self._started)
        return max(0, int(left * 1000))


def _error(exc: BaseException) -> dict[str, Any]:
    # Lambda's own shape for an unhandled exception.
    return {
        "errorType": type(exc).__name__,
        "errorMessage": str(exc),
        "stackTrace": traceback.format_exception(exc),
    }


def _context() -> LambdaContext:
    return LambdaContext(
        function_name=os.environ.get("AWS_LAMBDA_FUNCTION_NAME", "local"),
        memory_limit_in_mb=int(os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "512")),
        timeout_seconds=float(os.environ.get("AWS_LAMBDA_FUNCTION_TIMEOUT", "10")),
    )


def _answer(module: Any, handler: Any, request: dict[str, Any]) -> dict[str, Any]:
    if request["kind"] == "invoke":
        return {"result": handler(request["event"], _context())}
    if request["kind"] == "openapi":
        from persona_rails.http.openapi import document

        return {"result": document(module.app)}
    return {"error": {"errorType": "UnknownRequest", "errorMessage": str(request["kind"])}}


def _serve(replies: TextIO, module_name: str, attribute: str) -> int:
    try:
        module = importlib.import_module(module_name)
        handler = getattr(module, attribute)
    except BaseException as exc:  # noqa: BLE001 - an init failure is reported, as Lambda reports it
        replies.write(json.dumps({"init_error": _error(exc)}) + "\n")
        replies.flush()
        return 1
    replies.write(json.dumps({"ready": True}) + "\n")
    replies.flush()
    for line in sys.stdin:
        try:
            reply = _answer(module, handler, json.loads(line))
        except Exception as exc:  # noqa: BLE001 - the function's error goes back to the caller
            reply = {"error": _error(exc)}
        replies.write(json.dumps(reply, ensure_ascii=False, default=str) + "\n")
        replies.flush()
    return 0


def main() -> int:
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    # Lambda calls the handler on a thread that has an event loop, which Mangum expects.
    asyncio.set_event_loop(asyncio.new_event_loop())
    return _serve(replies, sys.argv[1], sys.argv[2])


if __name__ == "__main__":
    raise SystemExit(main())
