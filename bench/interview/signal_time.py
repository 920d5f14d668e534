"""The interview's signal reading alone (`engine.signals.extract`), in-process: µs per answer over
the benchmark corpus, median of passes. Compare two checkouts by alternating runs and keeping the
ratio: `python -m bench.interview.signal_time --root /tmp/wt_old [--passes 7]`, then without `--root`."""

import random
import statistics
import sys
import time
from pathlib import Path


def main(argv: list[str]) -> None:
    option = dict(zip(argv[::2], argv[1::2], strict=False))
    root = Path(option.get("--root", Path(__file__).parents[2])).resolve()
    sys.path[:0] = [str(root / "functions" / "interview_turn"), str(root / "shared")]
    from bench.interview.corpus import script
    from interview_turn.artifacts import load_config
    from interview_turn.engine.model import TopicState
    from interview_turn.engine.signals import extract

    for package in ("interview_turn", "persona_rails"):  # imported before the path was set?
        assert Path(sys.modules[package].__file__ or "").is_relative_to(root), f"{package} not from {root}"
    config, rng, topic, runs = load_config(), random.Random(20261124), TopicState(depth=1), []
    scripts = [script(rng, lang, 25, end_with_stop=False) for lang in ("en", "zh") for _ in range(30)]
    answers = [turn.text for one in scripts for turn in one.turns]
    for _ in range(int(option.get("--passes", 7)) + 1):  # the first pass warms up
        started = time.perf_counter()
        for answer in answers:
            extract(config, answer, topic_id="life_story", topic=topic, turn_no=1)
        runs.append((time.perf_counter() - started) / len(answers) * 1e6)
    median, passes = statistics.median(runs[1:]), ", ".join(f"{run:.0f}" for run in runs[1:])
    print(f"{root}: {len(answers)} answers, median {median:.1f} µs per answer (passes {passes})")


if __name__ == "__main__":
    main(sys.argv[1:])
