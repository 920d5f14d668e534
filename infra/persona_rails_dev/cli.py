"""`rails`: the local stack for Persona Rails, driven by template.yaml.

rails serve [--port 3000] [--demo]   every HTTP function on one port, each in its own processes
rails invoke FUNCTION -e EVENT.json  one function, one event, in its own process, as `sam local invoke`
rails event EVENT.json               print a fixture as `rails invoke` sends it (a start's timestamp: today)
rails token [--sub UUID]             a development JWT for the local stack
rails db [--seed] [--stop]           start the embedded Postgres and apply migrations (or stop it)
rails replay FUNCTION ID... | --all  recompute stored decisions with no network: identical, or a diff
rails openapi [--check]              write (or check) docs/openapi/<function>.json
rails template [--check]             write (or check) each function's log group, alarms and dashboard lines
rails eval [JUDGE ...]               measure the judges on their held-back test sets (docs/judges.md)

Functions add their own commands through hooks (persona_rails_dev/hooks/<function>.py), e.g.
`rails demo`, `rails weekly`, `rails summaries`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from persona_rails_dev import event_fixtures, local_env
from persona_rails_dev.arguments import user_id, uuid_argument
from persona_rails_dev.hooks import hook_for
from persona_rails_dev.template import Function, functions

_QUIET = {"POWERTOOLS_LOG_LEVEL": "WARNING", "POWERTOOLS_METRICS_DISABLED": "true"}


def _env_vars_file(path: str | None) -> dict[str, dict[str, str]]:
    """SAM's --env-vars format: {"FunctionLogicalId": {...}, "Parameters": {...}} (all functions)."""
    if not path:
        return {}
    document = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(document, dict) or not all(isinstance(v, dict) for v in document.values()):
        raise SystemExit(f'{path}: expected {{"FunctionName": {{"VAR": "value"}}, "Parameters": {{...}}}}')
    return {name: {k: str(v) for k, v in values.items()} for name, values in document.items()}


def _overrides(function: Function, args: argparse.Namespace) -> dict[str, str]:
    overrides = {} if getattr(args, "verbose", True) else dict(_QUIET)
    env_vars = _env_vars_file(getattr(args, "env_vars", None))
    return {**overrides, **env_vars.get("Parameters", {}), **env_vars.get(function.logical_id, {})}


def _unknown_function(name: str, declared: dict[str, Function]) -> int:
    print(f"unknown function {name}; template.yaml declares: {', '.join(declared)}", file=sys.stderr)
    return 2


def _serve(args: argparse.Namespace) -> int:
    from persona_rails_dev.server import make_server, serve_in_background, worker_api
    from persona_rails_dev.template import http_api_cors
    from persona_rails_dev.workers import FunctionPool, WorkerError

    local_env.prepare(seed=True)
    api, pools = worker_api(
        functions().values(), lambda function: _overrides(function, args), args.instances, http_api_cors()
    )
    try:
        server = make_server(api, args.host, args.port)
    except OSError as exc:
        print(
            f"cannot listen on {args.host}:{args.port}: {exc.strerror}. "
            f"Pick another port: PORT=3001 make dev, or rails serve --port 3001",
            file=sys.stderr,
        )
        return 2

    def warm(pool: FunctionPool) -> str:
        started = time.monotonic()
        try:
            pool.warm()
        except WorkerError as exc:
            trace = "".join(exc.detail.get("stackTrace", []))
            return f"  {pool.function.logical_id}: FAILED to initialise (its routes answer 500)\n{trace}"
        return f"  {pool.function.logical_id}: ready in {time.monotonic() - started:.1f} s"

    with ThreadPoolExecutor(max_workers=max(1, len(pools))) as executor:
        for line in executor.map(warm, pools):
            print(line)
    base_url = f"http://{args.host}:{server.server_port}"
    print(f"Persona Rails local API on {base_url}")
    for entry in api.mounted:
        print(f"  {entry.route.method:5} {entry.route.path:45} -> {entry.function.logical_id}")
    print(f"  {'GET':5} {'/openapi/<function>.json':45} -> each function's OpenAPI document")
    thread = serve_in_background(server)
    try:
        if args.demo:
            for pool in pools:
                hook = hook_for(pool.function)
                if hook is not None and hasattr(hook, "demo"):
                    hook.demo(base_url)
            print(f"\nDialog completed end to end. Still serving on {base_url} (Ctrl-C to stop).")
            print(f"Mint a token with: rails token   (user {local_env.DEV_USER_ID})")
        if not args.exit_after_demo:
            thread.join()
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
        for pool in pools:
            pool.close()
    return 0


