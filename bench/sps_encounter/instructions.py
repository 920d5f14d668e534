"""`validate_transcript` in instructions per turn (callgrind), here and in an `--against` checkout.
Both validate the same played transcripts; instructions do not move with the machine's load as
timed medians do (docs/benchmarks.md, "Issue 22")."""

from __future__ import annotations

import json
import random
import sys
import tempfile
from pathlib import Path

from bench import callgrind
from bench.harness.handler import REPO_ROOT

TURNS = 2_000
MODES = ("meta", "text")
LABELS = {"meta": "with meta", "text": "text only (meta stripped)"}
# Runs inside the checkout being measured: its own layer and validator, the parent's transcripts.
CHILD = """
import json, sys
root, corpus, mode, validate = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
sys.path[:0] = [root + "/shared", root + "/functions/sps_encounter"]
from sps_encounter.artifacts import case_of, sps_config
from sps_encounter.engine.validator import validate_transcript
config = sps_config()
played = json.load(open(corpus))
runs = []
for scenario_id, turns in played.items():
    scenario = config.scenarios[scenario_id]
    case = case_of(config, scenario, config.personas[scenario.value.default_persona])
    if mode == "text":
        turns = [{k: v for k, v in turn.items() if k != "meta"} for turn in turns]
    validate_transcript(turns[:50], case)
    runs.append((turns, case))
if validate:
    for turns, case in runs:
        validate_transcript(turns, case)
"""


def play_corpus(path: Path) -> int:
    sys.path[:0] = [str(REPO_ROOT / "shared"), str(REPO_ROOT / "functions/sps_encounter")]
    from bench.sps_encounter.corpus import catalog_cases, play
    from sps_encounter.artifacts import sps_config

    config = sps_config()
    played = {
        ref.scenario_id: play(config, ref, 7, TURNS // 2, random.Random(7))[:TURNS]
        for ref in catalog_cases(config)
        if ref.default
    }
    path.write_text(json.dumps(played), encoding="utf-8")
    return sum(len(turns) for turns in played.values())


def instructions(root: Path, corpus: Path, mode: str, validate: bool) -> int:
    return callgrind.instructions(CHILD, str(root), str(corpus), mode, "1" if validate else "0")


def per_turn(root: Path, corpus: Path, mode: str, turns: int) -> float:
    """Validating less only loading: imports, config and case compiles cancel out."""
    return (instructions(root, corpus, mode, True) - instructions(root, corpus, mode, False)) / turns


def main(argv: list[str] | None = None) -> int:
    other = callgrind.against(__doc__, argv)
    with tempfile.TemporaryDirectory() as directory:
        corpus = Path(directory) / "transcripts.json"
        turns = play_corpus(corpus)
        rows = [(LABELS[mode], lambda root, mode=mode: per_turn(root, corpus, mode, turns)) for mode in MODES]
        callgrind.print_comparison("turn", rows, REPO_ROOT, other)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
