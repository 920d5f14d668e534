"""Rule-only moderation in instructions per text (callgrind), for this checkout and, with
`--against`, another checkout of the repository (a `git worktree` of an older commit).

Instructions do not depend on the machine's load, which on a shared 2-CPU machine moves a timed
rate by a third from one minute to the next. Each count is the difference between a run that checks
2,200 texts and one that checks the first 200 of the same corpus (imports, building the corpus,
lexicon loading and lazy compiles cancel out), divided by 2,000.

    python -m bench.moderation.instructions [--against /tmp/head]
"""

from __future__ import annotations

from pathlib import Path

from bench import callgrind
from bench.harness.handler import REPO_ROOT

VARIANTS = ("`rule_score` alone", "`evaluate`, policy default", "`evaluate`, policy stage_aware")
WARM, MEASURED = 200, 2_000
# Runs inside the checkout being measured: its own layer, its own bench corpus and variants.
CHILD = """
import sys
root, variant, total, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
sys.path[:0] = [root + "/shared", root]
from bench.moderation.corpus import SEED, chinese_corpus, lexicon
from bench.moderation.rules import rule_variants
run = rule_variants(lexicon())[variant]
for index, text in enumerate(chinese_corpus(total, SEED)[:count]):
    run(text, 1 + index % 5)
"""


def instructions(root: Path, variant: str, count: int) -> int:
    return callgrind.instructions(CHILD, str(root), variant, str(WARM + MEASURED), str(count))


def per_text(root: Path, variant: str) -> float:
    return (instructions(root, variant, WARM + MEASURED) - instructions(root, variant, WARM)) / MEASURED


def main(argv: list[str] | None = None) -> int:
    other = callgrind.against(__doc__, argv)
    rows = [(variant, lambda root, variant=variant: per_text(root, variant)) for variant in VARIANTS]
    callgrind.print_comparison("text", rows, REPO_ROOT, other)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