def _invoke(args: argparse.Namespace) -> int:
    from persona_rails_dev.workers import Worker, WorkerError, lambda_environment

    declared = functions()
    if args.function not in declared:
        return _unknown_function(args.function, declared)
    function = declared[args.function]
    local_env.prepare(seed=True)
    event = event_fixtures.load_event(args.event, refresh=not args.keep_timestamp)
    if args.fresh_token and "headers" in event:
        event["headers"]["authorization"] = f"Bearer {local_env.mint_token(args.sub)}"
    try:
        worker = Worker(function, lambda_environment(function, overrides=_overrides(function, args)))
        try:
            result = worker.request({"kind": "invoke", "event": event}, float(function.timeout_seconds))
        finally:
            worker.stop()
    except WorkerError as exc:
        print(json.dumps(exc.detail or {"errorMessage": str(exc)}, ensure_ascii=False, indent=2))
        return 1
    print(json.dumps(result, ensure_ascii=False, indent=2))
    return 0


def _event(args: argparse.Namespace) -> int:
    path = event_fixtures.fixture_path(args.event)
    if not path.is_file():
        print(f"no event file {args.event} (nor {path})", file=sys.stderr)
        return 2
    print(json.dumps(event_fixtures.load_event(path), ensure_ascii=False, indent=2))
    return 0


def _token(args: argparse.Namespace) -> int:
    if args.service_role:
        print(local_env.mint_service_token(ttl_seconds=args.ttl))
        return 0
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


def _db_check(args: argparse.Namespace) -> int:
    from persona_rails_dev import db_check

    # DATABASE_URL when set (a live project, as `postgres`), else the local embedded database.
    url = os.environ.get("DATABASE_URL") or local_env.prepare(seed=False)
    return db_check.run(url)


def _smoke(args: argparse.Namespace) -> int:
    from persona_rails_dev import smoke

    send = smoke.http_sender(args.url, args.token)
    user = smoke.token_subject(args.token)
    ok = smoke.run(send, user_id=user, rule_id=args.rule_id, app=args.app_identifier)
    return 0 if ok else 1


def _replay(args: argparse.Namespace) -> int:
    from persona_rails_dev.replay import replay

    declared = functions()
    if args.function not in declared:
        return _unknown_function(args.function, declared)
    if bool(args.ids) == args.all:
        print("name decision record ids, or --all", file=sys.stderr)
        return 2
    url = local_env.prepare(seed=False)
    return replay(declared[args.function], url, ["--all"] if args.all else args.ids)


def _openapi(args: argparse.Namespace) -> int:
    from persona_rails_dev import openapi_docs

    if args.check:
        outdated = openapi_docs.stale()
        for name in outdated:
            print(f"stale: {name} (run: rails openapi)", file=sys.stderr)
        return 1 if outdated else 0
    for path in openapi_docs.write_all():
        print(path)
    return 0


def _template(args: argparse.Namespace) -> int:
    from persona_rails_dev import template_ops

    return template_ops.main(check=args.check)


def _register_generators(commands: Any) -> None:
    """The commands that write checked-in files from the code and the template."""
    openapi = commands.add_parser("openapi", help="write docs/openapi/<function>.json from each app")
    openapi.add_argument("--check", action="store_true", help="exit 1 if a committed document is stale")
    openapi.set_defaults(run=_openapi)

    template = commands.add_parser(
        "template", help="write each function's log group, alarms and dashboard lines into template.yaml"
    )
    template.add_argument("--check", action="store_true", help="exit 1 if the generated part is stale")
    template.set_defaults(run=_template)


