"""`rails weekly` and `rails summaries`: WeeklySummaryFunction's job and its output, locally."""

from __future__ import annotations

import argparse
import json
from typing import Any

from persona_rails_dev import local_env
from persona_rails_dev.arguments import user_id
from persona_rails_dev.template import Function


def _weekly(args: argparse.Namespace) -> int:
    from persona_rails_dev.lambda_runtime import apply_environment
    from persona_rails_dev.weekly import run_weekly_locally

    apply_environment(args.function)  # before the layer's logger reads its service name
    local_env.prepare(seed=True)
    report = run_weekly_locally(args.function, week=args.week, user_id=args.user, now=args.now)
    print(json.dumps(report, ensure_ascii=False, indent=2))
    return 0


def _summaries(args: argparse.Namespace) -> int:
    local_env.prepare(seed=True)
    from persona_rails_dev.weekly import read_summaries

    for row in read_summaries(args.sub):
        print(json.dumps(row, ensure_ascii=False, indent=2, default=str))
    return 0


def register(commands: Any, function: Function) -> None:
    weekly = commands.add_parser(
        "weekly", help=f"run {function.logical_id}'s job against the local database, with a progress bar"
    )
    weekly.add_argument("--week", help="backfill this ISO week (2026-W47) or the week of a date")
    weekly.add_argument("--user", type=user_id, help="only this user id")
    weekly.add_argument("--now", help="scheduled mode: pretend the scheduler ticked at this ISO time")
    weekly.set_defaults(run=_weekly, function=function)

    summaries = commands.add_parser("summaries", help="print a user's weekly summaries, read under RLS")
    summaries.add_argument("--sub", type=user_id, default=local_env.DEV_USER_ID)
    summaries.set_defaults(run=_summaries)
