"""`validate_transcript` in instructions per turn (callgrind), here and in an `--against` checkout.
Both validate the same transcripts, this checkout's runtime's, or with `--own-transcripts` each
its own runtime's; instructions do not move with the machine's load as timed medians do.

Per turn is a validation after a first one, as the timed benchmark measures (an untimed run
first): what a process compiles on first use is counted apart, once per process."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from bench import callgrind
from bench.harness.handler import REPO_ROOT

TURNS = 1_000
MODES = ("meta", "text")
LABELS = {"meta": "with meta", "text": "text only (meta stripped)"}
# Runs inside the checkout being measured: its own layer and validator, the parent's transcripts.
# `validations` is how many times each transcript is validated: 0 (loading the config only), 1 (a
# case's first validation in the process, its case built) or 2 (and once more).
CHILD = """
import json, sys
root, corpus, mode, validations = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.path[:0] = [root + "/shared", root + "/functions/sps_encounter"]
from sps_encounter.artifacts import case_of, sps_config
from sps_encounter.engine.validator import validate_transcript
config = sps_config()
played = json.load(open(corpus))
runs = []
for scenario_id, turns in played.items():
    scenario = config.scenarios[scenario_id]
    runs.append(([{k: v for k, v in t.items() if mode == "meta" or k != "meta"} for t in turns], scenario))
for _ in range(validations):
    for turns, scenario in runs:
        # As the service does: the case from its cache, built on the first request that needs it.
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


def instructions(root: Path, corpus: Path, mode: str, validations: int) -> int:
    return callgrind.instructions(CHILD, str(root), str(corpus), mode, str(validations))


class Counts:
    """Each checkout's counts, each child run once: per turn and the first validation share theirs."""

    def __init__(self, corpus: dict[Path, Path], turns: dict[Path, int]) -> None:
        self.corpus, self.turns = corpus, turns
        self.known: dict[tuple[Path, str, int], int] = {}

    def __call__(self, root: Path, mode: str, validations: int) -> int:
        key = (root, mode, validations)
        if key not in self.known:
            self.known[key] = instructions(root, self.corpus[root], mode, validations)
        return self.known[key]

    def per_turn(self, root: Path, mode: str) -> float:
        """A validation after the first, as the timed benchmark's: imports, config and what the
        first validation compiles cancel out."""
        return (self(root, mode, 2) - self(root, mode, 1)) / self.turns[root]

    def first_use(self, root: Path, mode: str) -> float:
        """What the first validation of each case in a process costs beyond a later one, summed
        over the cases: what is built and compiled on first use (an older checkout compiled its
        rules when the config was loaded, which every run here pays and so cancels), once per
        process."""
        first = self(root, mode, 1) - self(root, mode, 0)
        return first - self.per_turn(root, mode) * self.turns[root]


def main(argv: list[str] | None = None) -> int:
    own = "--own-transcripts" in (argv := sys.argv[1:] if argv is None else argv)
    other = callgrind.against(__doc__, [arg for arg in argv if arg != "--own-transcripts"])
    with tempfile.TemporaryDirectory() as directory:
        roots = [REPO_ROOT, *([other.resolve()] if other else [])]
        corpus = {root: Path(directory) / f"{n}.json" for n, root in enumerate(roots)}
        turns = {root: play_corpus(root if own else REPO_ROOT, corpus[root]) for root in roots}
        counts = Counts(corpus, turns)
        per_turn = [(LABELS[m], lambda r, m=m: counts.per_turn(r, m)) for m in MODES]
        callgrind.print_comparison("turn", per_turn, REPO_ROOT, other)
        print()
        first = [(LABELS[m], lambda r, m=m: counts.first_use(r, m)) for m in MODES]
        callgrind.print_comparison(
            "process (each case's first validation beyond a later one, summed)", first, REPO_ROOT, other
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
