"""Rule-only moderation in instructions per text (callgrind), here and in an `--against` checkout.
Instructions do not move with the machine's load as timed rates do (docs/benchmarks.md, "Judges")."""

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
    """2,200 texts less the first 200: imports, the corpus, the lexicon and lazy compiles cancel out."""
    return (instructions(root, variant, WARM + MEASURED) - instructions(root, variant, WARM)) / MEASURED


def main(argv: list[str] | None = None) -> int:
    other = callgrind.against(__doc__, argv)
    rows = [(variant, lambda root, variant=variant: per_text(root, variant)) for variant in VARIANTS]
    callgrind.print_comparison("text", rows, REPO_ROOT, other)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
