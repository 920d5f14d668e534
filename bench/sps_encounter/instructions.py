"""`validate_transcript` in instructions per turn (callgrind), here and in an `--against` checkout.
Both validate the same transcripts, this checkout's runtime's, or with `--own-transcripts` each
its own runtime's; instructions do not move with the machine's load as timed medians do."""

from __future__ import annotations

import json
import subprocess
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
    runs.append(([{k: v for k, v in t.items() if mode == "meta" or k != "meta"} for t in turns], case))
    validate_transcript(runs[-1][0][:50], case)
for turns, case in runs if validate else []:
    validate_transcript(turns, case)
"""
# Run by the checkout whose runtime plays the seeded learner turns (an older `play` returned an object).
PLAYER = """
import json, random, sys
root, out, turns = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path[:0] = [root, root + "/infra", root + "/shared", root + "/functions/sps_encounter"]
from bench.sps_encounter.corpus import catalog_cases, play
from sps_encounter.artifacts import sps_config
config = sps_config()
made = {r.scenario_id: play(config, r, 7, turns // 2, random.Random(7)) for r in catalog_cases(config) if r.default}
json.dump({scenario: getattr(m, "turns", m)[:turns] for scenario, m in made.items()}, open(out, "w"))
"""


def play_corpus(root: Path, path: Path) -> int:
    subprocess.run([sys.executable, "-c", PLAYER, str(root), str(path), str(TURNS)], check=True, cwd=root)
    return sum(len(turns) for turns in json.loads(path.read_text(encoding="utf-8")).values())


def instructions(root: Path, corpus: Path, mode: str, validate: bool) -> int:
    return callgrind.instructions(CHILD, str(root), str(corpus), mode, "1" if validate else "0")


def per_turn(root: Path, corpus: Path, mode: str, turns: int) -> float:
    """Validating less only loading: imports, config and case compiles cancel out."""
    return (instructions(root, corpus, mode, True) - instructions(root, corpus, mode, False)) / turns


def main(argv: list[str] | None = None) -> int:
    own = "--own-transcripts" in (argv := sys.argv[1:] if argv is None else argv)
    other = callgrind.against(__doc__, [arg for arg in argv if arg != "--own-transcripts"])
    with tempfile.TemporaryDirectory() as directory:
        roots = [REPO_ROOT, *([other.resolve()] if other else [])]
        corpus = {root: Path(directory) / f"{n}.json" for n, root in enumerate(roots)}
        turns = {root: play_corpus(root if own else REPO_ROOT, corpus[root]) for root in roots}
        rows = [(LABELS[m], lambda r, m=m: per_turn(r, corpus[r], m, turns[r])) for m in MODES]
        callgrind.print_comparison("turn", rows, REPO_ROOT, other)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
