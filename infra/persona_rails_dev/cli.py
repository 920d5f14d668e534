"""`rails`: the local stack for Persona Rails, driven by template.yaml.

rails serve [--port 3000] [--demo]   every HTTP function on one port (embedded Postgres by default)
rails invoke FUNCTION -e EVENT.json  one function, one event, as `sam local invoke` would
rails token [--sub UUID]             a development JWT for the local stack
rails db [--seed] [--stop]           start the embedded Postgres and apply migrations (or stop it)
rails demo [--url URL] [--dialogs N] run dialogs against a running local API
rails weekly [--week 2026-W47]       run WeeklySummaryFunction's job with a progress bar
rails summaries [--sub UUID]         read a user's weekly summaries as that user (RLS applies)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import uuid
from pathlib import Path

from persona_rails_dev import local_env
from persona_rails_dev.template import functions


def _serve(args: argparse.Namespace) -> int:
    if not args.verbose:
        # Keep the terminal readable: JSON logs at WARNING, no EMF lines. --verbose shows both.
        os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
        os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
    local_env.prepare(seed=True)
    from persona_rails_dev.server import make_server, mount, serve_in_background

    mounted = mount(functions().values())
    try:
        server = make_server(mounted, args.host, args.port)
    except OSError as exc:
        print(
            f"cannot listen on {args.host}:{args.port}: {exc.strerror}. "
            f"Pick another port: PORT=3001 make dev, or rails serve --port 3001",
            file=sys.stderr,
        )
        return 2
    base_url = f"http://{args.host}:{server.server_port}"
    print(f"Persona Rails local API on {base_url}")
    for entry in mounted:
        print(f"  {entry.route.method:5} {entry.route.path:45} -> {entry.function.logical_id}")
    thread = serve_in_background(server)
    if args.demo:
        from persona_rails_dev.demo import run_demo

        run_demo(base_url)
        print(f"\nDialog completed end to end. Still serving on {base_url} (Ctrl-C to stop).")
        print(f"Mint a token with: rails token   (user {local_env.DEV_USER_ID})")
    if args.exit_after_demo:
        server.shutdown()
        return 0
    try:
        thread.join()
    except KeyboardInterrupt:
        server.shutdown()
    return 0


def _invoke(args: argparse.Namespace) -> int:
    from persona_rails_dev.lambda_runtime import LambdaContext, apply_environment, load_handler

    declared = functions()
    if args.function not in declared:
        print(
            f"unknown function {args.function}; template.yaml declares: {', '.join(declared)}",
            file=sys.stderr,
        )
        return 2
    # Before anything imports the layer: its logger reads the function's service name once.
    apply_environment(declared[args.function])
    local_env.prepare(seed=True)
    event = json.loads(Path(args.event).read_text(encoding="utf-8"))
    if args.fresh_token and "headers" in event:
        event["headers"]["authorization"] = f"Bearer {local_env.mint_token(args.sub)}"
    handler = load_handler(declared[args.function])
    result = handler(event, LambdaContext(args.function))
    print(json.dumps(result, ensure_ascii=False, indent=2))
    return 0


def _token(args: argparse.Namespace) -> int:
    if args.sub != local_env.DEV_USER_ID or args.create_user:
        local_env.ensure_user(local_env.prepare(seed=True), args.sub)
    print(local_env.mint_token(args.sub, ttl_seconds=args.ttl))
    return 0


def _db(args: argparse.Namespace) -> int:
    if args.stop:
        from persona_rails.db.embedded import stop_embedded_server

        stopped = stop_embedded_server(local_env.LOCAL_PGDATA)
        print("embedded PostgreSQL stopped" if stopped else "embedded PostgreSQL was not running")
        return 0
    print(local_env.prepare(seed=args.seed))
    return 0


def _demo(args: argparse.Namespace) -> int:
    from persona_rails_dev.demo import run_demo, run_varied_dialogs

    if args.dialogs > 1:
        run_varied_dialogs(args.url, args.dialogs)
    else:
        run_demo(args.url)
    return 0


def _weekly(args: argparse.Namespace) -> int:
    from persona_rails_dev.lambda_runtime import apply_environment
    from persona_rails_dev.weekly import FUNCTION, run_weekly_locally

    apply_environment(functions()[FUNCTION])  # before the layer's logger reads its service name
    local_env.prepare(seed=True)

    report = run_weekly_locally(week=args.week, user_id=args.user, now=args.now)
    print(json.dumps(report, ensure_ascii=False, indent=2))
    return 0


def _summaries(args: argparse.Namespace) -> int:
    local_env.prepare(seed=True)
    from persona_rails_dev.weekly import read_summaries

    for row in read_summaries(args.sub):
        print(json.dumps(row, ensure_ascii=False, indent=2, default=str))
    return 0


def _user_id(text: str) -> str:
    try:
        return str(uuid.UUID(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a user id (UUID)") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="rails", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="serve every HTTP function on one local port")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=int(os.environ.get("PORT", "3000")))
    serve.add_argument("--demo", action="store_true", help="run a complete dialog once the API is up")
    serve.add_argument("--verbose", action="store_true", help="print JSON logs and EMF metrics")
    serve.add_argument("--exit-after-demo", action="store_true", help=argparse.SUPPRESS)
    serve.set_defaults(run=_serve)

    invoke = commands.add_parser("invoke", help="invoke one function with an event file")
    invoke.add_argument("function", help="logical id in template.yaml, e.g. InterceptSessionFunction")
    invoke.add_argument("-e", "--event", required=True, help="API Gateway v2 or scheduled event JSON")
    invoke.add_argument("--fresh-token", action="store_true", help="replace the event's bearer token")
    invoke.add_argument("--sub", type=_user_id, default=local_env.DEV_USER_ID, help="user for --fresh-token")
    invoke.set_defaults(run=_invoke)

    token = commands.add_parser("token", help="mint a development JWT (HS256, local secret)")
    token.add_argument("--sub", type=_user_id, default=local_env.DEV_USER_ID)
    token.add_argument("--ttl", type=int, default=3600, help="seconds")
    token.add_argument("--create-user", action="store_true", help="also create the auth.users row")
    token.set_defaults(run=_token)

    db = commands.add_parser("db", help="start the embedded Postgres and apply migrations")
    db.add_argument("--seed", action="store_true", help="also load supabase/seed.sql")
    db.add_argument("--stop", action="store_true", help="stop the embedded PostgreSQL (its data stays)")
    db.set_defaults(run=_db)

    demo = commands.add_parser("demo", help="run a dialog against a running local API")
    demo.add_argument("--url", default="http://127.0.0.1:3000")
    demo.add_argument(
        "--dialogs", type=int, default=1, help="run N varied dialogs (reasons, personas, choices)"
    )
    demo.set_defaults(run=_demo)

    weekly = commands.add_parser("weekly", help="run the weekly summary job against the local database")
    weekly.add_argument("--week", help="backfill this ISO week (2026-W47) or the week of a date")
    weekly.add_argument("--user", type=_user_id, help="only this user id")
    weekly.add_argument("--now", help="scheduled mode: pretend the scheduler ticked at this ISO time")
    weekly.set_defaults(run=_weekly)

    summaries = commands.add_parser("summaries", help="print a user's weekly summaries, read under RLS")
    summaries.add_argument("--sub", type=_user_id, default=local_env.DEV_USER_ID)
    summaries.set_defaults(run=_summaries)

    args = parser.parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    raise SystemExit(main())
