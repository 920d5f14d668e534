"""The interview engine's signal reading alone (`engine.signals.extract`), in-process: the time per
answer over the benchmark corpus's answers, as the median of several passes. To compare two
versions on a noisy machine, run it on each checkout in turn, alternating, and keep the ratio:

    python -m bench.interview.signal_time --root /tmp/wt_old    # a worktree of the older commit
    python -m bench.interview.signal_time                       # this checkout

`--root` puts that checkout's function and layer first on the import path; the corpus is always
this checkout's, so both sides read the same answers.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

SEED = 20261124
SESSIONS_PER_LANGUAGE = 30
TURNS_PER_SESSION = 25
WARM_UP_ANSWERS = 50


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[2])
    parser.add_argument("--passes", type=int, default=7)
    args = parser.parse_args(argv)
    root = args.root.resolve()
    sys.path[:0] = [str(root / "functions" / "interview_turn"), str(root / "shared")]

    from bench.interview.corpus import script
    from interview_turn.artifacts import load_config
    from interview_turn.engine.model import TopicState
    from interview_turn.engine.signals import extract

    for package in ("interview_turn", "persona_rails"):
        loaded = Path(sys.modules[package].__file__ or "")
        if not loaded.is_relative_to(root):
            # Imported before the path was set: the figure would be of the wrong checkout.
            raise SystemExit(f"{package} was loaded from {loaded}, not from {root}")

    config = load_config()
    rng = random.Random(SEED)
    answers = [
        turn.text
        for language in ("en", "zh")
        for _ in range(SESSIONS_PER_LANGUAGE)
        for turn in script(rng, language, TURNS_PER_SESSION, end_with_stop=False).turns
    ]
    topic = TopicState(depth=1)
    for answer in answers[:WARM_UP_ANSWERS]:
        extract(config, answer, topic_id="life_story", topic=topic, turn_no=1)
    per_answer = []
    for _ in range(args.passes):
        started = time.perf_counter()
        for answer in answers:
            extract(config, answer, topic_id="life_story", topic=topic, turn_no=1)
        per_answer.append((time.perf_counter() - started) / len(answers) * 1e6)
    print(
        f"{root}: {len(answers)} answers, {args.passes} passes, "
        f"median {statistics.median(per_answer):.1f} µs per answer "
        f"(passes {', '.join(f'{value:.0f}' for value in per_answer)})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
