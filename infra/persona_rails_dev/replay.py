"""`rails replay FUNCTION ID...`: recompute stored decisions with no network, print `identical` or a diff.

The replay runs in a child interpreter that sees only the function's CodeUri and the layer and
the function's own environment, as Lambda does, with every LLM variable removed: a decision the
LLM made is recomputed from its recorded reply, never by asking again.
"""

from __future__ import annotations

import subprocess
import sys

from persona_rails.decisions import REPLAY_MODULE
from persona_rails_dev.template import Function
from persona_rails_dev.workers import lambda_environment

_LLM_VARIABLES = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PERSONA_RAILS_LLM_MODEL")

_REPLAY = """
import importlib, sys
from persona_rails.db import Database
from persona_rails.decisions import REPLAY_MODULE, NotReplayable, diff, load_record

url, package, function_name, *ids = sys.argv[1:]
database = Database(url)
with database.as_owner() as tx:
    if ids == ["--all"]:
        ids = [str(row["id"]) for row in tx.rows(
            "SELECT id FROM public.decision_records WHERE function_name = :f ORDER BY created_at, id",
            f=function_name)]
    records = [(record_id, load_record(tx, record_id)) for record_id in ids]
entry = importlib.import_module(f"{package}.{REPLAY_MODULE}")
status = 0
replayed = 0
for record_id, record in records:
    if record is None:
        print(f"{record_id}: no such decision record")
        status = 2
        continue
    if record.function_name != function_name:
        print(f"{record_id}: decided by {record.function_name}, not {function_name}")
        status = 2
        continue
    try:
        lines = diff(record.output, entry.replay(record))
    except NotReplayable as exc:
        print(f"{record_id}: not replayable: {exc}")
        status = 2
        continue
    replayed += 1
    if lines:
        status = max(status, 1)
        versions = f"engine {record.engine_version}, config {record.config_version}"
        print(f"{record_id}: differs ({record.source}, {versions})")
        print("\\n".join(lines))
    else:
        print(f"{record_id}: identical")
skipped = len(records) - replayed
print(f"replayed {replayed} decision(s)" + (f", {skipped} not replayed" if skipped else ""))
sys.exit(status)
"""


def replay(function: Function, database_url: str, record_ids: list[str]) -> int:
    """Exit status: 0 all identical, 1 some differ, 2 some not found or not this function's."""
    entry = function.code_uri / function.package / f"{REPLAY_MODULE}.py"
    if not entry.is_file():
        print(
            f"{function.logical_id} keeps no replayable decisions: it has no "
            f"{function.package}/{REPLAY_MODULE}.py (see persona_rails/decisions.py)",
            file=sys.stderr,
        )
        return 2
    env = lambda_environment(function)
    for name in _LLM_VARIABLES:
        env.pop(name, None)
    completed = subprocess.run(  # noqa: S603 - our own interpreter on our own code
        [
            sys.executable,
            "-S",
            "-c",
            _REPLAY,
            database_url,
            function.package,
            function.logical_id,
            *record_ids,
        ],
        env=env,
        cwd=function.code_uri,
        check=False,
    )
    return completed.returncode