def _register_extensions(commands: Any) -> None:
    """`rails eval`, then each function's hook commands (persona_rails_dev/hooks)."""
    from persona_rails_dev.evaluate.command import register

    register(commands)
    for function in functions().values():
        hook = hook_for(function)
        if hook is not None and hasattr(hook, "register"):
            hook.register(commands, function)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rails", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="serve every HTTP function on one local port")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=int(os.environ.get("PORT", "3000")))
    serve.add_argument("--demo", action="store_true", help="run each function's demo once the API is up")
    serve.add_argument("--verbose", action="store_true", help="print JSON logs and EMF metrics")
    serve.add_argument("--instances", type=int, default=4, help="warm worker processes per function, at most")
    serve.add_argument("--env-vars", help="JSON file of variables per function, as for sam local")
    serve.add_argument("--exit-after-demo", action="store_true", help=argparse.SUPPRESS)
    serve.set_defaults(run=_serve)

    invoke = commands.add_parser("invoke", help="invoke one function with an event file")
    invoke.add_argument("function", help="logical id in template.yaml, e.g. InterceptSessionFunction")
    invoke.add_argument("-e", "--event", required=True, help="API Gateway v2 or scheduled event JSON")
    invoke.add_argument("--fresh-token", action="store_true", help="replace the event's bearer token")
    invoke.add_argument("--sub", type=user_id, default=local_env.DEV_USER_ID, help="user for --fresh-token")
    invoke.add_argument("--env-vars", help="JSON file of variables per function, as for sam local")
    invoke.add_argument(
        "--keep-timestamp",
        action="store_true",
        help="send the body's timestamp as stored (by default: its time and offset on the day nearest now)",
    )
    invoke.set_defaults(run=_invoke, verbose=True)

    event = commands.add_parser(
        "event",
        help="print an event fixture as `rails invoke` sends it (for sam local invoke -e -)",
    )
    event.add_argument("event", help="a path, or one relative to events/: intercept-session/start.json")
    event.set_defaults(run=_event)

    token = commands.add_parser("token", help="mint a development JWT (HS256, local secret)")
    token.add_argument("--sub", type=user_id, default=local_env.DEV_USER_ID, help="the user (created if new)")
    token.add_argument("--ttl", type=int, default=3600, help="seconds")
    for flag, help_text in (
        ("--create-user", "also create the auth.users row of the default user"),
        (
            "--service-role",
            "a service_role token instead, as a platform's backend holds: name the user in the request "
            "(user_id in a body, ?user_id= elsewhere)",
        ),
    ):
        token.add_argument(flag, action="store_true", help=help_text)
    token.set_defaults(run=_token)

    db = commands.add_parser("db", help="start the embedded Postgres and apply migrations")
    db.add_argument("--seed", action="store_true", help="also load supabase/seed.sql")
    db.add_argument("--stop", action="store_true", help="stop the embedded PostgreSQL (its data stays)")
    db.set_defaults(run=_db)

    db_check = commands.add_parser(
        "db-check", help="check that DATABASE_URL (else the embedded database) matches the migrations"
    )
    db_check.set_defaults(run=_db_check)

    smoke = commands.add_parser("smoke", help="one dialog per HTTP function against a deployed API")
    smoke.add_argument("--url", required=True, help="the stack's ApiUrl output")
    smoke.add_argument("--token", required=True, help="a real user's Supabase access token (JWT)")
    smoke.add_argument(
        "--rule-id", required=True, type=uuid_argument("rule id"), help="one of that user's rules"
    )
    smoke.add_argument("--app-identifier", required=True, help="the app that rule governs")
    smoke.set_defaults(run=_smoke)

    replay = commands.add_parser("replay", help="recompute stored decisions with no network")
    replay.add_argument("function", help="logical id in template.yaml")
    replay.add_argument(
        "ids", nargs="*", type=uuid_argument("decision record id"), help="decision record ids"
    )
    replay.add_argument("--all", action="store_true", help="every stored decision of the function")
    replay.set_defaults(run=_replay)

    _register_generators(commands)

    _register_extensions(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    raise SystemExit(main())
