"""The interview benchmark's narrators (bench/interview/corpus.py) close a session only with their
stop requests, as a turn reads them: lexicons and local models. A retrained signal model that read
one of its plain answers as a stop once stopped `python -m bench.interview` part-way."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from bench.interview.corpus import check_corpus

REPO = Path(__file__).resolve().parents[3]


def test_the_benchmarks_narrators_close_a_session_only_with_a_stop_request():
    check_corpus()


def test_the_signal_reading_benchmark_times_this_checkouts_engine():
    # Run as a benchmark is, in its own interpreter: it puts a checkout's engine on the path.
    completed = subprocess.run(
        [sys.executable, "-m", "bench.interview.signal_time", "--passes", "1"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert re.fullmatch(
        rf"{re.escape(str(REPO))}: 1500 answers, median [\d.]+ µs per answer \(passes \d+\)\n",
        completed.stdout,
    )
