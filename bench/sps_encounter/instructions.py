"""`validate_transcript` in instructions per turn (callgrind), here and in an `--against` checkout,
on this checkout's transcripts or (`--own-transcripts`) each its own; unlike timed medians, they do
not move with load. Per turn is a second validation, as the timed benchmark's; first use apart."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

from bench import callgrind
from bench.harness.handler import REPO_ROOT

TURNS = 1_000
MODES = ("meta", "text")
LABELS = {"meta": "with meta", "text": "text only (meta stripped)"}
# Runs in the checkout measured, validating each transcript 0, 1 or 2 times (cases as the service caches).
CHILD = """
import json, sys
root, corpus, mode, validations = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.path[:0] = [root + "/shared", root + "/functions/sps_encounter"]
from sps_encounter.artifacts import case_of, sps_config
from sps_encounter.engine.validator import validate_transcript
config, played = sps_config(), json.load(open(corpus))
runs = [([{k: v for k, v in t.items() if mode == "meta" or k != "meta"} for t in turns], config.scenarios[s])
        for s, turns in played.items()]
for _ in range(validations):
    for turns, scenario in runs:
        validate_transcript(turns, case_of(config, scenario, config.personas[scenario.value.default_persona]))
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


@cache
def instructions(root: Path, corpus: Path, mode: str, validations: int) -> int:
    return callgrind.instructions(CHILD, str(root), str(corpus), mode, str(validations))


def measured(root: Path, corpus: Path, mode: str, turns: int) -> tuple[float, float]:
    """Per turn, a second validation (imports, config, first-use compiles cancel); first use apart."""
    counts = [instructions(root, corpus, mode, n) for n in (0, 1, 2)]
    return (counts[2] - counts[1]) / turns, 2 * counts[1] - counts[0] - counts[2]


def main(argv: list[str] | None = None) -> int:
    own = "--own-transcripts" in (argv := sys.argv[1:] if argv is None else argv)
    other = callgrind.against(__doc__, [arg for arg in argv if arg != "--own-transcripts"])
    with tempfile.TemporaryDirectory() as directory:
        roots = [REPO_ROOT, *([other.resolve()] if other else [])]
        corpus = {root: Path(directory) / f"{n}.json" for n, root in enumerate(roots)}
        turns = {root: play_corpus(root if own else REPO_ROOT, corpus[root]) for root in roots}
        for unit, part in (("turn", 0), ("process (first validations beyond later ones)", 1)):
            rows = [(LABELS[m], lambda r, m=m, p=part: measured(r, corpus[r], m, turns[r])[p]) for m in MODES]
            callgrind.print_comparison(unit, rows, REPO_ROOT, other)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
