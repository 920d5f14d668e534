"""`rails demo`: InterceptSessionFunction's dialogs against a running local API."""

from __future__ import annotations

import argparse
from typing import Any

from persona_rails_dev.hooks import SmokeStep
from persona_rails_dev.template import Function

# `rails smoke`'s dialog against a deployed API (persona_rails_dev.smoke).
SMOKE = (
    SmokeStep("intercept-session/start.json", (200, 201), keeps="session_id"),
    SmokeStep("intercept-session/reason.json", (200, 409)),
    SmokeStep("intercept-session/decision.json", (200, 409)),
    SmokeStep("intercept-session/get.json", (200,)),
)


def demo(base_url: str, print_fn: Any = print) -> None:
    from persona_rails_dev.demo import run_demo

    run_demo(base_url, print_fn=print_fn)


def _demo_command(args: argparse.Namespace) -> int:
    from persona_rails_dev.demo import run_demo, run_varied_dialogs

    if args.dialogs > 1:
        run_varied_dialogs(args.url, args.dialogs)
    else:
        run_demo(args.url)
    return 0


def register(commands: Any, function: Function) -> None:
    command = commands.add_parser(
        "demo", help=f"run interception dialogs against a running local API ({function.logical_id})"
    )
    command.add_argument("--url", default="http://127.0.0.1:3000")
    command.add_argument(
        "--dialogs", type=int, default=1, help="run N varied dialogs (reasons, personas, choices)"
    )
    command.set_defaults(run=_demo_command)
